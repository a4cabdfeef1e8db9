import FuzzSupport
import PrefetchKit

/// Job-file bytes -> `Job` or diagnostics, through `JobFile.load(bytes:...)`: libyaml and the tree
/// builder with its limits, the decoder of every key, `${VAR}` expansion, URL lists, patterns and
/// the checks on each URL. URL files resolve against a folder that does not exist, so only an
/// absolute `url_file` reaches the file system.
enum JobFileTarget {
    static let path = "no-such-folder/job.yaml"
    static let environment = [
        "FUZZ_HOST": "images.example.com", "FUZZ_EMPTY": "", "FUZZ_PASSWORD": "secret",
        "PREFETCHD_CACHE_DIR": "cache",
    ]

    static func run(_ bytes: [UInt8]) {
        do {
            let job = try JobFile.load(bytes: bytes, path: path, environment: environment, workingDirectory: "/fuzz")
            fuzzCheck(!job.sets.isEmpty, "a job loaded without sets")
            _ = job.summary.description
            for set in job.sets {
                switch set.urls.kind {
                case .list, .pattern:
                    var count = 0
                    for _ in set.urls.prefix(100) { count += 1 }
                    fuzzCheck(count == min(set.urls.count, 100), "set \(set.name) yielded \(count) of \(set.urls.count) URLs")
                case .file:
                    continue
                }
            }
        } catch {
            fuzzCheck(!error.diagnostics.isEmpty, "a job file refused without a diagnostic")
            for diagnostic in error.diagnostics {
                let line = diagnostic.description
                // One line per problem, whatever the file holds: no C0 or C1 control gets through, and
                // every line starts with the job file's own name, so none can pose as another file's.
                fuzzCheck(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                          "a diagnostic holds a control character: \(line.debugDescription)")
                fuzzCheck(line.hasPrefix(path + ":") || diagnostic.file != path,
                          "a diagnostic does not start with the file name: \(line.debugDescription)")
                fuzzCheck(diagnostic.line >= 0 && diagnostic.column >= 0, "a negative place: \(line.debugDescription)")
            }
        }
    }
}

/// libFuzzer's entry point: one input, always 0 (a finding is a crash or a failed `fuzzCheck`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    JobFileTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@main
struct JobFileFuzzer {
    static func main() {
        #if FUZZING
        FuzzMain.libFuzzer(fuzz)
        #else
        FuzzMain.replay(JobFileTarget.run)
        #endif
    }
}
