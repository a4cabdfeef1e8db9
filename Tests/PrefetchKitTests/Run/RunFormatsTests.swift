import Foundation
import Testing
@testable import PrefetchKit

/// Runs over the vendored GIF, WebP, AVIF and JPEG XL corpus served by the fixture server: sound
/// images are stored with their frames, broken ones fail with their reason, bombs fail from their
/// headers with little memory, and what the libraries print never reaches the terminal.
@Suite(.timeLimit(.minutes(2))) struct RunFormatsTests {
    static let stored: [(file: String, format: String, frames: Int)] = [
        ("giflib/fire.gif", "gif", 33),
        ("libwebp-test-data/lossless4.webp", "webp", 1),
        ("image-webp/random_lossy.webp", "webp", 4),
        ("libavif/kodim23_yuv420_8bpc.avif", "avif", 1),
        ("libavif/colors-animated-8bpc.avif", "avif", 5),
        ("libjxl-conformance/animation_spline.jxl", "jxl", 60),
    ]
    /// The four (a cut GIF, a GIF that is junk after its signature, a cut WebP, a WebP whose RIFF
    /// size lies) and one cut file of each other format.
    static let refused: [(file: String, reason: String)] = [
        ("generated/gif_trunc_screen_desc.gif", "truncated"),
        ("generated/gif_lzw_ff_run_porsche.gif", "corrupt"),
        ("generated/webp_trunc_chunk_header.webp", "truncated"),
        ("generated/webp_riff_size_too_small.webp", "corrupt"),
        ("generated/avif_trunc50_kodim23.avif", "truncated"),
        ("generated/jxl_payload_ff_grayscale.jxl", "corrupt"),
    ]

    static func path(_ file: String) -> String { "/corpus/gif-webp-avif/" + file }

    @Test func soundImagesAreStoredWithTheirFramesAndBrokenOnesFail() throws {
        let harness = try RunHarness()
        let files = Self.stored.map(\.file) + Self.refused.map(\.file) + ["image-png-bugfixes/bugfixes/issue%23430.png"]
        let job = try harness.job(sets: [harness.set("formats", files.map {
            $0.hasPrefix("image-png") ? "/corpus/" + $0 : Self.path($0)
        })])
        let result = try harness.run([job])

        #expect(result.report.totals.fetched == Self.stored.count + 1)
        #expect(Dictionary(uniqueKeysWithValues: result.report.failures.map { ($0.url, $0.reason) })
                == Dictionary(uniqueKeysWithValues: Self.refused.map { (harness.url(Self.path($0.file)), $0.reason) }))
        #expect(result.report.warnings == ["png_ancillary_crc": 1])
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        for image in Self.stored {
            let entry = try #require(try cache.lookup(key: harness.url(Self.path(image.file))))
            #expect(entry.format?.rawValue == image.format && entry.frames == image.frames, "\(image.file): \(entry)")
        }
        let byFormat = try CacheStats.collect(from: cache).byFormat
        #expect(Dictionary(uniqueKeysWithValues: byFormat.map { ($0.name, $0.frames) })
                == ["gif": 33, "webp": 5, "avif": 6, "jxl": 60, "png": 1])
    }

    /// fsck decode-checks every stored format: bodies a `validate: header` set let in, sound by their
    /// headers but cut short in their data, are found.
    @Test func fsckDecodeChecksTheNewFormats() throws {
        let harness = try RunHarness()
        let sound = try harness.job("sound", sets: [harness.set("formats", Self.stored.map { Self.path($0.file) })])
        try harness.run([sound])
        #expect(try Binary.run(["fsck", "--cache", harness.cachePath]).status == 0)
        let cut = ["generated/gif_trunc50_porsche.gif", "generated/webp_trunc50_lossy.webp"]
        let lenient = try harness.job("lenient", defaults: ["validate": "header"],
                                      sets: [harness.set("cut", cut.map(Self.path))])
        #expect(try harness.run([lenient]).report.totals.fetched == 2)
        let fsck = try Binary.run(["fsck", "--cache", harness.cachePath])
        #expect(fsck.status != 0)
        #expect(fsck.stdout.components(separatedBy: "truncated").count - 1 == 2, "\(fsck.stdout)\(fsck.stderr)")
    }

    /// A small file claiming 100,000 x 100,000 pixels, 100,000 frames or a 268 M pixel canvas fails from
    /// its header, and the whole run stays far under 1 GiB resident; libjxl's and dav1d's traces are the
    /// failures' details, not lines on the terminal.
    @Test func bombsFailFromTheirHeadersInLittleMemory() throws {
        let harness = try RunHarness()
        let bombs = [
            "avif_bomb_10000x10000.avif", "avif_ispe_100000x100000.avif", "jxl_bomb_10000x10000.jxl",
            "jxl_claims_100000x100000.jxl", "gif_anim_100000_frames_4000x4000.gif", "gif_lzw_bomb_10000x10000.gif",
            "gif_frame_65535x65535.gif", "gif_screen_65535x65535.gif", "webp_vp8l_16384x16384_flat.webp",
            "webp_anim_canvas_10000x10000.webp", "webp_anim_1000_frames_4000x4000.webp", "webp_vp8x_canvas_100000x100000.webp",
        ].map { "generated/" + $0 }
        let traced = ["generated/jxl_payload_ff_grayscale.jxl", "generated/avif_mdat_obu_header_ff.avif"]
        let job = try harness.job(defaults: ["concurrency": "2", "per_host": "2"], sets: [harness.set("bombs", (bombs + traced).map(Self.path))])
        let report = harness.folder.file("report.json").path
        let measured = try Self.runMeasured(["run", job, "--report", report, "--progress", "never"])
        try #require(FileManager.default.fileExists(atPath: report), "\(measured.outcome.stderr)")

        #expect(measured.peakKiB < 1 << 20, "peak RSS \(measured.peakKiB) KiB")
        let failures = try readReport(report).failures
        #expect(failures.count == bombs.count + traced.count)
        for failure in failures where bombs.contains(where: { failure.url.hasSuffix($0) }) {
            #expect(["too_many_pixels", "too_many_frames"].contains(failure.reason), "\(failure.url): \(failure.message)")
        }
        let jxl = try #require(failures.first { $0.url.hasSuffix(traced[0]) })
        #expect(jxl.message.contains("ANS decode final state failed"), "\(jxl.message)")
        let avif = try #require(failures.first { $0.url.hasSuffix(traced[1]) })
        #expect(avif.message.contains("Unknown OBU type"), "\(avif.message)")
        #expect(measured.outcome.status == 1, "\(measured.outcome.stderr)")
        // Every line on the terminal is prefetchd's own (a failed URL's gives the failure's words, the
        // trace among them) or the measuring parent's; none is the libraries'.
        #expect(!measured.outcome.stderr.contains("JXL_FAILURE"), "\(measured.outcome.stderr)")
        let lines = measured.outcome.stderr.split(separator: "\n").filter { !$0.hasPrefix("peak-kib ") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z prefetchd: .*/) != nil },
                "\(measured.outcome.stderr)")
    }

    /// Runs prefetchd as the only child of a Python process that reports the child's peak resident set.
    static func runMeasured(_ arguments: [String]) throws -> (outcome: Binary.Outcome, peakKiB: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import resource, subprocess, sys
            code = subprocess.run(sys.argv[1:]).returncode
            print("peak-kib", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
            sys.exit(code)
            """, Binary.url.path] + arguments
        let outcome = try Binary.outcome(of: process)
        let line = try #require(outcome.stderr.split(separator: "\n").last { $0.hasPrefix("peak-kib ") })
        return (outcome, try #require(Int(line.dropFirst("peak-kib ".count))))
    }
}
