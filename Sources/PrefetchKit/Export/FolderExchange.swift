import Foundation

/// Swaps two folders in one step: Linux's `renameat2(RENAME_EXCHANGE)`, looked up in the C library at
/// run time (Swift's Glibc module does not declare it).
enum FolderExchange {
    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    /// `RENAME_EXCHANGE` from <linux/fs.h>.
    private static let exchangeFlag: UInt32 = 2

    private struct Function: @unchecked Sendable {  // a C function pointer, immutable once looked up
        let call: RenameAt2?
    }

    private static let renameat2 = Function(call: dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2")
        .map { unsafeBitCast($0, to: RenameAt2.self) })

    /// Swaps the folders at `first` and `second` (both must exist); false with `errno` set when the
    /// system or the file system cannot (`ENOSYS`, `EINVAL`).
    static func exchange(_ first: String, _ second: String) -> Bool {
        guard let call = renameat2.call else {
            errno = ENOSYS
            return false
        }
        return call(AT_FDCWD, first, AT_FDCWD, second, exchangeFlag) == 0
    }
}
