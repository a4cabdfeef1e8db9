internal import Glibc
import Synchronization

/// One attempt's open destination file: written on the network thread, closed once, there or on a
/// `BodyCloser` thread (a borrowed descriptor is left open for its owner; "closed" then means no more
/// writes).
final class BodyFile: Sendable {
    let descriptor: Int32
    /// False for a descriptor the request's caller owns.
    private let ownsDescriptor: Bool
    private let closed = Atomic<Bool>(false)

    /// A file opened for the attempt, closed here.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        ownsDescriptor = true
    }

    /// A file the caller holds open; written, never closed here.
    init(borrowing descriptor: Int32) {
        self.descriptor = descriptor
        ownsDescriptor = false
    }

    deinit {
        close()
    }

    /// Writes all of `bytes` at `offset`; the system's error number when a write fails.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int64) -> Int32? {
        var written = 0
        while written < bytes.count {
            let result = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            if result < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += result
        }
        return nil
    }

    /// Closes the file the first time it is called; the close's error number when it fails (nil for a
    /// borrowed descriptor, and at every later call).
    @discardableResult
    func close() -> Int32? {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing), ownsDescriptor else { return nil }
        return Glibc.close(descriptor) == 0 ? nil : errno
    }
}
