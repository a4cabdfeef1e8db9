/// Checks and repairs of an AVIF's boxes around libavif 0.11 (Debian 12's), which is more lenient
/// in one place and stricter in two than the format and newer libavif:
/// - a transformative property (`clap`, `irot`, `imir`) must be marked essential (ISO/IEC 23008-12);
///   0.11 decodes such a file anyway, so it is refused here as `corrupt`;
/// - a last top-level box of size 0 runs to the end of the file (ISO/IEC 14496-12), which 0.11
///   refuses: the size is written out in a copy;
/// - a sequence may carry an audio track beside its image tracks, which 0.11 refuses: the track is
///   renamed `free` in a copy, so the parser skips it.
enum AVIFContainer {
    static func normalized<R>(
        _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(ImageError) -> R
    ) throws(ImageError) -> R {
        let top = BMFFBox.children(of: bytes, in: 0..<bytes.count)
        if let meta = top.first(where: { $0.type == "meta" }) {
            try checkEssential(bytes, meta: meta)
        }
        var patches: [(offset: Int, bytes: [UInt8])] = []
        if let last = top.last, last.sizeField == 0, let size = UInt32(exactly: last.end - last.start) {
            patches.append((last.start, withUnsafeBytes(of: size.bigEndian, Array.init)))
        }
        if let moov = top.first(where: { $0.type == "moov" }) {
            for track in audioTracks(bytes, moov: moov) {
                patches.append((track.start + 4, Array("free".utf8)))
            }
        }
        guard !patches.isEmpty else { return try body(bytes) }
        var copy = Array(bytes)
        for patch in patches {
            copy.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes)
        }
        return try copy.withImageBytes(body)
    }

    private static let transformative: Set<String> = ["clap", "irot", "imir"]

    /// Walks `meta/iprp/ipma`: every association of an item with a transformative property in
    /// `ipco` must have its essential bit set.
    private static func checkEssential(_ bytes: UnsafeRawBufferPointer, meta: BMFFBox) throws(ImageError) {
        // meta is a FullBox: version and flags come before its children.
        let children = BMFFBox.children(of: bytes, in: meta.payload.lowerBound + 4..<meta.end)
        guard let iprp = children.first(where: { $0.type == "iprp" }) else { return }
        let boxes = BMFFBox.children(of: bytes, in: iprp.payload)
        guard let ipco = boxes.first(where: { $0.type == "ipco" }) else { return }
        let properties = BMFFBox.children(of: bytes, in: ipco.payload).map(\.type)
        for ipma in boxes where ipma.type == "ipma" {
            for (item, index, essential) in associations(bytes, ipma) where !essential {
                guard index >= 1, index <= properties.count, transformative.contains(properties[index - 1]) else { continue }
                throw .corrupt(.avif, detail: "the transformative property '\(properties[index - 1])' of item \(item) is not marked essential")
            }
        }
    }

    /// (item ID, 1-based property index, essential) for each association in an `ipma` box.
    private static func associations(_ bytes: UnsafeRawBufferPointer, _ ipma: BMFFBox) -> [(Int, Int, Bool)] {
        var reader = BoxReader(bytes: bytes, offset: ipma.payload.lowerBound, end: ipma.end)
        guard let version = reader.byte(), let flags = reader.uint(3), let count = reader.uint(4) else { return [] }
        var found: [(Int, Int, Bool)] = []
        for _ in 0..<min(count, ipma.end) {
            guard let item = reader.uint(version < 1 ? 2 : 4), let associations = reader.byte() else { break }
            for _ in 0..<associations {
                guard let value = reader.uint(flags & 1 == 1 ? 2 : 1) else { return found }
                let bits = flags & 1 == 1 ? 15 : 7
                found.append((item, value & (1 << bits - 1), value >> bits == 1))
            }
        }
        return found
    }

    /// `moov/trak` boxes whose `mdia/hdlr` handler is `soun`.
    private static func audioTracks(_ bytes: UnsafeRawBufferPointer, moov: BMFFBox) -> [BMFFBox] {
        BMFFBox.children(of: bytes, in: moov.payload).filter { track in
            guard track.type == "trak",
                  let mdia = BMFFBox.children(of: bytes, in: track.payload).first(where: { $0.type == "mdia" }),
                  let hdlr = BMFFBox.children(of: bytes, in: mdia.payload).first(where: { $0.type == "hdlr" }),
                  hdlr.payload.count >= 12 else { return false }
            // hdlr: version and flags (4), pre_defined (4), handler_type (4).
            let handler = hdlr.payload.lowerBound + 8
            return String(decoding: bytes[handler..<handler + 4], as: UTF8.self) == "soun"
        }
    }
}

/// Big-endian fields read one after another, nil past `end`.
private struct BoxReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    let end: Int

    mutating func byte() -> Int? { uint(1) }

    mutating func uint(_ length: Int) -> Int? {
        guard offset + length <= end else { return nil }
        defer { offset += length }
        return bytes[offset..<offset + length].reduce(0) { $0 << 8 | Int($1) }
    }
}
