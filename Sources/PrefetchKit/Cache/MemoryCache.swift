import Synchronization

/// A cost-bounded least-recently-used cache for entries touched within one process, like NSCache
/// with a byte cost or AFAutoPurgingImageCache. Get, set and evict are O(1): a dictionary of slots
/// in a doubly-linked recency list. Safe from any thread (one Mutex).
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let totalCostLimit: Int
    public let countLimit: Int?
    private let storage: Mutex<MemoryCacheStorage<Key, Value>>

    /// `totalCostLimit` in bytes; `countLimit` caps the number of values too when given.
    public init(totalCostLimit: Int, countLimit: Int? = nil) {
        self.totalCostLimit = totalCostLimit
        self.countLimit = countLimit
        self.storage = Mutex(MemoryCacheStorage())
    }

    /// The value for `key`, which becomes the most recently used.
    public func value(forKey key: Key) -> Value? {
        storage.withLock { $0.value(forKey: key) }
    }

    /// Stores `value` as the most recently used, then evicts least recently used values until the
    /// limits hold. A value costing more than the whole limit is not kept.
    public func setValue(_ value: Value, forKey key: Key, cost: Int) {
        storage.withLock { storage in
            storage.set(value, forKey: key, cost: cost)
            storage.evict(costLimit: totalCostLimit, countLimit: countLimit)
        }
    }

    public func removeValue(forKey key: Key) {
        storage.withLock { $0.remove(key) }
    }

    public func removeAll() {
        storage.withLock { $0 = MemoryCacheStorage() }
    }

    /// The sum of the costs of the values held.
    public var totalCost: Int { storage.withLock { $0.totalCost } }

    /// True once any value was evicted to keep the limits.
    public var hasEvicted: Bool { storage.withLock { $0.evictions > 0 } }

    public var count: Int { storage.withLock { $0.slotByKey.count } }

    /// Keys from most to least recently used.
    public var keysByRecency: [Key] { storage.withLock { $0.keysByRecency() } }
}

/// The list and dictionary behind `MemoryCache`: nodes live in an array addressed by slot number,
/// freed slots are reused, `head` is the most recently used and `tail` the least.
struct MemoryCacheStorage<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var previous: Int?
        var next: Int?
    }

    private var nodes: [Node?] = []
    private var freeSlots: [Int] = []
    private(set) var slotByKey: [Key: Int] = [:]
    private var head: Int?
    private var tail: Int?
    private(set) var totalCost = 0
    private(set) var evictions = 0

    mutating func value(forKey key: Key) -> Value? {
        guard let slot = slotByKey[key] else { return nil }
        moveToFront(slot)
        return nodes[slot]?.value
    }

    mutating func set(_ value: Value, forKey key: Key, cost: Int) {
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

    mutating func remove(_ key: Key) {
        guard let slot = slotByKey.removeValue(forKey: key) else { return }
        unlink(slot)
        totalCost -= nodes[slot]!.cost
        nodes[slot] = nil
        freeSlots.append(slot)
    }

    /// Drops least recently used values until both limits hold.
    mutating func evict(costLimit: Int, countLimit: Int?) {
        while let last = tail, totalCost > costLimit || slotByKey.count > (countLimit ?? .max) {
            remove(nodes[last]!.key)
            evictions += 1
        }
    }

    func keysByRecency() -> [Key] {
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
