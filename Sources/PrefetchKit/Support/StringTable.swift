internal import CXXHash

/// Strings mapped to values, for millions of them: `verify`'s keys told new from repeated, and the
/// index's originals by path when `verify` reads them all at once.
///
/// Each slot of an open-addressed table holds a string's XXH3-64 digest, where its bytes are kept (in
/// one buffer for all of them) and its value. A probe compares digests and reads a string's bytes
/// only where they agree, so a string is told exactly and a lookup costs its digest and a slot or two.
/// A `Set<String>` compares the strings themselves at every occupied slot it passes, rehashes them all
/// with SipHash each time it grows, and keeps each string in an allocation of its own: over a million
/// keys that was half of `verify`'s main thread (bench/RESULTS.md, "verify: keys told apart by digest").
struct StringTable<Value> {
    fileprivate struct Slot {
        var digest: UInt64
        /// One past where the string is in `bytes` (its length as 32 bits, then its bytes); 0 when
        /// the slot is empty.
        var place: Int
        var value: Value
    }

    /// A power of two, at most three quarters full.
    private var slots: [Slot]
    private var bytes: [UInt8] = []
    /// What an empty slot holds, never returned.
    private let placeholder: Value
    /// The digest of a string's UTF-8 bytes: XXH3-64 but in tests, which make strings collide.
    private let digest: @Sendable (UnsafeBufferPointer<UInt8>) -> UInt64

    /// The strings held.
    private(set) var count = 0

    /// A table with room for `capacity` strings before it first grows, and for their bytes as long as
    /// they average `bytesEach` or fewer: reserved, not touched, so an overestimate costs address
    /// space only, where each growth of the buffer copies it into pages the kernel must clear.
    init(placeholder: Value, capacity: Int = 0, bytesEach: Int = 0,
         digest: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> UInt64 = { XXH3_64bits($0.baseAddress, $0.count) }) {
        self.placeholder = placeholder
        self.digest = digest
        var count = 1024
        while capacity * 4 > count * 3 { count *= 2 }
        slots = Array(repeating: Slot(digest: 0, place: 0, value: placeholder), count: count)
        bytes.reserveCapacity(capacity * (4 + bytesEach))
    }

    /// Adds `string` with `value`; false, and the value held is kept, when the string was there.
    mutating func insert(_ string: String, _ value: Value) -> Bool {
        var string = string
        return string.withUTF8 { insert(utf8: $0, value) }
    }

    /// As `insert(_:_:)`, for a string's UTF-8 bytes.
    mutating func insert(utf8 string: UnsafeBufferPointer<UInt8>, _ value: Value) -> Bool {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let digest = digest(string)
        let (index, found) = probe(string, digest)
        guard !found else { return false }
        slots[index] = Slot(digest: digest, place: bytes.count + 1, value: value)
        withUnsafeBytes(of: UInt32(string.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: string)
        count += 1
        return true
    }

    /// The value held for `string`, nil when it is not there.
    func value(for string: String) -> Value? {
        var string = string
        return string.withUTF8 { utf8 in
            let (index, found) = probe(utf8, digest(utf8))
            return found ? slots[index].value : nil
        }
    }

    /// The slot holding `string` (`found`), else the empty one where it would go.
    private func probe(_ string: UnsafeBufferPointer<UInt8>, _ digest: UInt64) -> (index: Int, found: Bool) {
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: digest) & mask
        while slots[index].place != 0 {
            if slots[index].digest == digest && holds(string, at: slots[index].place) { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    /// Whether the string kept at `place` is `string`.
    private func holds(_ string: UnsafeBufferPointer<UInt8>, at place: Int) -> Bool {
        bytes.withUnsafeBytes { kept in
            let start = place - 1
            let length = Int(UInt32(littleEndian: kept.loadUnaligned(fromByteOffset: start, as: UInt32.self)))
            return length == string.count && kept[(start + 4)..<(start + 4 + length)].elementsEqual(string)
        }
    }

    /// Doubles the table; each slot moves by its digest, no string is read again.
    private mutating func grow() {
        var larger = Array(repeating: Slot(digest: 0, place: 0, value: placeholder), count: slots.count * 2)
        let mask = larger.count - 1
        for slot in slots where slot.place != 0 {
            var index = Int(truncatingIfNeeded: slot.digest) & mask
            while larger[index].place != 0 { index = (index + 1) & mask }
            larger[index] = slot
        }
        slots = larger
    }
}

extension StringTable: Sendable where Value: Sendable {}
extension StringTable.Slot: Sendable where Value: Sendable {}
