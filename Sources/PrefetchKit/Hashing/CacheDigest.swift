internal import CCrypto
import Foundation

/// One-shot digests used for file names.
enum CacheDigest {
    static func sha256Hex(_ text: String) -> String { digestHex(text, EVP_sha256()) }

    static func md5Hex(_ text: String) -> String { digestHex(text, EVP_md5()) }

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
