extension ImageHeader {
    /// RIFF header, then the first chunk: VP8 (lossy key frame), VP8L (lossless) or VP8X (extended canvas).
    static func webp(_ bytes: some ImageBytes) throws(ImageError) -> ImageInfo {
        let chunk = String(decoding: try exactly(16, at: 0, of: bytes, .webp, reading: "first chunk header")[12..<16], as: UTF8.self)
        // The shortest lossless file is 26 bytes: RIFF header, chunk header, signature and size bits.
        let head = try exactly(chunk == "VP8L" ? 25 : 30, at: 0, of: bytes, .webp, reading: "first chunk header")
        switch chunk {
        case "VP8 ":
            guard head[20] & 0x01 == 0 else {
                throw .corrupt(.webp, detail: "the VP8 frame is not a key frame")
            }
            guard Array(head[23..<26]) == [0x9D, 0x01, 0x2A] else {
                throw .corrupt(.webp, detail: "the VP8 start code is missing")
            }
            let width = head.littleEndian(at: 26, size: 2) & 0x3FFF
            let height = head.littleEndian(at: 28, size: 2) & 0x3FFF
            return ImageInfo(format: .webp, width: width, height: height)
        case "VP8L":
            guard head[20] == 0x2F else {
                throw .corrupt(.webp, detail: "the VP8L signature byte is missing")
            }
            let bits = head.littleEndian(at: 21, size: 4)
            return ImageInfo(format: .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return ImageInfo(format: .webp, width: head.littleEndian(at: 24, size: 3) + 1, height: head.littleEndian(at: 27, size: 3) + 1)
        default:
            throw .corrupt(.webp, detail: "the first chunk is \"\(chunk)\", not VP8, VP8L or VP8X")
        }
    }
}
