internal import CShims

/// What libjxl and dav1d print on stderr while a decode runs on this thread, captured (they have no
/// other way to say why they failed) so that it becomes the rejection's detail instead of noise on
/// the terminal.
enum LibraryTrace {
    private static let capacity = 2048

    /// Runs `body` with this thread's stderr writes from those libraries captured; returns its
    /// result and the first line of what they printed (libjxl's root cause comes first).
    static func capturing<R>(_ body: () -> R) -> (R, String) {
        var buffer = [CChar](repeating: 0, count: capacity)
        let result = buffer.withUnsafeMutableBufferPointer { pointer in
            pf_stderr_capture_begin(pointer.baseAddress, pointer.count)
            defer { _ = pf_stderr_capture_end() }
            return body()
        }
        let text = String(cBuffer: buffer)
        return (result, firstLine(of: text))
    }

    /// "./lib/jxl/splines.cc:637: JXL_FAILURE: Too many pixels ..." -> "Too many pixels ...".
    private static func firstLine(of text: String) -> String {
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        if let range = line.range(of: "JXL_FAILURE: ") {
            return String(line[range.upperBound...])
        }
        return line
    }
}
