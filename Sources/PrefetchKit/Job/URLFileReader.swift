internal import Glibc

/// Reads a URL file one entry at a time through a fixed buffer: one URL per line, optionally followed
/// by blanks and a digest (`URLFileLine`), leading and trailing blanks ignored, blank lines and lines
/// starting with `#` skipped.
///
/// Owns the `FILE` it opens and closes it in `deinit`. Memory use is the buffer plus the longest line.
final class URLFileReader {
    /// Longest line accepted; a longer one stops reading, so a file without line ends cannot fill memory.
    static let maxLineBytes = 1 << 20
    private static let bufferBytes = 1 << 16

    let path: String
    private let file: UnsafeMutablePointer<FILE>
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var start = 0
    private var end = 0
    private var pending: [UInt8] = []
    private var atEnd = false
    /// 1-based number of the line last returned.
    private(set) var lineNumber = 0
    /// Why reading stopped early, when it did.
    private(set) var failure: String?

    init(path: String) throws(ValueProblem) {
        guard let file = fopen(path, "rb") else {
            throw ValueProblem(message: "cannot read URL file `\(path)`: \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.file = file
        buffer = .allocate(capacity: Self.bufferBytes)
    }

    deinit {
        fclose(file)
        buffer.deallocate()
    }

    /// The next entry; nil at the end or on failure.
    func nextEntry() -> URLFileLine? {
        var entry: URLFileLine?
        while entry == nil {
            let read = nextLine { line in
                // A UTF-8 byte order mark (as some editors save) is not part of the first URL.
                var first = lineNumber == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
                var last = line.count
                while first < last, Self.isBlank(line[first]) { first += 1 }
                while last > first, Self.isBlank(line[last - 1]) { last -= 1 }
                guard first < last, line[first] != UInt8(ascii: "#") else { return }
                var urlEnd = first
                while urlEnd < last, !Self.isSeparator(line[urlEnd]) { urlEnd += 1 }
                var digestStart = urlEnd
                while digestStart < last, Self.isSeparator(line[digestStart]) { digestStart += 1 }
                let digest = digestStart < last ? (text(line[digestStart..<last]), digestStart + 1) : nil
                entry = URLFileLine(url: text(line[first..<urlEnd]), column: first + 1, digest: digest)
            }
            guard read else { return nil }
        }
        return entry
    }

    private func text(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
    }

    /// What separates a line's URL from its digest.
    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    /// Calls `body` with the next raw line, without its `\n`; false at the end or on failure.
    private func nextLine(_ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard failure == nil else { return false }
        while true {
            if start < end, let base = buffer.baseAddress,
               let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), end - start) {
                let stop = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                let chunk = UnsafeBufferPointer(start: base + start, count: stop - start)
                start = stop + 1
                lineNumber += 1
                guard !pending.isEmpty else {
                    body(chunk)
                    return true
                }
                pending.append(contentsOf: chunk)
                defer { pending.removeAll(keepingCapacity: true) }
                if tooLong() { return false }
                pending.withUnsafeBufferPointer(body)
                return true
            }
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<end]))
            start = 0
            end = 0
            if tooLong() { return false }
            guard !atEnd, refill() else {
                guard failure == nil, !pending.isEmpty else { return false }
                lineNumber += 1
                defer { pending.removeAll() }
                pending.withUnsafeBufferPointer(body)
                return true
            }
        }
    }

    /// Reads the next chunk; false at end of file or on a read error (then `failure` says why).
    private func refill() -> Bool {
        let read = fread(buffer.baseAddress, 1, buffer.count, file)
        end = read
        if read > 0 { return true }
        atEnd = true
        if ferror(file) != 0 {
            failure = "reading URL file `\(path)` failed after line \(lineNumber): \(String(cString: strerror(errno)))"
        }
        return false
    }

    private func tooLong() -> Bool {
        guard pending.count > Self.maxLineBytes else { return false }
        failure = "line \(lineNumber + 1) of URL file `\(path)` is longer than \(Self.maxLineBytes) bytes"
        return true
    }
}

@available(*, unavailable)
extension URLFileReader: Sendable {}
