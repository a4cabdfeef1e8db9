// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "prefetchd",
    products: [
        .executable(name: "prefetchd", targets: ["prefetchd"]),
    ],
    targets: [
        // C libraries from Debian's packages.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        .systemLibrary(name: "CIDN2", pkgConfig: "libidn2", providers: [.apt(["libidn2-dev"])]),
        // Content codings a server may send anyway.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        // Image decoders beyond PNG and JPEG.
        .systemLibrary(name: "CGIF", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // No pkgConfig for these two: their .pc files add -D flags SwiftPM refuses; the headers are in
        // the default paths. Declarations only, no link: CShims opens each with dlopen on the first
        // image of its format, so that a process that decodes none (a `verify`, a warm rerun) does
        // not load them and the 25 libraries under them at start.
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        // The variants' transform beyond the JPEG fast path (thumbnail, orientation, resampling, colour
        // profiles, encoding): declarations only, no pkgConfig and no link. CShims opens libvips with
        // dlopen on the first variant that needs it, so that the 60-odd libraries under it are not
        // loaded by every process.
        .systemLibrary(name: "CVips", providers: [.apt(["libvips-dev"])]),
        // The only hand-written C: typed curl_easy_setopt wrappers, setjmp-guarded png/jpeg calls, the
        // JPEG variants' fast path (area averaging, orientation, libjpeg-turbo's encoder), the
        // capture of what libjxl and dav1d print on stderr, the opening of libavif, libjxl and
        // libvips on first use, and SQLite's variadic configuration call.
        .target(name: "CShims", dependencies: ["CCurl", "CPNG", "CJPEG", "CSQLite", "CVips", "CAVIF", "CJXL"]),
        .target(
            name: "PrefetchKit",
            dependencies: ["CCurl", "CYAML", "CPNG", "CJPEG", "CSQLite", "CCrypto", "CXXHash", "CIDN2", "CShims",
                           "CGIF", "CWebP", "CAVIF", "CJXL", "CZlib", "CBrotli"]
        ),
        .executableTarget(name: "prefetchd", dependencies: ["PrefetchKit"]),
        .testTarget(name: "PrefetchKitTests", dependencies: ["PrefetchKit"]),
        // Stores cache entries in a loop until killed; the crash test SIGKILLs it and checks the cache.
        .executableTarget(name: "store-torture", dependencies: ["PrefetchKit"], path: "Tests/StoreTorture"),
        // Fills a cache through the real store path (the maintenance benchmark and tests).
        .executableTarget(name: "cache-filler", dependencies: ["PrefetchKit"], path: "Tests/CacheFiller"),
        // Times `path` lookups on a filled cache (the cache benchmark).
        .executableTarget(name: "cache-probe", dependencies: ["PrefetchKit"], path: "Tests/CacheProbe"),
        // libFuzzer targets (fuzz/README.md): built with -D FUZZING by scripts/fuzz, and otherwise as
        // replayers of saved inputs, which the regression test runs over fuzz/crashes/.
        .target(name: "FuzzDriver", path: "fuzz/Driver"),
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"], path: "fuzz/Support"),
        .executableTarget(name: "fuzz-job-file", dependencies: ["PrefetchKit", "FuzzSupport"], path: "fuzz/job-file"),
        .executableTarget(name: "fuzz-url-pattern", dependencies: ["PrefetchKit", "FuzzSupport"], path: "fuzz/url-pattern"),
        .executableTarget(name: "fuzz-image", dependencies: ["PrefetchKit", "FuzzSupport"], path: "fuzz/image"),
        .executableTarget(name: "fuzz-http-headers", dependencies: ["PrefetchKit", "FuzzSupport"], path: "fuzz/http-headers"),
    ],
    swiftLanguageModes: [.v6]
)
