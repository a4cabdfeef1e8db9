internal import Glibc
internal import CCurl
import Foundation

/// One attempt of one request on one easy handle: the destination file, and the callbacks libcurl
/// makes while it runs. Lives on the network thread only. A kept body's bytes, as they arrive, go into
/// the server's digest check, then through the `ContentDecoder` when the response has a content coding,
/// and then into the `BodySink`, which counts, hashes and writes them.
final class Attempt {
    let job: PendingFetch
    let easy: Easy
    private let deliveries: Deliveries
    /// Paces the body's bytes when its set or host has `bytes_per_second`; nil otherwise.
    private let pacer: BytePacer?
    /// The open destination, until it is closed or handed over with a kept body.
    private var body: BodyFile?
    /// Where the kept body goes once decoded; made with the destination.
    private var sink: BodySink?
    /// Whether this attempt created the destination, and so may remove it.
    private var ownsDestination = false
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The `connect_to` entries as libcurl keeps them, set by `configure`; freed with the attempt.
    var connectToList: UnsafeMutablePointer<curl_slist>?
    /// Judges `stall:` at the progress callbacks; nil when the limit is off.
    private var stallWatch: StallWatch?
    /// When the stall limit was last judged, on the coarse clock (`StallWatch.coarseNow`).
    private var stallJudgedAt: Int64?
    /// Why the stall limit aborted the transfer.
    private var stallFailure: FetchError?
    /// Bytes of a 2xx body received, before any decoding.
    private var received: Int64 = 0
    /// The request's `maxBytes`, read once: the write callback checks it at every call.
    private let maxBytes: Int64
    /// Decided at the first body byte: only a 2xx body goes to the file. Any other status decides the
    /// outcome by itself: its body is read and dropped while it is small (an error page, so the
    /// connection stays usable), and a larger one aborts the transfer; `maxBytes` does not apply.
    private var keepsBody: Bool?
    /// The most of a non-2xx body read before the transfer is aborted instead.
    static let droppedBodyAllowance = 64 << 10
    /// CURL_WRITEFUNC_PAUSE.
    private static let pause = 0x1000_0001
    /// True while the transfer is paused for its byte budget: the stall limit does not judge it then.
    private var pacedPause = false
    /// Bytes of a body that is not a 2xx response's, read and dropped so far.
    private var droppedBytes = 0
    /// True once the transfer was aborted for such a body.
    private var droppedStatusBody = false
    /// Why receiving a kept body stopped: too large, a write that failed, a coding not decoded or corrupt.
    private var bodyFailure: FetchError?
    /// Set up at a kept body's first byte (or at its end when it had none) from the response's headers.
    private var bodyStarted = false
    private var decoder: ContentDecoder?
    private var serverDigest: DigestCheck?
    private var digestWarnings: [String] = []
    /// Why the network policy refused a request of this attempt.
    private var refusal: String?
    /// The cut body this attempt asks the rest of (`Range`, `If-Range`); nil from the start, or once a
    /// 200 answered with the whole body instead.
    private var resumedFrom: ResumePoint?
    /// The last byte a resumed answer's `Content-Range` promised: the body must reach it.
    private var resumedEnd: Int64?
    /// Set when the answer to a resumed request does not continue the body asked for (a 206 from
    /// another byte, with another validator or in a content coding; a 416): the transfer is aborted
    /// before any of it is stored, and the next attempt asks for the whole body.
    private var restartsFromZero = false

    /// What an attempt came to, before the retry policy looks at it.
    struct Settled: Sendable {
        let outcome: Result<FetchResponse, FetchError>
        let headers: ResponseHeaders
        let timings: FetchTimings
        /// A kept body's file, all of it written, still to be closed; nil for every other outcome.
        fileprivate(set) var body: BodyFile?
        /// The kept body's hashes, still to be finished (see `outcome(afterClose:)`).
        fileprivate(set) var hashes: BodyCloser.PendingHashes?
        fileprivate(set) var destination = ""
        /// Whether the attempt created the kept body's file (not a descriptor the caller owns).
        fileprivate(set) var ownsDestination = false
        /// For a failure: where the body that was cut stands, its bytes in the destination, for the
        /// next attempt to resume from; nil when it cannot be resumed (see `ResumePoint`).
        fileprivate(set) var resume: ResumePoint?
        /// For a failure: the answer to the resumed request did not continue the body, so the next
        /// attempt, made at once and not counted as a retry, asks for the whole body.
        fileprivate(set) var restartFromZero = false

        /// The outcome once a kept body's file is closed, given the close's failure: the success
        /// with the body's checksum, or, after a failure or for a body that is not the one its
        /// `url_file` line expects, that failure, and a file the attempt created is removed.
        func outcome(afterClose failure: Int32?) -> Result<FetchResponse, FetchError> {
            guard case .success(let response) = outcome, let hashes else { return outcome }
            let hashed = failure.map { .failure(.destination(path: destination, code: $0)) } ?? hashes.hashes.finalize()
            switch hashed {
            case .success(let checksum):
                return .success(response.with(checksum: checksum))
            case .failure(let error):
                if ownsDestination { unlink(destination) }
                return .failure(error)
            }
        }
    }

    init(job: PendingFetch, easy: Easy, deliveries: Deliveries, pacer: BytePacer? = nil) {
        self.job = job
        self.easy = easy
        self.deliveries = deliveries
        self.pacer = pacer
        maxBytes = job.request.maxBytes
    }

    deinit {
        closeDestination()
        curl_slist_free_all(headerList)
        curl_slist_free_all(connectToList)
    }

    /// Opens (creating when needed) or takes the destination, empties it, and sets every option on the
    /// easy handle.
    func prepare(shares: Shares) throws(FetchError) {
        // Through a proxy the pre-request check comes after the proxy has connected to the target
        // (for https, after the tunnel and the TLS handshake): the first URL's target is checked here,
        // before the proxy is asked anything.
        if job.request.route.proxy != nil, !job.request.network.allowPrivate,
           let refusal = refusalThroughProxy(url: job.request.url) {
            throw .blockedNetwork(refusal)
        }
        let path = job.request.destination
        let file: BodyFile
        if let borrowed = job.request.destinationDescriptor {
            file = BodyFile(borrowing: borrowed)
        } else {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw .destination(path: path, code: errno)
            }
            file = BodyFile(descriptor: descriptor)
            ownsDestination = true
        }
        body = file
        resumedFrom = job.resume
        sink = BodySink(file: file, request: job.request, resuming: resumedFrom)
        received = resumedFrom?.offset ?? 0
        // Truncated only when not empty (a file left by an earlier attempt): ext4 flushes a file on
        // close once it has been truncated, which would cost the network thread a writeback per body.
        // A resumed body keeps its first bytes, and the rest is written after them.
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else { throw .destination(path: path, code: errno) }
        let keep = resumedFrom?.offset ?? 0
        guard Int64(info.st_size) == keep || ftruncate(file.descriptor, off_t(keep)) == 0 else {
            throw .destination(path: path, code: errno)
        }
        headerList = try configure(easy, shares: shares)
        if !job.request.stall.isOff {
            stallWatch = StallWatch(limit: job.request.stall, now: .now)
        }
    }

    /// The end of the attempt, read from the easy handle. A body to keep is handed over, all of it in
    /// its file, for `BodyCloser.close` to close; for every other outcome the destination is closed
    /// and removed.
    func settle(_ code: CURLcode) -> Settled {
        let headers = responseHeaders()
        let timings = FetchTimings(
            total: easy.duration(CURLINFO_TOTAL_TIME_T),
            connect: easy.duration(CURLINFO_CONNECT_TIME_T),
            startTransfer: easy.duration(CURLINFO_STARTTRANSFER_TIME_T)
        )
        if resumedFrom != nil && easy.long(CURLINFO_RESPONSE_CODE) == 416 { restartsFromZero = true }
        var settled = Settled(outcome: classify(code, headers: headers), headers: headers, timings: timings)
        settled.restartFromZero = restartsFromZero
        if case .failure(let error) = settled.outcome, let point = resumePoint(after: error, headers: headers) {
            // The cut body stays in its file for the next attempt, every byte taken so far written.
            settled.resume = point
            settled.ownsDestination = ownsDestination
            settled.destination = job.request.destination
            self.sink = nil
            body?.close()
            body = nil
            ownsDestination = false
        } else if case .success(let response) = settled.outcome, response.kind == .ok, let body, let sink {
            settled.hashes = BodyCloser.PendingHashes(hashes: sink.hashes)
            settled.body = body
            settled.destination = job.request.destination
            settled.ownsDestination = ownsDestination
            self.body = nil
            self.sink = nil
            ownsDestination = false
        } else {
            closeDestination()
            removeDestination()
        }
        return settled
    }

    /// Goes on after a pause for the byte budget; the stall limit's window starts again here, so the
    /// time paused does not count as a stall.
    func resumePaced() {
        pacedPause = false
        if stallWatch != nil { stallWatch = StallWatch(limit: job.request.stall, now: .now) }
        easy.resume()
    }

    /// Stops caring about the attempt: the destination is closed and removed.
    func discard() {
        closeDestination()
        removeDestination()
    }

    /// Where a failed attempt leaves its body for the next one: the bytes of a 2xx body sent as it is,
    /// cut by the connection (a reset, a timeout, fewer bytes than declared), with a validator for
    /// `If-Range`; or, when this attempt stored nothing (no body byte came, or a status that is not
    /// 2xx), the point it resumed from, still in the file. Nil when the body must start again.
    private func resumePoint(after error: FetchError, headers: ResponseHeaders) -> ResumePoint? {
        guard !restartsFromZero else { return nil }
        guard keepsBody == true else { return resumedFrom }
        switch error {
        case .truncatedBody, .reset, .timeout, .curl: break
        default: return nil
        }
        guard bodyFailure == nil, decoder == nil, let sink, sink.bytes > 0,
              let validator = resumedFrom?.validator ?? ResumePoint.Validator.of(etag: headers.etag, lastModified: headers.lastModified)
        else { return nil }
        guard sink.flush() == nil, body?.close() == nil else { return nil }
        // A resumed attempt's own length is the rest's: the whole is what the first response declared.
        let total: Int64?
        if let resumedFrom {
            total = resumedFrom.total
        } else {
            let declared = easy.size(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
            total = declared >= 0 ? declared : nil
        }
        return ResumePoint(offset: sink.bytes, validator: validator, hashes: sink.hashes, serverDigest: serverDigest,
                           digestWarnings: digestWarnings, head: sink.head, total: total)
    }

    /// At a resumed request's first body byte: a 206 that continues the body from the byte asked for,
    /// with the validator sent, the whole length first declared (when known) and no content coding,
    /// carries on from the cut; a 200 sends the whole body again, which starts over in the same file.
    /// False for any other answer: the transfer is aborted and the next attempt asks for the whole body.
    private func continueResumed(_ resume: ResumePoint, status: Int) -> Bool {
        guard status == 206 else {
            resumedFrom = nil
            received = 0
            guard let body, ftruncate(body.descriptor, 0) == 0 else {
                bodyFailure = .destination(path: job.request.destination, code: errno)
                return true
            }
            sink = BodySink(file: body, request: job.request)
            return true
        }
        let identity = easy.headerValues("Content-Encoding").flatMap { $0.split(separator: ",") }
            .allSatisfy { ["", "identity"].contains($0.trimmingCharacters(in: .whitespaces).lowercased()) }
        // The rest is asked for to the end (`bytes=N-`): a range that stops short of the whole length
        // would leave the body cut under its final name.
        let range = contentRange(easy.header("Content-Range"))
        let reachesTheEnd = range.map { range in range.total.map { range.end == $0 - 1 } ?? true } ?? false
        guard range?.start == resume.offset, resume.total == nil || range?.total == resume.total, reachesTheEnd, identity,
              resume.validator.matches(etag: easy.header("ETag"), lastModified: easy.header("Last-Modified"))
        else {
            restartsFromZero = true
            return false
        }
        bodyStarted = true
        resumedEnd = range?.end
        serverDigest = resume.serverDigest
        digestWarnings = resume.digestWarnings
        return true
    }

    private func classify(_ code: CURLcode, headers: ResponseHeaders) -> Result<FetchResponse, FetchError> {
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        if restartsFromZero {
            return .failure(.badResponse("the answer to a request for the rest of a cut body (HTTP \(status)) did not continue it"))
        }
        // A final status other than 2xx is the outcome, whatever its body did: dropped at its first
        // byte, or refused by libcurl for a Content-Length over `maxBytes`.
        if code != CURLE_OK, status >= 100, !(200..<300).contains(status),
           droppedStatusBody || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(.http(status: status))
        }
        guard code == CURLE_OK else {
            if code == CURLE_FILESIZE_EXCEEDED {
                return .failure(.tooLarge(limit: job.request.maxBytes))
            }
            if let bodyFailure {
                return .failure(bodyFailure)
            }
            if let stallFailure {
                return .failure(stallFailure)
            }
            if let refusal {
                return .failure(.blockedNetwork(refusal))
            }
            // The proxy refused the tunnel (407 for credentials, 403 by its own rules): its answer is
            // the outcome, as a plain-http request's 407 is, not the broken transfer libcurl reports.
            let tunnelStatus = easy.long(CURLINFO_HTTP_CONNECTCODE)
            if tunnelStatus >= 300 {
                return .failure(.http(status: tunnelStatus))
            }
            let message = scrubbed(easy.message(for: code), hiding: secrets(of: job.request))
            if isOversizedHeader(code, message: message) {
                return .failure(.badResponse(message))
            }
            return .failure(FetchError(curlCode: code, message: message))
        }
        let kind: FetchResponse.Kind
        switch status {
        // A 206 holds part of the body: the rest of a cut one when this attempt asked for it (checked
        // at its first byte), else something never asked for; and a 304 answers only a conditional GET.
        case 206 where resumedFrom == nil: return .failure(.badResponse("a 206 (partial content) to a request that asked for no range"))
        case 200..<300: kind = .ok
        case 304 where job.request.validators != nil: kind = .notModified
        default: return .failure(.http(status: status))
        }
        let finalURL = URLRedaction.shown(easy.string(CURLINFO_EFFECTIVE_URL) ?? job.request.url,
                                          hiding: job.request.hiddenParams)
        guard kind == .ok else {
            return .success(FetchResponse(kind: kind, status: status, finalURL: finalURL, headers: headers, bytes: 0))
        }
        if !bodyStarted { startBody() }
        if let failure = bodyFailure ?? decoder?.finish() ?? sink?.flush() ?? serverDigest?.verdict() {
            return .failure(failure)
        }
        // A resumed answer without a length of its own (chunked) that ended early is cut short too.
        if let resumedEnd, let bytes = sink?.bytes, bytes != resumedEnd + 1 {
            return .failure(.truncatedBody("the resumed body ended at byte \(bytes) of \(resumedEnd + 1)"))
        }
        return .success(FetchResponse(kind: kind, status: status, finalURL: finalURL, headers: headers, bytes: sink?.bytes ?? 0,
                                      head: sink?.head ?? [], warnings: digestWarnings))
    }

    /// libcurl's refusal of a response's headers: over 300 KB in all ("Too large response headers",
    /// CURLE_RECV_ERROR), or one line over 100 KB, which it reports as CURLE_OUT_OF_MEMORY before
    /// any body byte. Both are the server's doing, not the connection's or the machine's.
    private func isOversizedHeader(_ code: CURLcode, message: String) -> Bool {
        switch code {
        case CURLE_RECV_ERROR: message.contains("response headers")
        case CURLE_OUT_OF_MEMORY: keepsBody == nil && easy.long(CURLINFO_RESPONSE_CODE) > 0
        default: false
        }
    }

    /// The write callback: a 2xx body goes on to be checked, decoded and stored; the body of any other
    /// status is dropped. Returning less than `count` makes libcurl abort the transfer.
    fileprivate func receive(_ data: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        // Over the byte budget: libcurl keeps these bytes and hands them over again once resumed.
        if let pacer, !pacer.admit(count, for: self) {
            pacedPause = true
            return Self.pause
        }
        if keepsBody == nil {
            let status = easy.long(CURLINFO_RESPONSE_CODE)
            keepsBody = (200..<300).contains(status)
            if keepsBody == true, let resume = resumedFrom, !continueResumed(resume, status: status) {
                return 0
            }
        }
        guard keepsBody == true else {
            droppedBytes += count
            if droppedBytes > Self.droppedBodyAllowance {
                droppedStatusBody = true
                return 0
            }
            return count
        }
        if !bodyStarted { startBody() }
        received += Int64(count)
        if received > maxBytes {
            bodyFailure = .tooLarge(limit: maxBytes)
        }
        guard bodyFailure == nil, let sink else { return 0 }
        let bytes = UnsafeRawBufferPointer(start: data, count: count)
        serverDigest?.update(bytes)
        bodyFailure = decoder.map { $0.decode(bytes, into: sink.take) } ?? sink.take(bytes)
        return bodyFailure == nil ? count : 0
    }

    /// Reads what the final response's headers say of its body: the content codings to undo (one not
    /// decoded fails the body here) and the digest to check the bytes as sent against.
    private func startBody() {
        bodyStarted = true
        do throws(FetchError) {
            decoder = try ContentDecoder.make(contentEncoding: easy.headerValues("Content-Encoding"))
        } catch {
            bodyFailure = error
        }
        let choice = ServerDigest.choose(contentMD5: easy.headerValues("Content-MD5"), digest: easy.headerValues("Digest"),
                                         reprDigest: easy.headerValues("Repr-Digest"))
        serverDigest = choice.expected.map(DigestCheck.init)
        digestWarnings = choice.warnings
    }

    /// The header callback: at the blank line ending a final response's headers, reports the response.
    /// Interim (1xx) responses and redirects that libcurl follows are not reported.
    fileprivate func receiveHeader(_ data: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        let isEnd = count <= 2 && (data[0] == 0x0D || data[0] == 0x0A)
        guard isEnd else { return count }
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        let followed = (300..<400).contains(status) && status != 304 && easy.header("Location") != nil
        if status >= 200, !followed {
            deliveries.emit(.response(id: job.id, status: status, headers: responseHeaders(), elapsed: job.elapsed))
        }
        return count
    }

    /// The progress callback: false aborts the transfer, once its body has come slower than the stall
    /// limit allows. libcurl calls it after nearly every read while data flows (hundreds of times a
    /// second); the limit is judged at most once per `StallWatch.judgingGap` of those, by the coarse
    /// clock, whose reading costs a fraction of the precise one's.
    fileprivate func progress(downloaded: Int64) -> Bool {
        guard !pacedPause, stallWatch != nil else { return true }
        let coarse = StallWatch.coarseNow()
        if let last = stallJudgedAt, coarse - last < StallWatch.judgingGap { return true }
        stallJudgedAt = coarse
        // Judged in place: a copy of the watch would retain and release its samples at every call.
        let stalled = stallWatch?.stalled(bytes: downloaded, at: .now) ?? false
        if stalled {
            stallFailure = .timeout(job.request.stall.message(received: downloaded))
        }
        return !stalled
    }

    /// The pre-request callback: the connection is made, the request not yet sent. Refuses hosts and
    /// addresses the network policy does not allow, for the first request and every redirect. Through
    /// a proxy, `address` is the proxy's: the target's own addresses, as they resolve here, are checked
    /// instead, every one of them (the proxy resolves the name itself).
    fileprivate func admit(address: String) -> Bool {
        let url = easy.string(CURLINFO_EFFECTIVE_URL) ?? job.request.url
        if job.request.route.proxy != nil, !job.request.network.allowPrivate {
            refusal = refusalThroughProxy(url: url)
        } else {
            refusal = job.request.network.refusal(host: URLComponents(string: url)?.host ?? "", address: address)
        }
        return refusal == nil
    }

    /// Why the network policy refuses `url` through the proxy, judged by every address its target (or
    /// its `connect_to` entry) resolves to here; nil when it does not.
    private func refusalThroughProxy(url: String) -> String? {
        let components = URLComponents(string: url)
        let host = components?.host ?? ""
        let port = components?.port ?? (components?.scheme?.lowercased() == "https" ? 443 : 80)
        let target = job.request.route.connectedHost(for: host, port: port)
        let addresses = AddressLookup.addresses(of: target)
        guard !addresses.isEmpty else {
            return "host \(oneLine(target)) does not resolve here, so its address cannot be checked (network.allow_private is false)"
        }
        return addresses.lazy.compactMap { self.job.request.network.refusal(host: host, address: $0) }.first
    }

    /// Closes the destination.
    private func closeDestination() {
        sink = nil
        body?.close()
        body = nil
    }

    private func removeDestination() {
        if ownsDestination {
            unlink(job.request.destination)
            ownsDestination = false
        }
    }

    private func responseHeaders() -> ResponseHeaders {
        var headers = ResponseHeaders(
            etag: easy.header("ETag"),
            lastModified: easy.header("Last-Modified"),
            contentType: easy.header("Content-Type"),
            retryAfter: easy.header("Retry-After")
        )
        if job.request.readsFreshness {
            let cacheControl = easy.headerValues("Cache-Control")
            headers.cacheControl = cacheControl.isEmpty ? nil : cacheControl.joined(separator: ", ")
            headers.expires = easy.header("Expires")
            headers.date = easy.header("Date")
            headers.age = easy.header("Age")
        }
        return headers
    }
}

@available(*, unavailable) extension Attempt: Sendable {}

/// libcurl's write callback; the context is the unretained `Attempt` the active map keeps alive,
/// used without a retain and release of its own (libcurl calls this and the progress callback about
/// twenty times a body).
let attemptWriteCallback: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    return Unmanaged<Attempt>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.receive(data, count: size * count) }
}

/// libcurl's header callback, one header line per call; the context as above.
let attemptHeaderCallback: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    return Unmanaged<Attempt>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.receiveHeader(data, count: size * count) }
}

/// libcurl's pre-request callback; the context as above.
let attemptPrerequestCallback: curl_prereq_callback = { context, primaryIP, _, _, _ in
    guard let context, let primaryIP else { return Int32(CURL_PREREQFUNC_ABORT) }
    let admitted = Unmanaged<Attempt>.fromOpaque(context).takeUnretainedValue().admit(address: String(cString: primaryIP))
    return Int32(admitted ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT)
}

/// libcurl's progress callback, about once a second while nothing arrives and more often while data
/// flows; the context as above.
let attemptProgressCallback: curl_xferinfo_callback = { context, _, downloaded, _, _ in
    guard let context else { return 1 }
    return Unmanaged<Attempt>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.progress(downloaded: Int64(downloaded)) } ? 0 : 1
}
