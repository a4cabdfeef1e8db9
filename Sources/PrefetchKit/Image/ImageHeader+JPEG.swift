extension ImageHeader {
    /// Walks the marker segments from SOI to the first frame header (SOFn), skipping APPn, DQT,
    /// DHT and the rest by their lengths, and fill bytes between markers.
    static func jpeg(_ bytes: some ImageBytes) throws(ImageError) -> ImageInfo {
        var offset: Int64 = 2
        while true {
            let marker = try exactlyTwo(at: offset, of: bytes, .jpeg, reading: "marker before the frame header")
            guard marker >> 8 == 0xFF else {
                throw .corrupt(.jpeg, detail: "expected a marker at byte \(offset), found 0x\(hex(UInt8(marker >> 8)))")
            }
            let code = UInt8(marker & 0xFF)
            if code == 0xFF {
                offset += 1  // a fill byte
                continue
            }
            offset += 2
            if code == 0x01 || (0xD0...0xD7).contains(code) {
                continue  // TEM and RSTn stand alone
            }
            if code == 0xD8 || code == 0xD9 || code == 0xDA {
                throw .corrupt(.jpeg, detail: "marker 0x\(hex(code)) comes before any frame header")
            }
            let length = try Int(exactlyTwo(at: offset, of: bytes, .jpeg, reading: "segment length"))
            guard length >= 2 else {
                throw .corrupt(.jpeg, detail: "segment 0x\(hex(code)) has the impossible length \(length)")
            }
            if frameMarkers.contains(code) {
                return try frame(code, at: offset, length: length, of: bytes)
            }
            offset += Int64(length)
        }
    }

    /// SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    private static let frameMarkers: Set<UInt8> = Set(0xC0...0xCF).subtracting([0xC4, 0xC8, 0xCC])
    /// Baseline, extended, progressive, in Huffman or arithmetic coding: what libjpeg-turbo decodes.
    private static let decodableFrames: Set<UInt8> = [0xC0, 0xC1, 0xC2, 0xC9, 0xCA]

    private static func frame(_ code: UInt8, at offset: Int64, length: Int, of bytes: some ImageBytes) throws(ImageError) -> ImageInfo {
        guard length >= 8 else {
            throw .corrupt(.jpeg, detail: "frame header 0x\(hex(code)) is only \(length) bytes")
        }
        let header = try exactly(6, at: offset + 2, of: bytes, .jpeg, reading: "frame header")
        guard decodableFrames.contains(code) else {
            throw .unsupported(kind: "JPEG", detail: "lossless or hierarchical process (SOF type 0x\(hex(code)))")
        }
        guard header[0] == 8 else {
            throw .unsupported(kind: "JPEG", detail: "\(header[0])-bit sample precision")
        }
        return ImageInfo(format: .jpeg, width: header.bigEndian(at: 3, size: 2), height: header.bigEndian(at: 1, size: 2))
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }
}
