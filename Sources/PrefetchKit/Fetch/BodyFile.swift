import Foundation
internal import Glibc

/// One attempt's open destination file while writer threads may still be writing to it: counts the
/// writes in flight, keeps the first write failure, and closes the file once the last write is done
/// (a borrowed descriptor is left open for its owner; "closed" then means no more writes).
final class BodyFile: Sendable {
    let descriptor: Int32
    /// False for a descriptor the request's caller owns.
    private let ownsDescriptor: Bool

    private struct State {
        var pending = 0
        var failure: Int32?
        var closed = false
        /// Runs once the last write is done and the file closed, with the first failure if any.
        var onClosed: (@Sendable (Int32?) -> Void)?
    }

    /// `condition` guards `state`; it is only touched with the condition locked.
    private nonisolated(unsafe) var state = State()
    private let condition = NSCondition()

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
        if !state.closed && ownsDescriptor {
            close(descriptor)
        }
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

    func beginWrite() {
        condition.lock()
        state.pending += 1
        condition.unlock()
    }

    func endWrite(failure: Int32?) {
        condition.lock()
        state.pending -= 1
        if state.failure == nil { state.failure = failure }
        let finished = state.pending == 0 ? finishLocked() : nil
        if state.pending == 0 { condition.broadcast() }
        condition.unlock()
        finished?()
    }

    /// Closes the file once the writes in flight are done, then calls `onClosed` with the first write
    /// or close failure (nil when every byte is in the file): at once when nothing is in flight, else on
    /// the writer thread that finishes last.
    func closeWhenWritten(then onClosed: @escaping @Sendable (Int32?) -> Void) {
        condition.lock()
        state.onClosed = onClosed
        let finished = state.pending == 0 ? finishLocked() : nil
        condition.unlock()
        finished?()
    }

    /// Waits for the writes in flight, then closes the file; the first failure if any. For the paths
    /// that give a body up (failures, cancellation), where the file must be still before it is removed.
    @discardableResult
    func closeAfterWrites() -> Int32? {
        condition.lock()
        while state.pending > 0 {
            condition.wait()
        }
        closeLocked()
        let failure = state.failure
        condition.unlock()
        return failure
    }

    /// With the condition locked and nothing in flight: closes and returns the pending `onClosed` call.
    private func finishLocked() -> (() -> Void)? {
        guard let onClosed = state.onClosed else { return nil }
        state.onClosed = nil
        closeLocked()
        let failure = state.failure
        return { onClosed(failure) }
    }

    private func closeLocked() {
        guard !state.closed else { return }
        state.closed = true
        if ownsDescriptor, close(descriptor) != 0, state.failure == nil {
            state.failure = errno
        }
    }
}
