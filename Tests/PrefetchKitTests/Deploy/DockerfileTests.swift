import Foundation
import Testing
@testable import PrefetchKit

/// The Dockerfile cannot be built here (no container engine), so its runtime stage is held to what
/// Debian's package data and the built binary say: every package it installs exists in Debian 12, each
/// C library Package.swift links has its runtime package there, and every shared library `prefetchd`
/// loads comes from those packages (with what they depend on) or from the base image.
@Suite(.timeLimit(.minutes(3))) struct DockerfileTests {
    static let dockerfile = InstallScript.repository.appendingPathComponent("Dockerfile")
    /// In debian:12-slim already (apt itself needs them).
    static let basePackages = ["libc6", "libgcc-s1", "libstdc++6"]

    /// The packages the last stage's `apt-get install` names.
    static func runtimePackages() throws -> [String] {
        let text = try String(contentsOf: dockerfile, encoding: .utf8)
        let lastStage = try #require(text.components(separatedBy: "\nFROM ").last)
        let install = try #require(lastStage.range(of: "apt-get install"))
        let end = try #require(lastStage.range(of: "&&", range: install.upperBound..<lastStage.endIndex))
        return lastStage[install.upperBound..<end.lowerBound].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\\" })
            .map(String.init).filter { !$0.hasPrefix("-") }
    }

    /// The `.apt([...])` packages of Package.swift's system libraries.
    static func developmentPackages() throws -> [String] {
        let manifest = try String(contentsOf: InstallScript.repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        return manifest.matches(of: #/\.apt\(\[([^\]]*)\]\)/#).flatMap { match in
            match.output.1.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
        }
    }

    static func tool(_ path: String, _ arguments: [String]) throws -> Binary.Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        return try Binary.outcome(of: process)
    }

    /// `Depends:` of each of `packages` in Debian's package lists, as `name (= version)` items, from one
    /// `apt-cache show`; the test fails for a package the lists do not have.
    static func depends(_ packages: [String]) throws -> [String: [String]] {
        let shown = try tool("/usr/bin/apt-cache", ["show", "--no-all-versions"] + packages)
        var found: [String: [String]] = [:]
        for stanza in shown.stdout.components(separatedBy: "\n\n") {
            let lines = stanza.split(separator: "\n")
            guard let name = lines.first(where: { $0.hasPrefix("Package: ") })?.dropFirst("Package: ".count) else { continue }
            let line = lines.first { $0.hasPrefix("Depends: ") } ?? ""
            found[String(name)] = line.dropFirst("Depends: ".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        for package in packages {
            #expect(found[package] != nil, "apt-cache knows no \(package): \(shown.stderr)")
        }
        return found
    }

    /// Whether the installed `package` ships a `lib*.so.N` (scripts/bootstrap installs the -dev
    /// packages, and so the packages they depend on).
    static func holdsSharedLibrary(_ package: String) throws -> Bool {
        let listed = try tool("/usr/bin/dpkg", ["-L", package])
        try #require(listed.status == 0, "\(package) is not installed: \(listed.stderr)")
        return listed.stdout.split(separator: "\n").contains { $0.split(separator: "/").last?.contains(".so.") == true }
    }

    @Test func everyRuntimePackageExistsInDebian() throws {
        let packages = try Self.runtimePackages()
        #expect(packages.count >= 15 && packages.contains("ca-certificates"), "\(packages)")
        #expect(try Self.depends(packages).count == packages.count)
    }

    /// A -dev package depends on its libraries at exactly its own version (`libpng-dev` on
    /// `libpng16-16 (= 1.6.39-...)`): those of them that hold a shared library (`dpkg -L` lists a
    /// `.so.N`) are the runtime packages the image needs.
    @Test func eachLinkedLibrarysRuntimePackageIsInstalled() throws {
        let runtime = Set(try Self.runtimePackages())
        let development = try Self.developmentPackages()
        #expect(development.count == 15, "\(development)")
        let depends = try Self.depends(development)
        for package in development {
            let pinned = try (depends[package] ?? []).filter { $0.contains("(= ") }.map { String($0.prefix { $0 != " " }) }
                .filter { try Self.holdsSharedLibrary($0) }
            #expect(!pinned.isEmpty, "\(package) names no runtime library")
            for library in pinned {
                #expect(runtime.contains(library), "\(package) links \(library), which the Dockerfile does not install")
            }
        }
    }

    /// Each shared library the built binary loads (ldd) belongs (dpkg -S) to a runtime package or to
    /// one they depend on, or to the base image. The Swift runtime, which the release build links in
    /// (--static-swift-stdlib), is the one exception.
    @Test func everySharedLibraryTheBinaryLoadsComesFromThoseOrTheBase() throws {
        let loaded = try Self.tool("/usr/bin/ldd", [Binary.url.path])
        try #require(loaded.status == 0, "\(loaded.stderr)")
        var names: [String] = []
        for line in loaded.stdout.split(separator: "\n") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 3, fields[1] == "=>" else { continue }
            let path = String(fields[2])
            if !path.hasPrefix("/lib/") && !path.hasPrefix("/usr/lib/") {
                let name = String(fields[0])
                let swiftRuntime = ["libswift", "lib_Foundation", "libFoundation", "libdispatch", "libBlocksRuntime"].contains { name.hasPrefix($0) }
                #expect(swiftRuntime, "\(name) comes from \(path), which no Debian package provides")
                continue
            }
            names.append(String(fields[0]))
        }
        #expect(names.count >= 20, "\(loaded.stdout)")

        let owners = try Self.tool("/usr/bin/dpkg", ["-S"] + names.map { "*/\($0)" })
        var ownerOf: [String: String] = [:]
        for line in owners.stdout.split(separator: "\n") where !line.hasPrefix("diversion") {
            guard let colon = line.range(of: ": ") else { continue }
            let path = line[colon.upperBound...]
            let package = line[..<colon.lowerBound].split(separator: ",").first.map { String($0.split(separator: ":").first ?? $0) } ?? ""
            ownerOf[String(path.split(separator: "/").last ?? path)] = package.trimmingCharacters(in: .whitespaces)
        }

        let roots = try Self.runtimePackages() + Self.basePackages
        let closure = try Self.tool("/usr/bin/apt-cache", ["depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
                                                           "--no-breaks", "--no-replaces", "--no-enhances"] + roots)
        try #require(closure.status == 0, "\(closure.stderr)")
        let available = Set(closure.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.hasPrefix("<") }.map(String.init))
        for name in names {
            let owner = try #require(ownerOf[name], "dpkg knows no package holding \(name)")
            #expect(available.contains(owner), "\(name) comes from \(owner), which the image would not have")
        }
    }
}
