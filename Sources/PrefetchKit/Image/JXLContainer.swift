/// A JPEG XL container whose boxes use the 64-bit "largesize" header (size field 1) is legal, but
/// Debian 12's libjxl 0.7 reads it as truncated; such boxes are rewritten with 32-bit sizes in a
/// copy when they fit. Anything else, a bare codestream included, goes to libjxl as it is.
enum JXLContainer {
    private static let signature: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    static func normalized<R>(
        _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(ImageError) -> R
    ) throws(ImageError) -> R {
        guard bytes.starts(with: signature) else { return try body(bytes) }
        let boxes = BMFFBox.children(of: bytes, in: 0..<bytes.count)
        guard boxes.contains(where: { $0.sizeField == 1 && UInt32(exactly: $0.end - $0.start - 8) != nil }),
              boxes.last?.end == bytes.count else { return try body(bytes) }
        var copy: [UInt8] = []
        copy.reserveCapacity(bytes.count)
        for box in boxes {
            if box.sizeField == 1, let size = UInt32(exactly: box.end - box.start - 8) {
                withUnsafeBytes(of: size.bigEndian) { copy.append(contentsOf: $0) }
                copy.append(contentsOf: bytes[box.start + 4..<box.start + 8])
                copy.append(contentsOf: bytes[box.payload])
            } else {
                copy.append(contentsOf: bytes[box.start..<box.end])
            }
        }
        return try copy.withImageBytes(body)
    }
}
