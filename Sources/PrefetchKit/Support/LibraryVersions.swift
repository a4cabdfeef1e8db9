internal import CAVIF
internal import CBrotli
internal import CCrypto
internal import CCurl
internal import CGIF
internal import CIDN2
internal import CJXL
internal import CPNG
internal import CShims
internal import CSQLite
internal import CWebP
internal import CXXHash
internal import CYAML
internal import CZlib

/// The C libraries prefetchd runs on and their versions, for `prefetchd --version`: each asked of
/// the library loaded, at run time, except libjpeg-turbo and giflib, which have no such call and
/// give the version of their headers prefetchd was built with (marked "built with"). libavif, libjxl
/// and libvips, which prefetchd opens on first use rather than links, are opened to be asked (libvips
/// not started); one that cannot be opened is "not loadable", with the loader's reason.
package enum LibraryVersions {
    package struct Library: Sendable, Equatable {
        package let name: String
        package let version: String
        /// What else it says: libcurl's TLS library and HTTP/2 support, "built with" for a header's version.
        package let note: String?

        package var line: String {
            name + " " + version + (note.map { " (\($0))" } ?? "")
        }
    }

    package static var all: [Library] {
        [curl,
         Library(name: "SQLite", version: string(sqlite3_libversion()), note: nil),
         Library(name: "libpng", version: string(png_get_libpng_ver(nil)), note: nil),
         Library(name: "libjpeg-turbo", version: string(pf_jpeg_turbo_version()), note: "built with"),
         Library(name: "giflib", version: "\(GIFLIB_MAJOR).\(GIFLIB_MINOR).\(GIFLIB_RELEASE)", note: "built with"),
         Library(name: "libwebp", version: packed(UInt32(WebPGetDecoderVersion()), shift: 8, mask: 0xFF), note: nil),
         opened("libavif", pf_avif_library) { string($0.version()) },
         opened("libjxl", pf_jxl_library) { jxl($0.version()) },
         vips,
         Library(name: "libyaml", version: string(yaml_get_version_string()), note: nil),
         Library(name: "zlib", version: string(zlibVersion()), note: nil),
         Library(name: "brotli", version: packed(BrotliDecoderVersion(), shift: 12, mask: 0xFFF), note: nil),
         Library(name: "libcrypto", version: string(OpenSSL_version(0)), note: nil),
         Library(name: "libidn2", version: string(idn2_check_version(nil)), note: nil),
         Library(name: "xxHash", version: xxhash(XXH_versionNumber()), note: nil)]
    }

    /// libcurl with the TLS library it was built on, whether it speaks HTTP/2, and nghttp2's version.
    static var curl: Library {
        let info = pf_curl_version_info().pointee
        let http2 = Int(info.features) & Int(CURL_VERSION_HTTP2) != 0
        var notes = [info.ssl_version.map { String(cString: $0) } ?? "no TLS", "HTTP/2 " + (http2 ? "yes" : "no")]
        if let nghttp2 = info.nghttp2_version { notes.append("nghttp2 " + String(cString: nghttp2)) }
        return Library(name: "libcurl", version: string(info.version), note: notes.joined(separator: ", "))
    }

    static var vips: Library {
        var reason = [CChar](repeating: 0, count: 384)
        guard let version = shim_vips_version(&reason, reason.count) else {
            return Library(name: "libvips", version: "not loadable", note: String(cBuffer: reason))
        }
        return Library(name: "libvips", version: String(cString: version), note: nil)
    }

    /// A library prefetchd opens on first use, opened to be asked its version; "not loadable" with the
    /// loader's reason when it cannot be.
    private static func opened<Table>(
        _ name: String, _ open: (UnsafeMutablePointer<CChar>, Int) -> UnsafePointer<Table>?, version: (Table) -> String
    ) -> Library {
        do {
            return Library(name: name, version: version(try OpenedLibrary.table(open)), note: nil)
        } catch {
            return Library(name: name, version: "not loadable", note: error.reason)
        }
    }

    private static func string(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) } ?? "unknown"
    }

    /// A version packed as three fields of `shift` bits (`MAJOR << 2 shift | MINOR << shift | PATCH`).
    private static func packed(_ value: UInt32, shift: UInt32, mask: UInt32) -> String {
        "\(value >> (2 * shift)).\((value >> shift) & mask).\(value & mask)"
    }

    /// `MAJOR * 1000000 + MINOR * 1000 + PATCH`.
    private static func jxl(_ value: UInt32) -> String {
        "\(value / 1_000_000).\(value / 1000 % 1000).\(value % 1000)"
    }

    /// `MAJOR * 10000 + MINOR * 100 + RELEASE`.
    private static func xxhash(_ value: UInt32) -> String {
        "\(value / 10000).\(value / 100 % 100).\(value % 100)"
    }
}
