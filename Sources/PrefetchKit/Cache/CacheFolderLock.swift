import Foundation

/// An exclusive `flock` on a file in the cache folder (`clean.lock`), held until released or the
/// process ends (the kernel drops it when a killed process's descriptor closes, so a crash never
/// leaves it stuck). The holder writes its pid into the file so a waiter can name it.
package final class CacheFolderLock: Sendable {
    package let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock, polling every 50 ms for at most `wait` seconds; nil when another process still
    /// holds it then, with that process's pid if it wrote one.
    package static func acquire(
        _ path: String, wait: TimeInterval
    ) throws(CacheError) -> Result<CacheFolderLock, LockHeld> {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .fromErrno("open", path) }
        let deadline = Date().addingTimeInterval(wait)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = CacheError.fromErrno("lock", path)
                close(descriptor)
                throw error
            }
            if Date() >= deadline {
                let holder = (try? String(contentsOfFile: path, encoding: .utf8)).flatMap {
                    Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                close(descriptor)
                return .failure(LockHeld(path: path, holder: holder))
            }
            usleep(50_000)
        }
        let pid = "\(getpid())\n"
        if ftruncate(descriptor, 0) == 0 {
            _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        }
        return .success(CacheFolderLock(path: path, descriptor: descriptor))
    }

    /// Another process holds the lock.
    package struct LockHeld: Error, Sendable, Equatable {
        package let path: String
        /// The pid the holder wrote, when readable.
        package let holder: Int32?
    }
}
