import Foundation
import Testing
@testable import PrefetchKit

/// `deploy/kubernetes/`: every manifest, as written and as the kustomization renders it (for N as
/// shipped and for another N), passes `kubernetes-validate --strict` for the Kubernetes versions the
/// README documents, with the tool's own schemas (no network); and the manifests hold together: one N
/// everywhere, an Indexed Job, the Dockerfile's image, and prefetchd commands and options that exist.
@Suite(.timeLimit(.minutes(3))) struct KubernetesManifestTests {
    static let folder = InstallScript.repository.appendingPathComponent("deploy/kubernetes")
    static let venv = InstallScript.repository.appendingPathComponent(".build/venv/bin")
    /// The versions README.md's "Running at scale" names.
    static let versions = ["1.30.0", "1.33.0"]

    static func manifests() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") && $0 != "kustomization.yaml" }
            .sorted().map { folder.path + "/" + $0 }
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Binary.Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        return try Binary.outcome(of: process)
    }

    static func validate(_ files: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tool = venv.appendingPathComponent("kubernetes-validate").path
        try #require(FileManager.default.isExecutableFile(atPath: tool),
                     "kubernetes-validate is missing: scripts/pytools installs it into .build/venv", sourceLocation: sourceLocation)
        for version in versions {
            let outcome = try run(tool, ["--strict", "--kubernetes-version", version] + files)
            #expect(outcome.status == 0, "Kubernetes \(version): \(outcome.stdout)\(outcome.stderr)", sourceLocation: sourceLocation)
            let passed = outcome.stdout.split(separator: "\n").filter { $0.contains(" passed for resource ") }
            #expect(passed.count >= files.count, "Kubernetes \(version): \(outcome.stdout)", sourceLocation: sourceLocation)
        }
    }

    /// The kustomization rendered by Tests/Fixtures/kustomize_subset.py (the part of kustomize it
    /// uses, refusing any other key), from a copy of the folder whose N is `shards` when given.
    static func render(shards: Int? = nil, into output: TemporaryDirectory) throws -> (documents: [[String: Any]], files: [String]) {
        let source = output.path + "/source"
        try FileManager.default.copyItem(atPath: folder.path, toPath: source)
        if let shards {
            let path = source + "/kustomization.yaml"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let changed = text.replacingOccurrences(of: #"path: /spec/completions, value: \d+"#, with: "path: /spec/completions, value: \(shards)",
                                                    options: .regularExpression)
            try #require(changed != text, "kustomization.yaml sets no /spec/completions")
            try changed.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let script = InstallScript.repository.appendingPathComponent("Tests/Fixtures/kustomize_subset.py").path
        let outcome = try run(venv.appendingPathComponent("python3").path, [script, source, output.path + "/rendered"])
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let documents = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
        let files = try FileManager.default.contentsOfDirectory(atPath: output.path + "/rendered").sorted().map { output.path + "/rendered/" + $0 }
        return (documents, files)
    }

    static func resource(_ documents: [[String: Any]], kind: String, name: String) throws -> [String: Any] {
        try #require(documents.first { $0["kind"] as? String == kind && ($0["metadata"] as? [String: Any])?["name"] as? String == name },
                     "no \(kind) \(name)")
    }

    /// Every container and init container of every pod template (a CronJob's through its job template).
    static func containers(_ documents: [[String: Any]]) -> [[String: Any]] {
        documents.flatMap { document -> [[String: Any]] in
            let spec = document["spec"] as? [String: Any]
            let jobTemplate = (spec?["jobTemplate"] as? [String: Any])?["spec"] as? [String: Any]
            let pod = ((spec?["template"] ?? jobTemplate?["template"]) as? [String: Any])?["spec"] as? [String: Any]
            return ((pod?["containers"] as? [[String: Any]]) ?? []) + ((pod?["initContainers"] as? [[String: Any]]) ?? [])
        }
    }

    static func environment(_ container: [String: Any], _ name: String) -> String? {
        (container["env"] as? [[String: Any]])?.first { $0["name"] as? String == name }?["value"] as? String
    }

    @Test func everyManifestAsWrittenIsValid() throws {
        let files = try Self.manifests()
        #expect(files.count == 6, "\(files)")
        try Self.validate(files)
    }

    @Test(arguments: [nil, 8]) func theRenderedKustomizationIsValidWithOneNEverywhere(shards: Int?) throws {
        let output = try TemporaryDirectory()
        let (documents, files) = try Self.render(shards: shards, into: output)
        try Self.validate(files)

        let shard = try #require(try Self.resource(documents, kind: "Job", name: "prefetchd-shard")["spec"] as? [String: Any])
        let completions = try #require(shard["completions"] as? Int)
        #expect(completions == shards ?? 3)
        #expect(shard["parallelism"] as? Int == completions)
        #expect(shard["completionMode"] as? String == "Indexed")
        let shardContainer = try #require(Self.containers([try Self.resource(documents, kind: "Job", name: "prefetchd-shard")]).first)
        #expect(Self.environment(shardContainer, "PREFETCHD_SHARDS") == String(completions))
        let waiting = Self.containers([try Self.resource(documents, kind: "Job", name: "prefetchd-merge")]).first { $0["name"] as? String == "wait-for-shards" }
        #expect(waiting.flatMap { Self.environment($0, "PREFETCHD_SHARDS") } == String(completions))
    }

    /// The image the Dockerfile documents building (`docker build -t prefetchd:VERSION .`), the version
    /// the binary prints, on every prefetchd container.
    @Test func everyPrefetchdContainerRunsTheDockerfilesImage() throws {
        let dockerfile = try String(contentsOf: DockerfileTests.dockerfile, encoding: .utf8)
        let tag = try #require(dockerfile.firstMatch(of: #/docker build -t (prefetchd:\S+) \./#)?.output.1)
        #expect(tag == "prefetchd:\(PrefetchVersion.string)")
        let output = try TemporaryDirectory()
        let images = Self.containers(try Self.render(into: output).documents).compactMap { $0["image"] as? String }
            .filter { $0.hasPrefix("prefetchd") }
        #expect(images.count == 4, "\(images)")  // shard, merge and its wait, clean
        #expect(Set(images) == [String(tag)])
    }

    /// Each `prefetchd COMMAND ... --option` in the containers' scripts is a command the binary has,
    /// and its --help names each option.
    @Test func theContainersRunCommandsAndOptionsThatExist() throws {
        let output = try TemporaryDirectory()
        let scripts = Self.containers(try Self.render(into: output).documents).filter { ($0["image"] as? String)?.hasPrefix("prefetchd") == true }
            .flatMap { ($0["args"] as? [String]) ?? [] }
        var invocations: [(command: String, options: [String])] = []
        for line in scripts.flatMap({ $0.split(separator: "\n") }) {
            guard let match = line.firstMatch(of: #/(?:^|\s)prefetchd\s+([a-z]+)(.*)$/#) else { continue }
            let options = match.output.2.split(separator: " ").filter { $0.hasPrefix("--") }.map { String($0.prefix { $0 != "=" }) }
            invocations.append((String(match.output.1), options))
        }
        #expect(Set(invocations.map(\.command)) == ["run", "merge", "export", "clean", "stats"], "\(invocations)")
        for (command, options) in invocations {
            let help = try Binary.run(["help", command])
            #expect(help.status == 0 && help.stdout.hasPrefix("Usage: prefetchd \(command)"), "prefetchd has no command \(command)")
            for option in options {
                #expect(help.stdout.contains(option + " ") || help.stdout.contains(option + "\n"),
                        "prefetchd \(command) has no \(option)")
            }
        }
    }

    /// The ConfigMap's job file is one `prefetchd check` accepts.
    @Test func theConfigMapsJobFileChecks() throws {
        let output = try TemporaryDirectory()
        let configMap = try Self.resource(try Self.render(into: output).documents, kind: "ConfigMap", name: "prefetchd-job")
        let job = try #require((configMap["data"] as? [String: String])?["job.yaml"])
        let path = try output.write("job.yaml", job).path
        let checked = try Binary.run(["check", path])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
    }
}
