import Testing
@testable import PrefetchKit

@Suite struct RecencyCacheTests {
    @Test func evictsTheLeastRecentlyUsedFirst() {
        var cache = RecencyCache<String, Int>(totalCostLimit: 300)
        cache.setValue(1, forKey: "a", cost: 100)
        cache.setValue(2, forKey: "b", cost: 100)
        cache.setValue(3, forKey: "c", cost: 100)
        #expect(cache.value(forKey: "a") == 1)  // a is now the most recent

        cache.setValue(4, forKey: "d", cost: 100)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.totalCost == 300)
    }

    @Test func evictsAsManyAsTheCostNeeds() {
        var cache = RecencyCache<Int, String>(totalCostLimit: 100)
        for key in 0..<5 { cache.setValue("v\(key)", forKey: key, cost: 20) }
        cache.setValue("big", forKey: 9, cost: 70)
        #expect(cache.keysByRecency == [9, 4])
        #expect(cache.totalCost == 90)
    }

    @Test func replacingAValueUpdatesItsCost() {
        var cache = RecencyCache<String, Int>(totalCostLimit: 1000)
        cache.setValue(1, forKey: "a", cost: 100)
        cache.setValue(2, forKey: "a", cost: 250)
        #expect(cache.totalCost == 250)
        #expect(cache.count == 1)
        #expect(cache.value(forKey: "a") == 2)
        cache.removeValue(forKey: "a")
        #expect(cache.totalCost == 0)
        #expect(cache.value(forKey: "a") == nil)
    }

    @Test func aValueAboveTheLimitIsNotKept() {
        var cache = RecencyCache<String, Int>(totalCostLimit: 50)
        cache.setValue(1, forKey: "small", cost: 10)
        cache.setValue(2, forKey: "huge", cost: 60)
        #expect(cache.value(forKey: "huge") == nil)
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
    }

    @Test func theCountLimitEvictsToo() {
        var cache = RecencyCache<Int, Int>(totalCostLimit: 1_000_000, countLimit: 2)
        for key in 0..<4 { cache.setValue(key, forKey: key, cost: 1) }
        #expect(cache.keysByRecency == [3, 2])
    }

    @Test func freedSlotsAreReused() {
        var cache = RecencyCache<Int, Int>(totalCostLimit: 3)
        for key in 0..<100 { cache.setValue(key, forKey: key, cost: 1) }
        #expect(cache.keysByRecency == [99, 98, 97])
        for key in 97...99 { cache.removeValue(forKey: key) }
        #expect(cache.count == 0 && cache.totalCost == 0)
    }
}
