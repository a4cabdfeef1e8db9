/// Where a set's URLs come from, read lazily: a list, a URL file streamed line by line, or a glob
/// pattern expanded one URL at a time. Iterating never holds more than one URL file line or one
/// expansion in memory beyond the job's own list.
package struct URLSource: Sequence, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// `urls:` as written (after `${VAR}` expansion).
        case list([String])
        /// `url_file:`, resolved against the job file's folder.
        case file(path: String)
        /// `url_pattern:`.
        case pattern(URLPattern)
    }

    package let kind: Kind
    /// How many URLs the source yields, counted when the job was loaded: the list's length, the
    /// URL file's entries (counted by streaming it), or the product of the pattern's glob sizes.
    package let count: Int
    /// The key path diagnostics about this source name, like `sets[1].url_file`.
    let keyPath: String

    init(kind: Kind, count: Int, keyPath: String) {
        self.kind = kind
        self.count = count
        self.keyPath = keyPath
    }

    package func makeIterator() -> Iterator {
        switch kind {
        case .list(let urls):
            return Iterator(state: .list(urls.makeIterator()))
        case .pattern(let pattern):
            return Iterator(state: .pattern(pattern.makeIterator()))
        case .file(let path):
            do throws(ValueProblem) {
                return Iterator(state: .file(try URLFileReader(path: path), keyPath: keyPath))
            } catch {
                return Iterator(
                    state: .finished,
                    failure: JobDiagnostic(file: path, line: 0, column: 0, keyPath: keyPath, message: error.message))
            }
        }
    }

    /// Yields URLs as strings. When a URL file cannot be opened or read, iteration ends early and
    /// `failure` says why; check it after the loop.
    package struct Iterator: IteratorProtocol {
        enum State {
            case list(IndexingIterator<[String]>)
            case file(URLFileReader, keyPath: String)
            case pattern(URLPattern.Iterator)
            case finished
        }

        private var state: State
        /// Why a URL file stopped before its end, or nil.
        package private(set) var failure: JobDiagnostic?

        init(state: State, failure: JobDiagnostic? = nil) {
            self.state = state
            self.failure = failure
        }

        package mutating func next() -> String? {
            nextEntry()?.url
        }

        /// The next URL with the digest its URL file line gives, if any.
        package mutating func nextEntry() -> URLEntry? {
            switch state {
            case .list(var urls):
                defer { state = .list(urls) }
                return urls.next().map { URLEntry(url: $0) }
            case .pattern(var urls):
                defer { state = .pattern(urls) }
                return urls.next().map { URLEntry(url: $0) }
            case .file(let reader, let keyPath):
                if let line = reader.nextEntry() {
                    do throws(ValueProblem) {
                        return URLEntry(url: line.url, expectedDigest: try line.expectedDigest())
                    } catch {
                        // The file changed since the job loaded: a line that was checked is not one now.
                        failure = JobDiagnostic(file: reader.path, line: reader.lineNumber, column: line.digest?.column ?? 0,
                                                keyPath: keyPath, message: error.message)
                    }
                } else if let message = reader.failure {
                    failure = JobDiagnostic(
                        file: reader.path, line: reader.lineNumber + 1, column: 1, keyPath: keyPath, message: message)
                }
                state = .finished
                return nil
            case .finished:
                return nil
            }
        }
    }
}

/// One URL of a source, and the digest its body must have as stored when a URL file line gives one.
package struct URLEntry: Sendable, Equatable {
    package var url: String
    package var expectedDigest: ExpectedDigest?

    package init(url: String, expectedDigest: ExpectedDigest? = nil) {
        self.url = url
        self.expectedDigest = expectedDigest
    }
}
