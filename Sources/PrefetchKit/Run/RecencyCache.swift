/// A cost-bounded least-recently-used map, like NSCache with a byte cost or AFAutoPurgingImageCache.
/// Get, set and evict are O(1): nodes live in an array addressed by slot number, freed slots are
/// reused, `head` is the most recently used and `tail` the least. Not locked: its owner holds it
/// behind its own lock (`RunBoard`).
struct RecencyCache<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var previous: Int?
        var next: Int?
    }

    private var nodes: [Node?] = []
    private var freeSlots: [Int] = []
    private var slotByKey: [Key: Int] = [:]
    private var head: Int?
    private var tail: Int?
    private(set) var totalCost = 0
    private(set) var evictions = 0
    /// The uses so far: every value stored or got, and their costs, summed (never going down).
    private(set) var used = UseMark(count: 0, cost: 0)
    let totalCostLimit: Int
    let countLimit: Int?

    /// How many values were stored or got, and at what cost, up to some moment (`used`).
    struct UseMark: Sendable, Equatable {
        var count: Int
        var cost: Int
    }

    /// `totalCostLimit` in bytes; `countLimit` caps the number of values too when given. `capacity`
    /// values are made room for at once: grown a value at a time, a warm rerun's 20,000 keys copied
    /// the nodes and hashed the keys again at every doubling, a third of its scheduling thread's time
    /// (bench/RESULTS.md, "Last uses in a table of their own").
    init(totalCostLimit: Int, countLimit: Int? = nil, capacity: Int = 0) {
        self.totalCostLimit = totalCostLimit
        self.countLimit = countLimit
        nodes.reserveCapacity(capacity)
        slotByKey.reserveCapacity(capacity)
    }

    var count: Int { slotByKey.count }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(forKey key: Key) -> Value? {
        guard let slot = slotByKey[key] else { return nil }
        moveToFront(slot)
        used.count += 1
        used.cost += nodes[slot]!.cost
        return nodes[slot]?.value
    }

    /// Whether every key stored or got between the marks `start` and `end` (two readings of `used`) was
    /// still held at `end`. The values used since `start` are the most recent ones, so the oldest of
    /// them goes only once the values in front of it and itself, all used since, break a limit: not
    /// while the uses since `start` cost and count no more than the limits allow.
    func keptEverythingUsed(from start: UseMark, to end: UseMark) -> Bool {
        end.cost - start.cost <= totalCostLimit && end.count - start.count <= countLimit ?? .max
    }

    /// Stores `value` as the most recently used, then evicts least recently used values until the
    /// limits hold. A value costing more than the whole limit is not kept.
    mutating func setValue(_ value: Value, forKey key: Key, cost: Int) {
        defer { evict() }
        used.count += 1
        used.cost += cost
        if let slot = slotByKey[key] {
            totalCost += cost - nodes[slot]!.cost
            nodes[slot]!.value = value
            nodes[slot]!.cost = cost
            moveToFront(slot)
            return
        }
        let node = Node(key: key, value: value, cost: cost, previous: nil, next: nil)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        slotByKey[key] = slot
        totalCost += cost
        linkAtFront(slot)
    }

    mutating func removeValue(forKey key: Key) {
        guard let slot = slotByKey.removeValue(forKey: key) else { return }
        unlink(slot)
        totalCost -= nodes[slot]!.cost
        nodes[slot] = nil
        freeSlots.append(slot)
    }

    /// Drops least recently used values until both limits hold.
    private mutating func evict() {
        while let last = tail, totalCost > totalCostLimit || slotByKey.count > (countLimit ?? .max) {
            removeValue(forKey: nodes[last]!.key)
            evictions += 1
        }
    }

    /// Keys from most to least recently used.
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var cursor = head
        while let slot = cursor, let node = nodes[slot] {
            keys.append(node.key)
            cursor = node.next
        }
        return keys
    }

    private mutating func moveToFront(_ slot: Int) {
        guard head != slot else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func linkAtFront(_ slot: Int) {
        nodes[slot]!.previous = nil
        nodes[slot]!.next = head
        if let head { nodes[head]!.previous = slot }
        head = slot
        if tail == nil { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot]!.previous
        let next = nodes[slot]!.next
        if let previous { nodes[previous]!.next = next } else { head = next }
        if let next { nodes[next]!.previous = previous } else { tail = previous }
        nodes[slot]!.previous = nil
        nodes[slot]!.next = nil
    }
}
