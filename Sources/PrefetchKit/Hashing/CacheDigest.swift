internal import CCrypto
import Foundation

/// One-shot digests used for file names.
enum CacheDigest {
    static func sha256Hex(_ text: String) -> String { digestHex(text, sha256.pointer) }

    static func md5Hex(_ text: String) -> String { digestHex(text, md5.pointer) }

    /// The algorithms, fetched from libcrypto's provider once: `EVP_sha256()` hands `EVP_Digest` a
    /// legacy method it fetches again on every call, which cost more than the digest of a key (every
    /// URL of a run or a `verify` names its file by one). A fetched method is immutable and may be
    /// used from any thread; it lives as long as the process.
    private static let sha256 = Algorithm(name: "SHA256", fallback: EVP_sha256())
    private static let md5 = Algorithm(name: "MD5", fallback: EVP_md5())

    private struct Algorithm: @unchecked Sendable {  // an immutable libcrypto method, never freed
        let pointer: OpaquePointer?

        init(name: String, fallback: OpaquePointer?) {
            pointer = EVP_MD_fetch(nil, name, nil) ?? fallback
        }
    }

    /// The SHA-256 of `text` as 64 lowercase hex digits written into `out` (64 bytes), with no
    /// string made: for file names built in one buffer.
    static func writeSHA256Hex(of text: String, into out: UnsafeMutableBufferPointer<UInt8>) {
        var text = text
        text.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE)) { digest in
                var length: UInt32 = 0
                guard EVP_Digest(utf8.baseAddress, utf8.count, digest.baseAddress, &length, sha256.pointer, nil) == 1,
                      length == 32 else {
                    fatalError("libcrypto could not compute a digest")
                }
                for index in 0..<32 {
                    out[2 * index] = hexDigit(digest[index] >> 4)
                    out[2 * index + 1] = hexDigit(digest[index] & 0x0f)
                }
            }
        }
    }

    static func hex(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var index = 0
            for byte in bytes {
                out[index] = hexDigit(byte >> 4)
                out[index + 1] = hexDigit(byte & 0x0f)
                index += 2
            }
            return index
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    private static func digestHex(_ text: String, _ md: OpaquePointer?) -> String {
        var text = text
        return text.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE)) { digest in
                var length: UInt32 = 0
                guard EVP_Digest(utf8.baseAddress, utf8.count, digest.baseAddress, &length, md, nil) == 1 else {
                    fatalError("libcrypto could not compute a digest")
                }
                return hex(UnsafeBufferPointer(rebasing: digest[..<Int(length)]))
            }
        }
    }
}
