internal import CCurl

extension Attempt {
    /// Sets every option of the request on a freshly reset easy handle; returns the header list,
    /// which must outlive the transfer.
    func configure(_ easy: Easy, shares: Shares) throws(FetchError) -> UnsafeMutablePointer<curl_slist>? {
        let request = job.request
        try easy.reset()
        let context = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        try easy.set(CURLOPT_URL, request.url, "CURLOPT_URL")
        try easy.set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https", "CURLOPT_PROTOCOLS_STR")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "CURLOPT_REDIR_PROTOCOLS_STR")
        try easy.set(CURLOPT_FOLLOWLOCATION, 1, "CURLOPT_FOLLOWLOCATION")
        try easy.set(CURLOPT_MAXREDIRS, 5, "CURLOPT_MAXREDIRS")
        // HTTP/2 only when TLS negotiates it; never cleartext h2c.
        try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS), "CURLOPT_HTTP_VERSION")
        // Over TLS, a transfer to a host whose connection is still being set up waits to learn whether
        // it speaks HTTP/2 and then multiplexes on it, instead of opening a connection of its own (16
        // transfers in flight made 16 TLS connections where curl --parallel makes one). Over plain
        // http there is no HTTP/2 here, so nothing to wait for.
        if request.url.utf8.prefix(6).map({ $0 | 0x20 }).elementsEqual("https:".utf8) {
            try easy.set(CURLOPT_PIPEWAIT, 1, "CURLOPT_PIPEWAIT")
        }
        // `Accept-Encoding: identity` goes out with the other headers (`FetchRequest.defaultHeaders`), and
        // libcurl never decodes: its write callback would see only decoded bytes, and a digest header
        // covers the bytes as sent. A body in a content coding anyway is decoded by `ContentDecoder`.
        try easy.set(CURLOPT_HTTP_CONTENT_DECODING, 0, "CURLOPT_HTTP_CONTENT_DECODING")

        let total = max(request.timeout, .milliseconds(1))
        try easy.set(CURLOPT_TIMEOUT_MS, milliseconds(total), "CURLOPT_TIMEOUT_MS")
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(min(total, .seconds(10))), "CURLOPT_CONNECTTIMEOUT_MS")
        if !request.stall.isOff {
            // The stall limit is judged in the progress callback (`StallWatch`). libcurl's own check,
            // set to the same figures, fires six to seven seconds later than it (its speed is an average
            // over the last five seconds), so it only keeps the callback coming about once a second while
            // nothing arrives.
            try easy.set(CURLOPT_NOPROGRESS, 0, "CURLOPT_NOPROGRESS")
            try easy.set(progress: attemptProgressCallback)
            try easy.set(CURLOPT_XFERINFODATA, pointer: context, "CURLOPT_XFERINFODATA")
            try easy.set(CURLOPT_LOW_SPEED_LIMIT, Int(clamping: request.stall.bytesPerSecond), "CURLOPT_LOW_SPEED_LIMIT")
            try easy.set(CURLOPT_LOW_SPEED_TIME, max(Int((request.stall.time / .seconds(1)).rounded(.up)), 1), "CURLOPT_LOW_SPEED_TIME")
        }
        // A declared length over `maxBytes` is refused before any byte; the bytes received and, for an
        // encoded body, the decoded bytes are held to it as they come (`Attempt.receive`, `BodySink`).
        try easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: request.maxBytes, "CURLOPT_MAXFILESIZE_LARGE")
        // The curl tool's receive buffer, not the library's 16 KiB: fewer write callbacks and
        // write(2) calls per body.
        try easy.setBufferSize(102_400)

        try easy.set(CURLOPT_WRITEFUNCTION, callback: attemptWriteCallback, "CURLOPT_WRITEFUNCTION")
        try easy.set(CURLOPT_WRITEDATA, pointer: context, "CURLOPT_WRITEDATA")
        try easy.set(CURLOPT_HEADERFUNCTION, callback: attemptHeaderCallback, "CURLOPT_HEADERFUNCTION")
        try easy.set(CURLOPT_HEADERDATA, pointer: context, "CURLOPT_HEADERDATA")

        if request.network.restricts {
            try easy.set(prerequest: attemptPrerequestCallback)
            try easy.set(CURLOPT_PREREQDATA, pointer: context, "CURLOPT_PREREQDATA")
        }
        if let credentials = request.credentials {
            try easy.set(CURLOPT_USERNAME, credentials.username, "CURLOPT_USERNAME")
            try easy.set(CURLOPT_PASSWORD, credentials.password, "CURLOPT_PASSWORD")
            try easy.set(CURLOPT_HTTPAUTH, curlAuthBasic, "CURLOPT_HTTPAUTH")
        }
        if request.insecureTLS {
            try easy.set(CURLOPT_SSL_VERIFYPEER, 0, "CURLOPT_SSL_VERIFYPEER")
            try easy.set(CURLOPT_SSL_VERIFYHOST, 0, "CURLOPT_SSL_VERIFYHOST")
            try easy.set(CURLOPT_PROXY_SSL_VERIFYPEER, 0, "CURLOPT_PROXY_SSL_VERIFYPEER")
            try easy.set(CURLOPT_PROXY_SSL_VERIFYHOST, 0, "CURLOPT_PROXY_SSL_VERIFYHOST")
        }
        try configureRoute(easy, request.route)
        // TLS sessions are shared by every transfer (`Shares`), cookies by those that keep them.
        try easy.set(CURLOPT_SHARE, pointer: request.cookies ? shares.cookies : shares.sessions, "CURLOPT_SHARE")
        if request.cookies {
            try easy.set(CURLOPT_COOKIEFILE, "", "CURLOPT_COOKIEFILE")
        }

        let list = try headerList(job.resume.map(request.headerLines(resuming:)) ?? request.headerLines)
        do {
            try easy.set(CURLOPT_HTTPHEADER, pointer: list.map { UnsafeRawPointer($0) }, "CURLOPT_HTTPHEADER")
        } catch {
            curl_slist_free_all(list)
            throw error
        }
        return list
    }

    /// The proxy (or none: an empty CURLOPT_PROXY keeps libcurl from reading `http_proxy` and its
    /// kin), `no_proxy` (empty when not given, so `NO_PROXY` is not read either), `connect_to` and the
    /// certificate authorities. The connect-to list must outlive the transfer, as the header list does.
    private func configureRoute(_ easy: Easy, _ route: FetchRoute) throws(FetchError) {
        try easy.set(CURLOPT_PROXY, route.proxy?.url ?? "", "CURLOPT_PROXY")
        try easy.set(CURLOPT_NOPROXY, route.noProxy.joined(separator: ","), "CURLOPT_NOPROXY")
        if let proxy = route.proxy, let username = proxy.username {
            try easy.set(CURLOPT_PROXYUSERNAME, username, "CURLOPT_PROXYUSERNAME")
            try easy.set(CURLOPT_PROXYPASSWORD, proxy.password ?? "", "CURLOPT_PROXYPASSWORD")
        }
        if let file = route.caFile {
            try easy.set(CURLOPT_CAINFO, file, "CURLOPT_CAINFO")
            try easy.set(CURLOPT_PROXY_CAINFO, file, "CURLOPT_PROXY_CAINFO")
        }
        if let folder = route.caPath {
            try easy.set(CURLOPT_CAPATH, folder, "CURLOPT_CAPATH")
            try easy.set(CURLOPT_PROXY_CAPATH, folder, "CURLOPT_PROXY_CAPATH")
        }
        if !route.connectTo.isEmpty {
            connectToList = try stringList(route.connectTo.map(\.curlEntry), what: "connect_to")
            try easy.set(CURLOPT_CONNECT_TO, pointer: connectToList.map { UnsafeRawPointer($0) }, "CURLOPT_CONNECT_TO")
        }
    }

    private func headerList(_ lines: [String]) throws(FetchError) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            // Bytes, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n", and a
            // Character scan costs a grapheme break check per character of every line of every request.
            guard !line.utf8.contains(where: { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) else {
                curl_slist_free_all(list)
                let name = line.prefix { $0 != ":" }
                throw .invalidRequest("the header \(name) contains a line break")
            }
            // withCString: passed as it is, the line would be copied into a new array first.
            guard let longer = line.withCString({ curl_slist_append(list, $0) }) else {
                curl_slist_free_all(list)
                throw .curl(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_slist_append ran out of memory")
            }
            list = longer
        }
        return list
    }

    /// A list libcurl keeps, of lines already checked.
    private func stringList(_ lines: [String], what: String) throws(FetchError) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw .curl(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_slist_append ran out of memory for \(what)")
            }
            list = longer
        }
        return list
    }

    private func milliseconds(_ duration: Duration) -> Int {
        Int((duration / .milliseconds(1)).rounded(.up))
    }
}

/// CURLAUTH_BASIC, a macro with a cast that Swift does not import.
private let curlAuthBasic = 1
