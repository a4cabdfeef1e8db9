import Foundation
internal import Glibc

/// Where a body cut part way stands, for the attempt that asks for the rest with `Range` and
/// `If-Range`: its first `offset` bytes are in the destination, and the stored body's hashes (and the
/// digest the response that began it gave, if any) have taken exactly those bytes, so the finished
/// body is checked whole without being read again.
///
/// Resuming is sound only for a body sent as it is (no content coding): a coding's decoder state
/// cannot be carried over, and the bytes stored are then not the bytes sent. A cut encoded body
/// starts again from byte 0.
///
/// Used by one thread at a time, which is what makes `@unchecked Sendable` true: the network thread
/// while an attempt runs and between attempts (the retry waits in the loop's own list), or the
/// scheduling thread that builds one from a partial kept by an earlier run, before it submits the request.
package final class ResumePoint: @unchecked Sendable {
    /// Bytes of the body already in the destination, from its first.
    package let offset: Int64
    /// What `If-Range` carries: the strong ETag of the response that began the body, else its
    /// Last-Modified.
    package let validator: Validator
    let hashes: StoredBodyHashes
    /// The digest header of the response that began the body, fed every byte so far.
    let serverDigest: DigestCheck?
    let digestWarnings: [String]
    /// The body's first bytes, as `BodySink` keeps them for the header check.
    let head: [UInt8]
    /// The whole body's length as the response that began it declared it; a 206 for the rest must
    /// give the same in its `Content-Range`. Nil when unknown (a partial an earlier run kept).
    let total: Int64?

    /// The validator a resumed request sends in `If-Range`, and that its 206 must still carry.
    package enum Validator: Sendable, Equatable {
        case etag(String)
        case lastModified(String)

        package var headerValue: String {
            switch self {
            case .etag(let value), .lastModified(let value): value
            }
        }

        /// A strong ETag, else Last-Modified; nil when the response has neither (a weak ETag cannot be
        /// used in `If-Range`).
        package static func of(etag: String?, lastModified: String?) -> Validator? {
            if let etag, etag.hasPrefix("\""), etag.count >= 2 { return .etag(etag) }
            return lastModified.map(Validator.lastModified)
        }

        /// Whether a 206's headers still name the body this validator names.
        func matches(etag: String?, lastModified: String?) -> Bool {
            switch self {
            case .etag(let value): etag == value
            case .lastModified(let value): lastModified == nil || lastModified == value
            }
        }
    }

    init(offset: Int64, validator: Validator, hashes: StoredBodyHashes, serverDigest: DigestCheck?,
         digestWarnings: [String], head: [UInt8], total: Int64? = nil) {
        self.offset = offset
        self.total = total
        self.validator = validator
        self.hashes = hashes
        self.serverDigest = serverDigest
        self.digestWarnings = digestWarnings
        self.head = head
    }

    /// A resume point for the body whose first `size` bytes are in the open file `descriptor` (a
    /// partial an earlier run kept), for `request`: the prefix is read once and fed to the hashes the
    /// request asks for. The digest header of the response that began it is not known any more, so
    /// none is checked. Nil when the file holds fewer bytes than that.
    package static func reading(_ descriptor: Int32, size: Int64, validator: Validator,
                                for request: FetchRequest) -> ResumePoint? {
        let hashes = StoredBodyHashes(checksum: request.computesChecksum, expected: request.expectedDigest)
        var head: [UInt8] = []
        var offset: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while offset < size {
            let wanted = Int(min(Int64(buffer.count), size - offset))
            let count = pread(descriptor, buffer.baseAddress!, wanted, off_t(offset))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            hashes.update(bytes)
            let kept = request.keptHeadBytes - head.count
            if kept > 0 { head.append(contentsOf: bytes.prefix(kept)) }
            offset += Int64(count)
        }
        return ResumePoint(offset: size, validator: validator, hashes: hashes, serverDigest: nil,
                           digestWarnings: [], head: head)
    }
}

/// The first and last byte of a resumed range and the whole length, from a
/// `Content-Range: bytes START-END/TOTAL` value (the length nil when it is `*`); nil when the value is
/// not one, or its range is backwards or ends past the whole length (RFC 9110 §14.4).
func contentRange(_ value: String?) -> (start: Int64, end: Int64, total: Int64?)? {
    guard let value else { return nil }
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
    let parts = trimmed.dropFirst(6).split(separator: "/", maxSplits: 1)
    let bounds = parts.first?.split(separator: "-", maxSplits: 1).map { Int64($0.trimmingCharacters(in: .whitespaces)) }
    guard let bounds, bounds.count == 2, let start = bounds[0], let end = bounds[1], start <= end else { return nil }
    let total = parts.count == 2 ? Int64(parts[1].trimmingCharacters(in: .whitespaces)) : nil
    if let total, end >= total { return nil }
    return (start, end, total)
}
