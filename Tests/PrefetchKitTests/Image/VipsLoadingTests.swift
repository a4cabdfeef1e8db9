import Foundation
import Testing
@testable import PrefetchKit

/// libvips is opened (dlopen) on the first variant, not linked: a process that makes no variant
/// never loads it or the libraries under it, and one that cannot open it says so in `--version`
/// and fails the variant's URL with the loader's reason.
@Suite(.timeLimit(.minutes(3)))
struct VipsLoadingTests {
    /// A folder holding a `libvips.so.42` that is no library, for LD_LIBRARY_PATH: the dynamic loader
    /// finds it before the installed one and cannot open it.
    static func brokenLibvips(in folder: TemporaryDirectory) throws -> [String: String] {
        _ = try folder.write("lib/libvips.so.42", "not a shared object\n")
        return ["LD_LIBRARY_PATH": folder.path + "/lib"]
    }

    @Test func theBinaryLoadsNeitherLibvipsNorGLibAtStart() throws {
        let names = try Binary.librariesLoadedAtStart()
        #expect(names.contains("libpng16.so.16"), "\(names)")
        for library in ["libvips.so.42", "libglib-2.0.so.0", "libgobject-2.0.so.0", "libgio-2.0.so.0"] {
            #expect(!names.contains(library), "\(library) is loaded at start: \(names)")
        }
    }

    /// Sources/CVips/shim.h declares libvips' calls itself; compiled against libvips' and GLib's own
    /// headers (libvips-dev) by the toolchain's clang, which builds the package's C, its constants
    /// must have their values and its table's fields take the real functions with no conversion.
    @Test func theDeclaredCallsAndConstantsAreThoseOfLibvipsHeaders() throws {
        let flags = try DockerfileTests.tool("/usr/bin/pkg-config", ["--cflags", "vips"])
        try #require(flags.status == 0, "\(flags.stderr)")
        let repository = InstallScript.repository
        let outcome = try DockerfileTests.tool("/usr/bin/env", ["clang", "-fsyntax-only", "-Wall", "-Werror"]
            + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
            + ["-I", repository.appendingPathComponent("Sources/CVips").path,
               repository.appendingPathComponent("Tests/Fixtures/vips/declarations.c").path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
    }

    @Test func aLibvipsThatCannotBeOpenedIsNotLoadableInVersionWithTheLoadersReason() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Binary.run(["--version"], environment: try Self.brokenLibvips(in: folder))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let line = try #require(outcome.stdout.split(separator: "\n").first { $0.hasPrefix("  libvips ") }, "\(outcome.stdout)")
        #expect(line.hasPrefix("  libvips not loadable (\(folder.path)/lib/libvips.so.42: "), "\(line)")
        // The other libraries are listed as before
        #expect(outcome.stdout.contains("\n  libpng ") && outcome.stdout.contains("\n  xxHash "), "\(outcome.stdout)")
    }

    @Test func aLibvipsThatCannotBeOpenedFailsTheVariantsURLAsTransformFailed() throws {
        let harness = try RunHarness()
        let path = "/corpus/libjpeg-turbo-testimages/testorig.jpg"
        // A PNG variant of a JPEG: libvips' to make (a JPEG one takes the fast path, below).
        let job = try harness.job(sets: [harness.set("photos", [path], ["variants: [{name: thumb, max_pixel_size: 64, format: png}]"])])
        let report = harness.folder.file("report.json").path

        let outcome = try Binary.run(["run", job, "--report", report, "--progress", "never", "--quiet"],
                                     environment: try Self.brokenLibvips(in: harness.folder))

        #expect(outcome.status != 0, "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.failures.map(\.reason) == ["transform_failed"], "\(written.failures)")
        let message = try #require(written.failures.first?.message)
        #expect(message.contains("`thumb`") && message.contains("libvips is not loadable: \(harness.folder.path)/lib/libvips.so.42: "),
                "\(message)")
        // and, being this machine's trouble and not the URL's, it is not ledgered: with libvips back,
        // the next run fetches it and makes the variant
        let rerun = try Binary.run(["run", job, "--report", report, "--progress", "never", "--quiet"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try readReport(report).totals.fetched == 1)
    }

    /// WebP holds at most 16,383 pixels a side: an original taller than that, which a box of its
    /// width alone would keep at its size, is fitted within it.
    @Test func aWebPVariantIsFittedWithinWebPsLargestSide() throws {
        let folder = try TemporaryDirectory()
        let tall = try folder.write("tall.png", Data(ImageFixtures.png(width: 200, height: 20_000)))
        let made = try VariantMaker.make(VariantSpec(name: "w", box: .inside(width: 400, height: nil), format: .webp),
                                         fromFileAt: tall.path, format: .png)
        #expect(made.format == .webp && made.height == webpLargestSide && made.width <= 200, "\(made.width)x\(made.height)")
    }

    /// A JPEG variant of a JPEG is made without libvips (`TurboVariant`): the run stores it even when
    /// libvips cannot be opened.
    @Test func aJPEGVariantOfAJPEGNeedsNoLibvips() throws {
        let harness = try RunHarness()
        let path = "/corpus/libjpeg-turbo-testimages/testorig.jpg"
        let job = try harness.job(sets: [harness.set("photos", [path], ["variants: [{name: thumb, max_pixel_size: 64}]"])])

        let outcome = try Binary.run(["run", job, "--progress", "never", "--quiet"], environment: try Self.brokenLibvips(in: harness.folder))

        #expect(outcome.status == 0, "\(outcome.stderr)")
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        let original = try #require(try cache.lookup(key: harness.url(path)))
        let variant = try #require(try cache.variant(named: "thumb", ofOriginalAt: original.relativePath))
        #expect(variant.format == .jpeg && variant.width == 64 && variant.height == 42, "\(variant)")
    }
}
