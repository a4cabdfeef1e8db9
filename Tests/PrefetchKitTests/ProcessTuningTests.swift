import Testing
@testable import PrefetchKit

@Suite struct ProcessTuningTests {
    /// glibc refuses a mapping threshold over its cap (32 MiB on 64-bit), which would leave both at its
    /// defaults and a warm `verify` giving its heap back and faulting it in again for every batch.
    @Test func glibcTakesTheHeapSettings() {
        #expect(ProcessTuning.keepFreedHeap())
    }
}
