internal import Glibc
internal import CCurl
import Foundation

/// One attempt of one request on one easy handle: the destination file, the body counter, and the
/// callbacks libcurl makes while it runs. Lives on the network thread only.
final class Attempt {
    let job: PendingFetch
    let easy: Easy
    private let mailbox: Mailbox
    private var descriptor: Int32 = -1
    /// Whether this attempt created the destination, and so may remove it.
    private var ownsDestination = false
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var bytes: Int64 = 0
    /// Decided at the first body byte: only a 2xx body goes to the file; others are counted and dropped.
    private var keepsBody: Bool?
    private var exceededLimit = false
    private var writeFailure: String?
    /// Why the network policy refused a request of this attempt.
    private var refusal: String?
    /// Checksums the body as it is written, when the request asks for it.
    private let hasher: ContentHasher?
    /// The body's first bytes, up to `keptHeadBytes`.
    private var head: [UInt8] = []

    /// What an attempt came to, before the retry policy looks at it.
    struct Settled {
        let outcome: Result<FetchResponse, FetchError>
        let headers: ResponseHeaders
        let timings: FetchTimings
    }

    init(job: PendingFetch, easy: Easy, mailbox: Mailbox) {
        self.job = job
        self.easy = easy
        self.mailbox = mailbox
        hasher = job.request.computesChecksum ? ContentHasher() : nil
    }

    deinit {
        closeDestination()
        curl_slist_free_all(headerList)
    }

    /// Creates (or truncates) the destination and sets every option on the easy handle.
    func prepare(cookieShare: CookieShare) throws(FetchError) {
        let path = job.request.destination
        descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .destination(path: path, message: String(cString: strerror(errno)))
        }
        // Truncated only when not empty (a file left by an earlier attempt): ext4 flushes a file on
        // close once it has been truncated, which would cost the network thread a writeback per body.
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size == 0 || ftruncate(descriptor, 0) == 0 else {
            throw .destination(path: path, message: String(cString: strerror(errno)))
        }
        ownsDestination = true
        headerList = try configure(easy, cookieShare: cookieShare)
    }

    /// The end of the attempt, read from the easy handle; the destination is closed, and removed unless
    /// the outcome is a body to keep.
    func settle(_ code: CURLcode) -> Settled {
        let headers = responseHeaders()
        let timings = FetchTimings(
            total: easy.duration(CURLINFO_TOTAL_TIME_T),
            connect: easy.duration(CURLINFO_CONNECT_TIME_T),
            startTransfer: easy.duration(CURLINFO_STARTTRANSFER_TIME_T)
        )
        var outcome = classify(code, headers: headers)
        if let closeFailure = closeDestination(), case .success = outcome {
            outcome = .failure(.destination(path: job.request.destination, message: closeFailure))
        }
        if case .success(let response) = outcome, response.kind == .ok {
            ownsDestination = false
        } else {
            removeDestination()
        }
        return Settled(outcome: outcome, headers: headers, timings: timings)
    }

    /// Stops caring about the attempt: the destination is closed and removed.
    func discard() {
        closeDestination()
        removeDestination()
    }

    private func classify(_ code: CURLcode, headers: ResponseHeaders) -> Result<FetchResponse, FetchError> {
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        guard code == CURLE_OK else {
            if exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
                return .failure(.tooLarge(limit: job.request.maxBytes))
            }
            if let refusal {
                return .failure(.blockedNetwork(refusal))
            }
            if let writeFailure {
                return .failure(.destination(path: job.request.destination, message: writeFailure))
            }
            let message = scrubbed(easy.message(for: code), hiding: secrets(of: job.request))
            return .failure(FetchError(curlCode: code, message: message))
        }
        let kind: FetchResponse.Kind
        switch status {
        case 200..<300: kind = .ok
        case 304: kind = .notModified
        default: return .failure(.http(status: status))
        }
        let finalURL = redacted(easy.string(CURLINFO_EFFECTIVE_URL) ?? job.request.url)
        var response = FetchResponse(kind: kind, status: status, finalURL: finalURL, headers: headers, bytes: bytes)
        if kind == .ok {
            response.checksum = hasher?.finalize()
            response.head = head
        }
        return .success(response)
    }

    /// The write callback: counts the body against `maxBytes` and streams a 2xx body into the file.
    /// Returning less than `count` makes libcurl abort the transfer.
    fileprivate func receive(_ data: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        bytes += Int64(count)
        if bytes > job.request.maxBytes {
            exceededLimit = true
            return 0
        }
        if keepsBody == nil {
            keepsBody = (200..<300).contains(easy.long(CURLINFO_RESPONSE_CODE))
        }
        guard keepsBody == true else { return count }
        var written = 0
        while written < count {
            let result = write(descriptor, data + written, count - written)
            if result < 0 {
                if errno == EINTR { continue }
                writeFailure = String(cString: strerror(errno))
                return 0
            }
            written += result
        }
        hasher?.update(UnsafeRawBufferPointer(start: data, count: count))
        let wanted = job.request.keptHeadBytes - head.count
        if wanted > 0 {
            head.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(wanted, count)))
        }
        return count
    }

    /// The header callback: at the blank line ending a final response's headers, reports the response.
    /// Interim (1xx) responses and redirects that libcurl follows are not reported.
    fileprivate func receiveHeader(_ data: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        let isEnd = count <= 2 && (data[0] == 0x0D || data[0] == 0x0A)
        guard isEnd else { return count }
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        let followed = (300..<400).contains(status) && status != 304 && easy.header("Location") != nil
        if status >= 200, !followed {
            mailbox.emit(.response(id: job.id, status: status, headers: responseHeaders()))
        }
        return count
    }

    /// The pre-request callback: the connection is made, the request not yet sent. Refuses hosts and
    /// addresses the network policy does not allow, for the first request and every redirect.
    fileprivate func admit(address: String) -> Bool {
        let url = easy.string(CURLINFO_EFFECTIVE_URL) ?? job.request.url
        let host = URLComponents(string: url)?.host ?? ""
        refusal = job.request.network.refusal(host: host, address: address)
        return refusal == nil
    }

    /// Closes the destination; the error message when closing failed.
    @discardableResult
    private func closeDestination() -> String? {
        guard descriptor >= 0 else { return nil }
        let result = close(descriptor)
        descriptor = -1
        return result == 0 ? nil : String(cString: strerror(errno))
    }

    private func removeDestination() {
        if ownsDestination {
            unlink(job.request.destination)
            ownsDestination = false
        }
    }

    private func responseHeaders() -> ResponseHeaders {
        ResponseHeaders(
            etag: easy.header("ETag"),
            lastModified: easy.header("Last-Modified"),
            contentType: easy.header("Content-Type"),
            retryAfter: easy.header("Retry-After")
        )
    }
}

@available(*, unavailable) extension Attempt: Sendable {}

/// libcurl's write callback; the context is the unretained `Attempt` the active map keeps alive.
let attemptWriteCallback: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    return Unmanaged<Attempt>.fromOpaque(context).takeUnretainedValue().receive(data, count: size * count)
}

/// libcurl's header callback, one header line per call; the context as above.
let attemptHeaderCallback: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    return Unmanaged<Attempt>.fromOpaque(context).takeUnretainedValue().receiveHeader(data, count: size * count)
}

/// libcurl's pre-request callback; the context as above.
let attemptPrerequestCallback: curl_prereq_callback = { context, primaryIP, _, _, _ in
    guard let context, let primaryIP else { return Int32(CURL_PREREQFUNC_ABORT) }
    let admitted = Unmanaged<Attempt>.fromOpaque(context).takeUnretainedValue().admit(address: String(cString: primaryIP))
    return Int32(admitted ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT)
}
