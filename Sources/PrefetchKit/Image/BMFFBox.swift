/// One box of an ISO base media file (AVIF) or a JPEG XL container: where it starts, its header's
/// length and where it ends. Only boxes that fit wholly inside their parent are read; anything
/// malformed ends the walk, and the library that parses the file says what is wrong with it.
struct BMFFBox {
    let type: String
    let start: Int
    let headerLength: Int
    let end: Int
    /// The header's size field: 0 means "extends to the end of the file", 1 a 64-bit size follows.
    let sizeField: UInt32

    var payload: Range<Int> { start + headerLength..<end }

    /// The boxes one after another in `range` of `bytes`.
    static func children(of bytes: UnsafeRawBufferPointer, in range: Range<Int>) -> [BMFFBox] {
        var boxes: [BMFFBox] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, let box = box(in: bytes, at: offset, limit: range.upperBound) {
            boxes.append(box)
            offset = box.end
        }
        return boxes
    }

    private static func box(in bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int) -> BMFFBox? {
        let sizeField = bytes.bigEndianUInt32(at: offset)
        let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
        var headerLength = 8
        var end: Int
        switch sizeField {
        case 0:
            end = limit
        case 1:
            guard offset + 16 <= limit else { return nil }
            let large = UInt64(bytes.bigEndianUInt32(at: offset + 8)) << 32 | UInt64(bytes.bigEndianUInt32(at: offset + 12))
            guard large <= UInt64(limit - offset) else { return nil }
            headerLength = 16
            end = offset + Int(large)
        default:
            end = offset + Int(sizeField)
        }
        guard end >= offset + headerLength, end <= limit else { return nil }
        return BMFFBox(type: type, start: offset, headerLength: headerLength, end: end, sizeField: sizeField)
    }
}

extension UnsafeRawBufferPointer {
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        self[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
