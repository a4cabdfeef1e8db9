internal import CCurl
internal import CShims

/// Owns a lane's libcurl multi handle. Used only on that network thread, except `MultiWaker`.
final class Multi {
    let handle: UnsafeMutableRawPointer

    /// `kept`: the idle connections to keep, the most transfers the lane runs at once.
    init(concurrency: Int, perHost: Int, kept: Int) throws(FetchError) {
        guard let handle = curl_multi_init() else {
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_multi_init returned no handle")
        }
        self.handle = handle
        try check(pf_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, concurrency), "CURLMOPT_MAX_TOTAL_CONNECTIONS")
        try check(pf_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, perHost), "CURLMOPT_MAX_HOST_CONNECTIONS")
        // Idle connections are kept up to the lane's share of the total limit. libcurl's default keeps four
        // per easy handle added at the moment a transfer ends, so whenever the scheduler was a little behind
        // (a loaded machine) it closed idle connections that the next transfers then opened again: 102 to
        // 524 connections for 20,000 URLs over HTTP/1.1 at 16 in flight, where curl --parallel opens 16.
        // A lane never runs more than its share (`Admission.laneShare`), and the lanes together keep no more
        // connections open than `concurrency` and one per lane, which the open-file budget counts on.
        try check(pf_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, kept), "CURLMOPT_MAXCONNECTS")
        try check(pf_multi_setopt_long(handle, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX), "CURLMOPT_PIPELINING")
    }

    deinit {
        curl_multi_cleanup(handle)
    }

    func add(_ easy: Easy) throws(FetchError) {
        try check(curl_multi_add_handle(handle, easy.handle), "curl_multi_add_handle")
    }

    func remove(_ easy: Easy) throws(FetchError) {
        try check(curl_multi_remove_handle(handle, easy.handle), "curl_multi_remove_handle")
    }

    func perform() throws(FetchError) {
        var running: Int32 = 0
        try check(curl_multi_perform(handle, &running), "curl_multi_perform")
    }

    /// Waits for network activity, libcurl's own timers, a `wakeUp`, or `timeout`, whichever comes first.
    func poll(timeout: Duration) throws(FetchError) {
        let milliseconds = Int32(clamping: Int((timeout / .milliseconds(1)).rounded(.up)))
        try check(curl_multi_poll(handle, nil, 0, milliseconds, nil), "curl_multi_poll")
    }

    /// The next finished transfer: its easy handle and result.
    func nextDone() -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(handle, &queued) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                return (easy, message.pointee.data.result)
            }
        }
        return nil
    }

    private func check(_ code: CURLMcode, _ name: String) throws(FetchError) {
        guard code == CURLM_OK else {
            throw .curl(code: Int(code.rawValue), message: "\(name): \(String(cString: curl_multi_strerror(code)))")
        }
    }
}

@available(*, unavailable) extension Multi: Sendable {}

/// Interrupts `curl_multi_poll` from another thread (curl_multi_wakeup is documented thread-safe).
///
/// `@unchecked Sendable`: it is only used while holding the engine's inbox lock, and the network
/// thread drops it under that same lock before cleaning up the multi handle.
struct MultiWaker: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    func wake() {
        _ = curl_multi_wakeup(handle)
    }
}
