import Foundation

/// Small images built byte by byte, so every fixture is reproducible from this file.
enum ImageFixtures {
    /// A 48x32 RGB baseline JPEG (805 bytes) written by libjpeg-turbo 2.1.5, quality 75, from a
    /// synthetic pattern (r = 5x, g = 7y, b = 4(x^y)).
    static let baselineJPEG = decode("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wAARCAAgADADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDxSKzx2rQissdq1YrLHarEdnjtXPPE+y/rYywuMuUYrPHatCOzx2rVjssdqsRWeO1ejPE+y/rY9/C4y5SissdqvxWeO1asVnjtViKzx2r0J4n2X9bHv4XGXOdis8dq0IrLHatWKyx2qxHZ47V81PE+y/rY/E8LjLmHFZY7Vfis8dq1YrPHarMVljtXy08T7L+tj6jC4y4sVljtV+Kzx2rVis8dqsxWeO1fpU8T7L+tj1sLjLn/2Q==")

    /// The same picture as a progressive JPEG (jpeg_simple_progression: 10 scans, 655 bytes).
    static let progressiveJPEG = decode("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wgARCAAgADADASIAAhEBAxEB/8QAGAABAQADAAAAAAAAAAAAAAAABAMABQb/xAAYAQADAQEAAAAAAAAAAAAAAAAEBQYCA//aAAwDAQACEAMQAAAB4lC6c8QQqhDCN10IP1yFUWxIUKqqaYhVaUv/xAAWEAADAAAAAAAAAAAAAAAAAAAAAQL/2gAIAQEAAQUCUCgUCgUCgUCgUCgUCgUCgUCgUCgUCgUCgUCg/8QAFREBAQAAAAAAAAAAAAAAAAAAAwD/2gAIAQMBAT8BJomiaJomia//xAAXEQADAQAAAAAAAAAAAAAAAAAAAQMS/9oACAECAQE/AXTI6ZHTI6ZHTI6ZP//EABQQAQAAAAAAAAAAAAAAAAAAAED/2gAIAQEABj8CR//EABQQAQAAAAAAAAAAAAAAAAAAAED/2gAIAQEAAT8hQAAAAAAAB//aAAwDAQACAAMAAAAQxOTNrr//xAAVEQEBAAAAAAAAAAAAAAAAAAAAEf/aAAgBAwEBPxCiiiiij//EABYRAAMAAAAAAAAAAAAAAAAAAABB8P/aAAgBAgEBPxC6Loui6Louj//EABYQAAMAAAAAAAAAAAAAAAAAAAARQf/aAAgBAQABPxBUFwVBEFwVBcEQTBUFQVBUFwXBUFwVBcEQVBcFQVD/2Q==")

    static let html = Array("<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body>gone</body></html>\n".utf8)

    /// An 8-bit greyscale PNG whose IHDR declares the given size. With `pixels` false its IDAT
    /// holds a single filter byte, which is enough for anything rejected from the header.
    static func png(width: UInt32, height: UInt32, pixels: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 0, 0, 0, 0])
        var raw: [UInt8] = [0]
        if pixels {
            raw = []
            for y in 0..<Int(height) {
                raw.append(0)  // filter: none
                raw += (0..<Int(width)).map { x in UInt8(truncatingIfNeeded: x * 3 + y * 5) }
            }
        }
        bytes += chunk("IDAT", storedZlib(raw))
        bytes += chunk("IEND", [])
        return bytes
    }

    /// A 1-bit greyscale PNG of `width` x 1 (all black) with a tRNS chunk naming the grey sample
    /// `transparentGrey`, which for a 1-bit image may be 0 or 1 only.
    static func oneBitGreyPNG(width: UInt32, transparentGrey: UInt16) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", bigEndian(width) + bigEndian(UInt32(1)) + [1, 0, 0, 0, 0])
        bytes += chunk("tRNS", bigEndian(transparentGrey))
        bytes += chunk("IDAT", storedZlib([0] + [UInt8](repeating: 0, count: (Int(width) + 7) / 8)))
        bytes += chunk("IEND", [])
        return bytes
    }

    /// `png` with a chunk of `type` put after its IHDR; with `damagedCRC`, that chunk's CRC is wrong.
    static func inserting(_ type: String, _ data: [UInt8], damagedCRC: Bool = false, into png: [UInt8]) -> [UInt8] {
        var inserted = chunk(type, data)
        if damagedCRC { inserted[inserted.count - 1] ^= 0xFF }
        let afterIHDR = 8 + 25
        return Array(png[..<afterIHDR]) + inserted + Array(png[afterIHDR...])
    }

    /// A GIF89a with a two-colour table and one 1x1 image; the logical screen has the given size.
    static func gif(width: UInt16, height: UInt16) -> [UInt8] {
        Array("GIF89a".utf8) + littleEndian(width) + littleEndian(height) + [0x80, 0, 0]
            + [0, 0, 0, 0xFF, 0xFF, 0xFF]
            + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]
            + [0x02, 0x02, 0x44, 0x01, 0x00]
            + [0x3B]
    }

    /// A lossy WebP: RIFF, a VP8 key-frame header with 14-bit sizes, then filler.
    static func webpVP8(width: UInt16, height: UInt16) -> [UInt8] {
        riff(chunk: "VP8 ", [0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A] + littleEndian(width) + littleEndian(height) + [UInt8](repeating: 0, count: 8))
    }

    /// A lossless WebP: RIFF, VP8L signature, 14-bit width-1 and height-1 packed little-endian.
    static func webpVP8L(width: UInt32, height: UInt32) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14
        return riff(chunk: "VP8L", [0x2F] + littleEndian(bits) + [UInt8](repeating: 0, count: 8))
    }

    /// An extended WebP: RIFF, VP8X flags and 24-bit canvas width-1 and height-1.
    static func webpVP8X(width: UInt32, height: UInt32) -> [UInt8] {
        riff(chunk: "VP8X", [0, 0, 0, 0] + Array(littleEndian(width - 1).prefix(3)) + Array(littleEndian(height - 1).prefix(3)))
    }

    private static func riff(chunk fourCC: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array("WEBP".utf8) + Array(fourCC.utf8) + littleEndian(UInt32(payload.count)) + payload
        return Array("RIFF".utf8) + littleEndian(UInt32(body.count)) + body
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// zlib stream of stored (uncompressed) deflate blocks.
    private static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(data.count, start + 65_535)
            let length = UInt16(end - start)
            out.append(end == data.count ? 1 : 0)
            out += littleEndian(length) + littleEndian(~length) + data[start..<end]
            start = end
        } while start < data.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian, Array.init)
    }

    private static func decode(_ base64: String) -> [UInt8] {
        Array(Data(base64Encoded: base64)!)
    }
}
