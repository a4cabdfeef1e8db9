internal import CCurl
internal import CShims

/// Owns a share handle holding the in-memory cookie jar of every request with `cookies` on.
/// Used only on the network thread, so it needs no lock callbacks.
final class CookieShare {
    let handle: UnsafeMutableRawPointer

    init() throws(FetchError) {
        guard let handle = curl_share_init() else {
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_share_init returned no handle")
        }
        self.handle = handle
        let code = pf_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        guard code == CURLSHE_OK else {
            throw .curl(code: Int(code.rawValue), message: "CURLSHOPT_SHARE: \(String(cString: curl_share_strerror(code)))")
        }
    }

    deinit {
        curl_share_cleanup(handle)
    }
}

@available(*, unavailable) extension CookieShare: Sendable {}
