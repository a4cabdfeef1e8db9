import FuzzDriver
import Foundation

/// The two mains of a fuzz executable: libFuzzer's driver in the fuzz build (`-D FUZZING`), the
/// replayer of saved inputs otherwise.
public enum FuzzMain {
    /// Hands the process to libFuzzer, which calls `testOneInput` (the target's
    /// `LLVMFuzzerTestOneInput`) and takes libFuzzer's own arguments (`-max_total_time=60 CORPUS...`).
    public static func libFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(pf_fuzz_run_driver(&argc, &argv, testOneInput))
    }

    /// The replayer (the normal build, CI and the regression test): runs `target` over saved inputs,
    /// one file at a time.
    ///
    /// Each argument is a file or a folder; a folder's files (not its subfolders, not names starting
    /// with `.`) run in name order. Before each input its path goes to stderr, so a crash names the
    /// input that caused it. Exits 0 after the last one, 2 when an argument cannot be read.
    public static func replay(_ target: ([UInt8]) -> Void) -> Never {
        let arguments = CommandLine.arguments.dropFirst()
        guard !arguments.isEmpty else {
            fail("usage: \(CommandLine.arguments.first ?? "fuzz-replay") FILE-OR-FOLDER...")
        }
        var count = 0
        for argument in arguments {
            for file in files(argument) {
                guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
                FileHandle.standardError.write(Data("replaying \(file)\n".utf8))
                target([UInt8](data))
                count += 1
            }
        }
        print("replayed \(count) input\(count == 1 ? "" : "s")")
        exit(0)
    }

    private static func files(_ argument: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
            fail("no such file or folder: \(argument)")
        }
        guard isFolder.boolValue else { return [argument] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: argument) else {
            fail("cannot list \(argument)")
        }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(argument)/\($0)" }.filter { path in
            var isSubfolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isSubfolder) && !isSubfolder.boolValue
        }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
        exit(2)
    }
}

/// Stops the process when a property of the code under test does not hold: a crash the fuzzer
/// records like any other, with `message` on stderr.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("fuzz check failed: \(message())\n".utf8))
    abort()
}
