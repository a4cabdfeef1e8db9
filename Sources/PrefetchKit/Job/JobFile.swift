internal import Glibc

/// Loads and checks job files (version 1, see the design's job file section).
package enum JobFile {
    /// Reads, parses and validates the job file at `path`.
    ///
    /// `${VAR}` references expand from `environment`, never from the process environment, so callers
    /// pass `ProcessInfo`'s or a test's own. URL files resolve against the job file's folder; a
    /// relative `cache.path` resolves against `workingDirectory` (the current directory when nil).
    /// Every URL file is streamed once to check and count its entries.
    ///
    /// - Throws: every problem found, each naming file, line, column and key path; a YAML syntax
    ///   error or a refused limit stops parsing, so it is then the only one.
    package static func load(
        path: String, environment: [String: String], workingDirectory: String? = nil
    ) throws(JobFileError) -> Job {
        try load(path: path, environment: environment, workingDirectory: workingDirectory, limits: .standard)
    }

    /// Loads every file; when any is invalid, throws the problems of all of them together.
    package static func loadAll(paths: [String], environment: [String: String]) throws(JobFileError) -> [Job] {
        var jobs: [Job] = []
        var diagnostics: [JobDiagnostic] = []
        for path in paths {
            do {
                jobs.append(try load(path: path, environment: environment))
            } catch {
                diagnostics += error.diagnostics
            }
        }
        if !diagnostics.isEmpty { throw JobFileError(diagnostics: diagnostics) }
        return jobs
    }

    /// What `prefetchd check` reports for a valid job file; see `load` for the rules.
    package static func check(
        path: String, environment: [String: String], workingDirectory: String? = nil
    ) throws(JobFileError) -> JobSummary {
        try load(path: path, environment: environment, workingDirectory: workingDirectory).summary
    }

    static func load(
        path: String, environment: [String: String], workingDirectory: String?, limits: YAMLLimits
    ) throws(JobFileError) -> Job {
        let bytes: [UInt8]
        do throws(YAMLProblem) {
            bytes = try JobFileBytes(path: path).read(limit: limits.maxBytes)
        } catch {
            throw JobFileError(diagnostics: [diagnostic(error, in: path)])
        }
        return try load(bytes: bytes, path: path, environment: environment, workingDirectory: workingDirectory, limits: limits)
    }

    /// Parses and validates `bytes` as the job file `path` holds them; `load(path:...)` without the
    /// read, for callers that have the bytes (the fuzz targets). `path` still names the file in
    /// diagnostics, gives the job its default name, and is the folder URL files resolve against.
    package static func load(
        bytes: [UInt8], path: String, environment: [String: String], workingDirectory: String? = nil
    ) throws(JobFileError) -> Job {
        try load(bytes: bytes, path: path, environment: environment, workingDirectory: workingDirectory, limits: .standard)
    }

    static func load(
        bytes: [UInt8], path: String, environment: [String: String], workingDirectory: String?, limits: YAMLLimits
    ) throws(JobFileError) -> Job {
        let root: YAMLNode?
        do throws(YAMLProblem) {
            root = try YAMLReader(bytes: bytes, limits: limits).readDocument()
        } catch {
            throw JobFileError(diagnostics: [diagnostic(error, in: path)])
        }
        guard let root else {
            throw JobFileError(diagnostics: [
                JobDiagnostic(file: path, line: 1, column: 1, keyPath: "", message: "the job file is empty; it needs `version: 1` and `sets:`")
            ])
        }
        var decoder = JobDecoder(file: path, environment: environment)
        let job = decoder.job(
            root, path: path, stem: stem(of: path), folder: folder(of: path),
            workingDirectory: workingDirectory ?? currentDirectory())
        guard let job else { throw JobFileError(diagnostics: decoder.diagnostics) }
        return job
    }

    private static func diagnostic(_ problem: YAMLProblem, in path: String) -> JobDiagnostic {
        JobDiagnostic(file: path, line: problem.mark.line, column: problem.mark.column, keyPath: "", message: problem.message)
    }

    /// `jobs/catalog.yaml` -> `catalog`.
    static func stem(of path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    /// `jobs/catalog.yaml` -> `jobs`; `catalog.yaml` -> "" (the working directory).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func currentDirectory() -> String {
        guard let pointer = getcwd(nil, 0) else { return "." }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}

/// Owns the `FILE` a job file is read through and closes it in `deinit`.
private final class JobFileBytes {
    private let file: UnsafeMutablePointer<FILE>

    init(path: String) throws(YAMLProblem) {
        guard let file = fopen(path, "rb") else {
            throw YAMLProblem(message: "cannot read job file: \(String(cString: strerror(errno)))", mark: YAMLMark(line: 0, column: 0))
        }
        self.file = file
    }

    deinit {
        fclose(file)
    }

    /// The whole file, refusing one over `limit` bytes before reading past it.
    func read(limit: Int) throws(YAMLProblem) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= limit else {
                throw YAMLProblem(message: "the job file is over the limit of \(limit) bytes", mark: YAMLMark(line: 1, column: 1))
            }
        }
        guard ferror(file) == 0 else {
            throw YAMLProblem(message: "cannot read job file: \(String(cString: strerror(errno)))", mark: YAMLMark(line: 0, column: 0))
        }
        return bytes
    }
}
