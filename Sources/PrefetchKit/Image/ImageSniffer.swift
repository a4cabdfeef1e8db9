/// What the first bytes of a body say it is.
package enum SniffResult: Sendable, Equatable {
    /// A format prefetchd handles.
    case image(ImageFormat)
    /// A recognisable image format prefetchd does not handle, by its usual name ("BMP", "TIFF", ...).
    case unsupported(String)
    /// No image signature: HTML, text, an ICC profile, random bytes.
    case notImage
}

/// Recognises image formats by their magic bytes only; file extensions and Content-Type are never
/// consulted, since servers lie about both.
package enum ImageSniffer {
    /// How many leading bytes `sniff` looks at; pass at least this many when the body is longer.
    package static let prefixLength = 64

    package static func sniff(_ prefix: some Collection<UInt8>) -> SniffResult {
        let bytes = Array(prefix.prefix(prefixLength))
        if let format = handledFormat(bytes) {
            return .image(format)
        }
        if let kind = unsupportedKind(bytes) {
            return .unsupported(kind)
        }
        return .notImage
    }

    /// The format prefetchd handles that the first bytes name; nil for anything else.
    package static func format(of prefix: some Collection<UInt8>) -> ImageFormat? {
        handledFormat(Array(prefix.prefix(prefixLength)))
    }

    private static func handledFormat(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            return .jpeg
        }
        // Only the first four signature bytes: a signature damaged further on (by a text-mode
        // transfer) is a corrupt PNG, which the header check reports.
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            return .png
        }
        if bytes.starts(with: ascii("GIF87a")) || bytes.starts(with: ascii("GIF89a")) {
            return .gif
        }
        if bytes.count >= 12, bytes.starts(with: ascii("RIFF")), Array(bytes[8..<12]) == ascii("WEBP") {
            return .webp
        }
        if bytes.starts(with: [0xFF, 0x0A]) || bytes.starts(with: jxlContainer) {
            return .jxl
        }
        if ftypBrands(bytes).contains(where: { $0 == "avif" || $0 == "avis" }) {
            return .avif
        }
        return nil
    }

    private static func unsupportedKind(_ bytes: [UInt8]) -> String? {
        for (kind, signature) in signatures where bytes.starts(with: signature) {
            return kind
        }
        if bytes.count >= 14, bytes.starts(with: ascii("BM")), bytes[6..<10].allSatisfy({ $0 == 0 }) {
            return "BMP"
        }
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]),
           [0x20, 0x09, 0x0A, 0x0D].contains(bytes[2]) {
            return "Netpbm"
        }
        // ICONDIR: reserved 0, type 1 (icon) or 2 (cursor), at least one entry whose reserved byte is 0.
        if bytes.count >= 10, bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 || bytes[2] == 2, bytes[3] == 0,
           bytes[4] | bytes[5] != 0, bytes[9] == 0 {
            return "ICO"
        }
        if let major = ftypBrands(bytes).first {
            return isobmffKinds[major]
        }
        let text = bytes.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if text.starts(with: ascii("<svg")) {
            return "SVG"
        }
        return nil
    }

    private static let signatures: [(String, [UInt8])] = [
        ("TIFF", [0x49, 0x49, 0x2A, 0x00]),
        ("TIFF", [0x4D, 0x4D, 0x00, 0x2A]),
        ("BigTIFF", [0x49, 0x49, 0x2B, 0x00]),
        ("BigTIFF", [0x4D, 0x4D, 0x00, 0x2B]),
        ("JPEG 2000", [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]),
        ("JPEG 2000", [0xFF, 0x4F, 0xFF, 0x51]),
        ("JNG", [0x8B, 0x4A, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
        ("MNG", [0x8A, 0x4D, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
        ("PSD", ascii("8BPS")),
        ("QOI", ascii("qoif")),
        ("OpenEXR", [0x76, 0x2F, 0x31, 0x01]),
        ("DDS", ascii("DDS ")),
    ]

    /// The JPEG XL container's signature box.
    private static let jxlContainer: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// An ISO base media file's `ftyp` brands, major first, then the compatible ones that fit in
    /// `bytes`: an AVIF is known by `avif` or `avis` among them (a HEIF may name `mif1` first).
    private static func ftypBrands(_ bytes: [UInt8]) -> [String] {
        guard bytes.count >= 12, Array(bytes[4..<8]) == ascii("ftyp") else { return [] }
        let size = min(bytes.count, bytes.bigEndian(at: 0, size: 4))
        let brandOffsets = [8] + Array(stride(from: 16, to: size - 3, by: 4))
        return brandOffsets.map { String(decoding: bytes[$0..<$0 + 4], as: UTF8.self) }
    }

    /// ISO base media brands that mean a still image.
    private static let isobmffKinds: [String: String] = [
        "heic": "HEIF", "heix": "HEIF", "hevc": "HEIF", "hevx": "HEIF",
        "heim": "HEIF", "heis": "HEIF", "mif1": "HEIF", "msf1": "HEIF",
        "crx ": "CR3",
    ]

    private static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
}
