/// Ends kept bodies on two threads beside the network thread: closes each body's file, and runs what
/// comes after it there (the body's result, which with no event handler is delivered on that thread,
/// so that the caller's validate-and-store runs there too; and the last step of the hashes).
///
/// The network thread writes every body itself (`BodySink`), as a single-threaded client does:
/// handing the bytes to writer threads cost a copy of every body into chunks and a thread wake-up
/// per chunk, more than the write it moved (bench/RESULTS.md, "Bodies written from libcurl's
/// buffer"). Only the end of a body is handed over, once per body.
final class BodyCloser: Sendable {
    private let threads: WorkerPool

    init(threads: Int) {
        self.threads = WorkerPool(name: "prefetchd.fetch.closer", width: max(threads, 1))
    }

    deinit {
        waitUntilIdle()
    }

    /// A body's hashes, handed from the network thread to the thread that finishes the body. One
    /// thread uses them at a time; the hand-over through the pool's queue orders them.
    struct PendingHashes: @unchecked Sendable {
        let hashes: StoredBodyHashes
    }

    /// Closes `file` on a closer thread, then calls `then` there with the close's failure, if any.
    func close(_ file: BodyFile, then: @escaping @Sendable (Int32?) -> Void) {
        threads.submit {
            then(file.close())
        }
    }

    /// True on a closer thread.
    var isCurrentThreadCloser: Bool {
        threads.isCurrentThreadWorker
    }

    /// Waits until every close handed over so far, and what came after it, has run.
    func waitUntilIdle() {
        threads.waitUntilIdle()
    }
}
