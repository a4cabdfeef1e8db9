import Foundation
import FuzzSupport
import PrefetchKit

/// The response-header values prefetchd itself interprets, each fed the input as one header value:
///
/// - `Retry-After` (`RetryPolicy.delay` and the retry decision it feeds): delta-seconds of any
///   length or an HTTP-date (libcurl's `curl_getdate`), never a negative wait, never past the cap.
/// - Host names as `allow_hosts` / `deny_hosts` compare them (`NetworkPolicy.refusal`, through
///   `HostName`: trailing dots, case, IDN by libidn2), and the connected address's private check.
/// - `Content-MD5`, `Digest` and `Repr-Digest` (`ServerDigest.choose`): a digest chosen always has
///   its algorithm's length; `Content-Encoding` (`ContentDecoder.make`), and the input as a body in
///   each coding, decoded with its output capped.
///
/// `ETag` and `Last-Modified` are not parsed: prefetchd keeps them as libcurl gives them and sends
/// them back verbatim in `If-None-Match` / `If-Modified-Since`, so there is nothing of its own to fuzz.
enum HTTPHeadersTarget {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let policy = RetryPolicy()

    static func run(_ bytes: [UInt8]) {
        let value = String(decoding: bytes, as: UTF8.self)
        retryAfter(value)
        host(value)
        digests(value)
        codings(value, bytes)
    }

    static func digests(_ value: String) {
        for choice in [ServerDigest.choose(contentMD5: [value], digest: [], reprDigest: []),
                       ServerDigest.choose(contentMD5: [], digest: [value, value], reprDigest: []),
                       ServerDigest.choose(contentMD5: [], digest: [], reprDigest: [value])] {
            if let expected = choice.expected {
                fuzzCheck(expected.bytes.count == expected.algorithm.length,
                          "\(value.debugDescription) gave \(expected.algorithm) of \(expected.bytes.count) bytes")
            }
        }
    }

    /// The value as a `Content-Encoding`, and the bytes as a body in each known coding: decoded whole
    /// and one byte at a time, both must succeed or fail, with the same output when they succeed;
    /// output stops at 1 MiB.
    static func codings(_ value: String, _ bytes: [UInt8]) {
        do throws(FetchError) {
            _ = try ContentDecoder.make(contentEncoding: [value])
        } catch {
            fuzzCheck(error.reason == "unsupported_encoding", "Content-Encoding \(value.debugDescription): \(error)")
        }
        for coding in ["gzip", "deflate", "br", "gzip, br"] {
            let whole = decoded(bytes, coding, piece: bytes.count)
            let single = decoded(bytes, coding, piece: 1)
            // Where a corrupt stream stops may differ by how its bytes came; a sound one may not.
            fuzzCheck((whole.failure == nil) == (single.failure == nil), "\(coding): \(whole.failure, default: "decoded") "
                      + "whole, \(single.failure, default: "decoded") byte by byte")
            if whole.failure == nil {
                fuzzCheck(whole.output == single.output,
                          "\(coding) decoded \(whole.output.count) bytes whole, \(single.output.count) byte by byte")
            }
        }
    }

    static func decoded(_ bytes: [UInt8], _ coding: String, piece: Int) -> (output: [UInt8], failure: FetchError?) {
        guard let decoder = try? ContentDecoder.make(contentEncoding: [coding]) else { return ([], nil) }
        var output: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: max(piece, 1)) {
            let failure = bytes[start..<min(start + max(piece, 1), bytes.count)].withUnsafeBytes { input in
                decoder.decode(input) { decodedPiece in
                    output += decodedPiece
                    return output.count > 1 << 20 ? .tooLarge(limit: 1 << 20) : nil
                }
            }
            if let failure { return (Array(output.prefix(1 << 20)), failure) }
        }
        return (output, decoder.finish())
    }

    static func retryAfter(_ value: String) {
        let delay = RetryPolicy.delay(retryAfter: value, now: now)
        if let delay {
            fuzzCheck(delay >= .zero, "Retry-After \(value.debugDescription) waits \(delay)")
        }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
            fuzzCheck(delay != nil, "Retry-After delta-seconds \(value.debugDescription) is ignored")
        }
        switch policy.decision(after: .http(status: 503), attempt: 1, retryAfter: value, now: now, randomUnit: 0.5) {
        case .retry(let wait):
            fuzzCheck(wait >= .zero && wait <= max(policy.maxRetryAfter, policy.maxDelay),
                      "Retry-After \(value.debugDescription) waits \(wait)")
            if let delay {
                fuzzCheck(wait == min(delay, policy.maxRetryAfter), "Retry-After \(value.debugDescription): \(wait), not \(delay)")
            }
        case .giveUp:
            fuzzCheck(false, "a 503 on the first attempt gave up")
        }
    }

    static func host(_ value: String) {
        let publicAddress = "93.184.215.14"
        let open = NetworkPolicy(allowPrivate: true)
        fuzzCheck(open.refusal(host: value, address: publicAddress) == nil, "no rules refused \(value.debugDescription)")
        _ = NetworkPolicy(allowPrivate: false).refusal(host: "h", address: value)

        let denied = NetworkPolicy(denyHosts: [value])
        let allowed = NetworkPolicy(allowHosts: [value])
        let refusedAsWritten = denied.refusal(host: value, address: publicAddress)
        // A host is always caught by a deny rule of its own spelling, and with trailing dots or in
        // capitals too (an unmappable name is refused for being one).
        guard !value.hasPrefix("*.") else { return }
        fuzzCheck(refusedAsWritten != nil, "deny_hosts [\(value.debugDescription)] let the same host through")
        for spelling in [value + ".", value + "..", asciiUppercased(value)] {
            fuzzCheck(denied.refusal(host: spelling, address: publicAddress) != nil,
                      "deny_hosts [\(value.debugDescription)] let \(spelling.debugDescription) through")
        }
        let allowedAsWritten = allowed.refusal(host: value, address: publicAddress)
        let unmappable = NetworkPolicy(denyHosts: ["unused.invalid"]).refusal(host: value, address: publicAddress) != nil
        fuzzCheck((allowedAsWritten == nil) != unmappable,
                  "allow_hosts [\(value.debugDescription)]: \(allowedAsWritten ?? "allowed"), unmappable \(unmappable)")
        // Below a wildcard: any label in front of the name, unless the name is empty once normalized
        // (`.`, `。`): `*.` of nothing names no host.
        let empty = denied.refusal(host: "", address: publicAddress) != nil
        if !unmappable, !empty {
            let wildcard = NetworkPolicy(denyHosts: ["*." + value])
            fuzzCheck(wildcard.refusal(host: "a." + value, address: publicAddress) != nil,
                      "deny_hosts [*.\(value.debugDescription)] let a.\(value.debugDescription) through")
        }
    }

    static func asciiUppercased(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { ("a"..."z").contains($0) ? Unicode.Scalar($0.value - 32)! : $0 }))
    }
}

extension NetworkPolicy {
    /// The policy with these rules; its memberwise initializer is the module's own, so this starts
    /// from the one a new request carries (no rules).
    init(allowPrivate: Bool = true, allowHosts: [String] = [], denyHosts: [String] = []) {
        self = FetchRequest(url: "http://example.com/", destination: "unused").network
        self.allowPrivate = allowPrivate
        self.allowHosts = allowHosts
        self.denyHosts = denyHosts
    }
}

/// libFuzzer's entry point: one input, always 0 (a finding is a crash or a failed `fuzzCheck`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTPHeadersTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@main
struct HTTPHeadersFuzzer {
    static func main() {
        #if FUZZING
        FuzzMain.libFuzzer(fuzz)
        #else
        FuzzMain.replay(HTTPHeadersTarget.run)
        #endif
    }
}
