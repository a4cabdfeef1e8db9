#if canImport(Glibc)
internal import Glibc
#endif

/// Standard output for machine output (JSON, paths), standard error for everything a person reads.
/// Unbuffered writes of whole strings, so lines from several threads do not interleave mid-line.
public enum Console {
    public static func out(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    public static func error(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
