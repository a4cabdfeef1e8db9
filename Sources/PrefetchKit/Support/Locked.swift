/// A value behind a `PlainLock`, in `Mutex`'s shape: `withLock` lends the value `inout`. For state
/// that several threads take in turn all the time (the run's scheduling state, the fetch engine's
/// inbox): a pthread mutex sleeps at once instead of spinning, and ThreadSanitizer sees the ordering
/// it gives, which it does not see through `Mutex`'s futex on Linux (every report of a TSan run of
/// the suite was such a false race: sanitize/README.md).
final class Locked<Value>: @unchecked Sendable {  // `value` is only touched inside `lock.withLock`
    private let lock = PlainLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}
