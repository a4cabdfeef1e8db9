import Foundation
import Testing
@testable import PrefetchKit

/// libavif and libjxl are opened (dlopen) on the first image of their format, not linked: a process
/// that decodes neither (a `verify`, a warm rerun) never loads them or the libraries under them, and one
/// that cannot open them says so in `--version` and fails that format's bodies with the loader's reason.
@Suite(.timeLimit(.minutes(3)))
struct DecoderLoadingTests {
    /// A folder holding a `libavif.so.15` and a `libjxl.so.0.7` that are no libraries, for
    /// LD_LIBRARY_PATH: the dynamic loader finds them before the installed ones and cannot open them.
    static func brokenDecoders(in folder: TemporaryDirectory) throws -> [String: String] {
        for library in ["libavif.so.15", "libjxl.so.0.7"] {
            _ = try folder.write("lib/" + library, "not a shared object\n")
        }
        return ["LD_LIBRARY_PATH": folder.path + "/lib"]
    }

    @Test func theBinaryLoadsNeitherLibavifNorLibjxlNorTheirCodecsAtStart() throws {
        let names = try Binary.librariesLoadedAtStart()
        #expect(names.contains("libwebp.so.7"), "\(names)")
        for library in ["libavif.so.15", "libjxl.so.0.7", "libdav1d.so.6", "libaom.so.3", "libhwy.so.1"] {
            #expect(!names.contains(library), "\(library) is loaded at start: \(names)")
        }
    }

    @Test func theVersionsAreAskedOfTheOpenedLibraries() throws {
        let outcome = try Binary.run(["--version"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("  libavif 0.11.") }, "\(outcome.stdout)")
        #expect(lines.contains { $0.hasPrefix("  libjxl 0.7.") }, "\(outcome.stdout)")
    }

    @Test func decodersThatCannotBeOpenedAreNotLoadableInVersionWithTheLoadersReason() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Binary.run(["--version"], environment: try Self.brokenDecoders(in: folder))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        for library in ["libavif", "libjxl"] {
            let line = try #require(outcome.stdout.split(separator: "\n").first { $0.hasPrefix("  \(library) ") }, "\(outcome.stdout)")
            #expect(line.hasPrefix("  \(library) not loadable (\(folder.path)/lib/\(library).so."), "\(line)")
        }
        #expect(outcome.stdout.contains("\n  libwebp ") && outcome.stdout.contains("\n  xxHash "), "\(outcome.stdout)")
    }

    /// The bodies fail as the decoder's failure (not the body's), with the loader's reason; the other
    /// formats of the run are stored as ever.
    @Test func decodersThatCannotBeOpenedFailTheirBodiesAsDecoderFailed() throws {
        let harness = try RunHarness()
        let files = ["libavif/kodim23_yuv420_8bpc.avif", "libjxl-conformance/animation_spline.jxl", "libwebp-test-data/lossless4.webp"]
        let job = try harness.job(sets: [harness.set("formats", files.map(RunFormatsTests.path))])
        let report = harness.folder.file("report.json").path

        let outcome = try Binary.run(["run", job, "--report", report, "--progress", "never", "--quiet"],
                                     environment: try Self.brokenDecoders(in: harness.folder))

        #expect(outcome.status != 0, "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.totals.fetched == 1, "\(written.totals)")
        let failures = Dictionary(uniqueKeysWithValues: written.failures.map { ($0.url, $0) })
        for (file, library) in [(files[0], "libavif"), (files[1], "libjxl")] {
            let failure = try #require(failures[harness.url(RunFormatsTests.path(file))], "\(written.failures)")
            #expect(failure.reason == "decoder_failed", "\(failure)")
            #expect(failure.message.contains("\(library) is not loadable: \(harness.folder.path)/lib/\(library).so."), "\(failure.message)")
        }
    }
}
