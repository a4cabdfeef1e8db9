import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif

/// Standard output for machine output (JSON, paths), standard error for everything a person reads.
/// Unbuffered writes of whole strings, so lines from several threads do not interleave mid-line.
///
/// Standard error may carry one live line (a progress bar redrawn in place). Any other text written
/// there first clears it and then draws it again below, so log lines never run into the bar.
package enum Console {
    /// The live line on standard error, while one is shown.
    private static let liveLine = Locked<String?>(nil)
    private static let clearLine = "\r\u{1B}[2K"

    package static func out(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    package static func error(_ text: String) {
        liveLine.withLock { live in
            guard let live else { return write(text, to: STDERR_FILENO) }
            write(clearLine + text + live, to: STDERR_FILENO)
        }
    }

    /// Draws `line` as the live line in place of the last one; nil ends it (the last one stays, and
    /// the text after it starts on a new line).
    package static func live(_ line: String?) {
        liveLine.withLock { live in
            if let line {
                write(clearLine + line, to: STDERR_FILENO)
            } else if live != nil {
                write("\n", to: STDERR_FILENO)
            }
            live = line
        }
    }

    /// The errno of the first write to standard output that failed for another reason than a reader
    /// gone (EPIPE: `| head` stops reading once it has what it wants), such as a full disk under a
    /// `> file`: the command's output is then not what it says, which `Tool` turns into exit 3.
    package static var outputFailure: Int32? {
        let code = failedOutput.load(ordering: .relaxed)
        return code == 0 ? nil : code
    }

    private static let failedOutput = Atomic<Int32>(0)

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    if descriptor == STDOUT_FILENO && errno != EPIPE {
                        _ = failedOutput.compareExchange(expected: 0, desired: errno, ordering: .relaxed)
                    }
                    return
                }
                offset += written
            }
        }
    }
}
