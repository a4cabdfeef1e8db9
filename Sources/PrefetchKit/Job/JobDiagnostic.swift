/// One problem found in a job file (or in a URL file it names), printed on one line as
/// `FILE:LINE:COLUMN: key.path: what is wrong`, whatever bytes the file, its keys and values hold.
package struct JobDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The file the problem is in, as it was named.
    package var file: String
    /// 1-based line; 0 when the problem is about the file as a whole.
    package var line: Int
    /// 1-based column; 0 when the problem is about the file as a whole.
    package var column: Int
    /// Where in the job the problem is, like `sets[2].url_pattern`; empty for a YAML syntax error.
    package var keyPath: String
    package var message: String

    package var description: String {
        let place = line > 0 ? "\(oneLine(file)):\(line):\(column)" : oneLine(file)
        let path = keyPath.isEmpty ? "" : "\(oneLine(keyPath)): "
        return "\(place): \(path)\(oneLine(message))"
    }
}

/// A job file that cannot be used, with every problem found in it.
package struct JobFileError: Error, Sendable, CustomStringConvertible {
    /// All problems, in file order; never empty.
    package var diagnostics: [JobDiagnostic]

    /// Sorts the diagnostics by line and column within each file, files in order of first mention.
    package init(diagnostics: [JobDiagnostic]) {
        var fileOrder: [String: Int] = [:]
        for diagnostic in diagnostics where fileOrder[diagnostic.file] == nil {
            fileOrder[diagnostic.file] = fileOrder.count
        }
        self.diagnostics = diagnostics.enumerated().sorted { left, right in
            let l = (fileOrder[left.element.file]!, left.element.line, left.element.column, left.offset)
            let r = (fileOrder[right.element.file]!, right.element.line, right.element.column, right.offset)
            return l < r
        }.map(\.element)
    }

    /// One line per diagnostic.
    package var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
