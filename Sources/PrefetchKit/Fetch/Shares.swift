internal import CCurl
internal import CShims

/// Owns the share handles every transfer of the engine uses: TLS sessions for all, so a new
/// connection to a host resumes the session an earlier one made instead of a full handshake (libcurl
/// keeps them per easy handle otherwise, and a reused handle may go to another host); and, for the
/// requests with `cookies` on, the in-memory cookie jar beside them. libcurl matches a session to a
/// connection by host, port and TLS settings, so an `insecure_tls` set never resumes a verified
/// set's session or the reverse. Every network thread (`FetchLoop`) uses the same handles, so that a
/// session or a cookie one thread's transfer got serves the others' too: libcurl takes a mutex per
/// kind of data around each use.
final class Shares: @unchecked Sendable {  // libcurl locks the handles' data itself (pf_share_use_locks)
    /// TLS sessions.
    let sessions: UnsafeMutableRawPointer
    /// TLS sessions and cookies.
    let cookies: UnsafeMutableRawPointer

    init() throws(FetchError) {
        sessions = try Self.make([CURL_LOCK_DATA_SSL_SESSION])
        do {
            cookies = try Self.make([CURL_LOCK_DATA_SSL_SESSION, CURL_LOCK_DATA_COOKIE])
        } catch {
            curl_share_cleanup(sessions)
            throw error
        }
    }

    deinit {
        curl_share_cleanup(cookies)
        curl_share_cleanup(sessions)
    }

    private static func make(_ data: [curl_lock_data]) throws(FetchError) -> UnsafeMutableRawPointer {
        guard let handle = curl_share_init() else {
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_share_init returned no handle")
        }
        let locks = pf_share_use_locks(handle)
        guard locks == CURLSHE_OK else {
            curl_share_cleanup(handle)
            throw .curl(code: Int(locks.rawValue), message: "CURLSHOPT_LOCKFUNC: \(String(cString: curl_share_strerror(locks)))")
        }
        for kind in data {
            let code = pf_share_setopt_long(handle, CURLSHOPT_SHARE, Int(kind.rawValue))
            guard code == CURLSHE_OK else {
                curl_share_cleanup(handle)
                throw .curl(code: Int(code.rawValue), message: "CURLSHOPT_SHARE: \(String(cString: curl_share_strerror(code)))")
            }
        }
        return handle
    }
}
