internal import CCurl
internal import CShims

/// Owns one libcurl easy handle and its error buffer. Used only on the engine's network thread;
/// reset and reused between transfers so its connections stay in the multi handle's pool.
final class Easy {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init() throws(FetchError) {
        guard let handle = curl_easy_init() else {
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init returned no handle")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Back to the defaults, keeping connections, then the error buffer attached again.
    func reset() throws(FetchError) {
        // libcurl 7.88.1 loses the list of cookie files (CURLOPT_COOKIEFILE "") on a reset, 17 bytes each
        // time (curl PR #10709, fixed in 8.0.0); a NULL file frees it first. The cookies themselves stay
        // in the share.
        _ = pf_easy_setopt_ptr(handle, CURLOPT_COOKIEFILE, nil)
        curl_easy_reset(handle)
        errorBuffer[0] = 0
        try check(pf_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
    }

    func set(_ option: CURLoption, _ value: Int, _ name: String) throws(FetchError) {
        try check(pf_easy_setopt_long(handle, option, value), name)
    }

    func set(_ option: CURLoption, offset value: Int64, _ name: String) throws(FetchError) {
        try check(pf_easy_setopt_off(handle, option, curl_off_t(value)), name)
    }

    /// libcurl copies string options, so the C string only has to live for the call.
    func set(_ option: CURLoption, _ value: String, _ name: String) throws(FetchError) {
        let code = value.withCString { pf_easy_setopt_ptr(handle, option, $0) }
        try check(code, name)
    }

    /// For pointers libcurl keeps: the caller keeps them alive until the transfer is removed.
    func set(_ option: CURLoption, pointer: UnsafeRawPointer?, _ name: String) throws(FetchError) {
        try check(pf_easy_setopt_ptr(handle, option, pointer), name)
    }

    func set(_ option: CURLoption, callback: curl_write_callback, _ name: String) throws(FetchError) {
        try check(pf_easy_setopt_write(handle, option, callback), name)
    }

    func set(prerequest callback: curl_prereq_callback) throws(FetchError) {
        try check(pf_easy_setopt_prereq(handle, callback), "CURLOPT_PREREQFUNCTION")
    }

    func set(progress callback: curl_xferinfo_callback) throws(FetchError) {
        try check(pf_easy_setopt_xferinfo(handle, callback), "CURLOPT_XFERINFOFUNCTION")
    }

    /// The receive buffer size. libcurl 7.88 refuses a new size once the handle has allocated its
    /// buffer (a reused handle keeps the buffer across `curl_easy_reset`), so only that refusal is
    /// accepted: the handle then goes on with the buffer it has.
    func setBufferSize(_ bytes: Int) throws(FetchError) {
        let code = pf_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, bytes)
        guard code != CURLE_BAD_FUNCTION_ARGUMENT else { return }
        try check(code, "CURLOPT_BUFFERSIZE")
    }

    /// Lets a transfer paused by its write callback (`CURL_WRITEFUNC_PAUSE`) go on; libcurl may hand
    /// over the bytes it kept before this returns.
    func resume() {
        _ = curl_easy_pause(handle, 0)
    }

    func long(_ info: CURLINFO) -> Int {
        var value = 0
        return pf_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }

    /// A size the transfer reports (`CURLINFO_CONTENT_LENGTH_DOWNLOAD_T`: -1 when the response
    /// declared none).
    func size(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = -1
        return pf_easy_getinfo_off(handle, info, &value) == CURLE_OK ? Int64(value) : -1
    }

    func duration(_ info: CURLINFO) -> Duration {
        var microseconds: curl_off_t = 0
        return pf_easy_getinfo_off(handle, info, &microseconds) == CURLE_OK ? .microseconds(microseconds) : .zero
    }

    func string(_ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard pf_easy_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The last value of a header of the latest response (after redirects), if it was sent.
    func header(_ name: StaticString) -> String? {
        let name = cName(name)
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
              let amount = found?.pointee.amount
        else { return nil }
        if amount > 1, curl_easy_header(handle, name, amount - 1, UInt32(CURLH_HEADER), -1, &found) != CURLHE_OK {
            return nil
        }
        return found.map(Self.value(of:))
    }

    /// A header's value as libcurl stores it, less the carriage return libcurl 7.88 leaves in an
    /// empty one (`Content-Encoding: ` would read as a coding named "\r").
    private static func value(of header: UnsafeMutablePointer<curl_header>) -> String {
        var value = String(cString: header.pointee.value)
        while value.hasSuffix("\r") || value.hasSuffix("\n") { value.removeLast() }
        return value
    }

    /// Every value of a header of the latest response, in the order its lines came.
    func headerValues(_ name: StaticString) -> [String] {
        let name = cName(name)
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
              let amount = found?.pointee.amount
        else { return [] }
        return (0..<amount).compactMap { index in
            guard index == 0 || curl_easy_header(handle, name, index, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK else {
                return nil
            }
            return found.map(Self.value(of:))
        }
    }

    /// A header name as libcurl takes it, straight from the literal's bytes: a `String` would be
    /// copied into a new C string at every call (about eight a response).
    private func cName(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// libcurl's own message for a failed transfer: the error buffer, else the code's description.
    func message(for code: CURLcode) -> String {
        if errorBuffer[0] != 0 {
            return String(cString: errorBuffer)
        }
        return String(cString: curl_easy_strerror(code))
    }

    private func check(_ code: CURLcode, _ name: String) throws(FetchError) {
        guard code == CURLE_OK else {
            throw .curl(code: Int(code.rawValue), message: "setting \(name): \(String(cString: curl_easy_strerror(code)))")
        }
    }
}

@available(*, unavailable) extension Easy: Sendable {}
