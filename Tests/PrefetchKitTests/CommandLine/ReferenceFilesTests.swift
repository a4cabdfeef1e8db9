import Foundation
import Testing

/// The man page and the shell completions the repository ships are what the command specs make of
/// them now (`prefetchd help --man`, `--completions`), `man` reads the page without a warning, bash
/// completes from the script, and zsh reads its file.
@Suite(.timeLimit(.minutes(2)))
struct ReferenceFilesTests {
    static func file(_ path: String) -> URL {
        CheckJSONSchema.repository.appendingPathComponent(path)
    }

    @Test(arguments: [
        (["help", "--man"], "docs/prefetchd.1"),
        (["help", "--completions", "bash"], "completions/prefetchd.bash"),
        (["help", "--completions", "zsh"], "completions/_prefetchd"),
    ] as [([String], String)])
    func theShippedFileIsTheOneTheSpecsMake(arguments: [String], path: String) throws {
        let made = try Binary.run(arguments)
        #expect(made.status == 0, "\(made.stderr)")
        let shipped = try String(contentsOf: Self.file(path), encoding: .utf8)
        #expect(made.stdout == shipped, "\(path) is out of date: prefetchd \(arguments.joined(separator: " ")) > \(path)")
    }

    static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Binary.Outcome {
        try Binary.tool([tool] + arguments, environment: environment)
    }

    @Test func manReadsThePageWithoutAWarning() throws {
        let page = Self.file("docs/prefetchd.1").path
        let outcome = try Self.run("man", ["--warnings", "-E", "UTF-8", "-l", page], environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("PREFETCHD(1)"))
        for section in ["NAME", "SYNOPSIS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT"] {
            #expect(outcome.stdout.contains("\n" + section + "\n"), "no \(section)")
        }
        // Every option of run, with its default, as --help lists it
        let rendered = outcome.stdout.replacing(try Regex("\\s+"), with: " ")
        for option in try HelpTextTests.options(of: "run") {
            #expect(rendered.contains(option.spelling), "\(option.spelling)")
        }
        #expect(rendered.contains("(default: auto)"))
    }

    /// What `_prefetchd` offers for the words typed so far, the last being completed.
    static func complete(_ words: [String]) throws -> [String] {
        let script = """
            source "$1"
            shift
            COMP_WORDS=("$@")
            COMP_CWORD=$(($# - 1))
            _prefetchd
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let outcome = try run("bash", ["--norc", "--noprofile", "-c", script, "bash", file("completions/prefetchd.bash").path] + words)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsOptionsAndChoices() throws {
        #expect(try Self.complete(["prefetchd", "r"]) == ["run", "remove"])
        #expect(try Self.complete(["prefetchd", "run", "--c"]) == ["--cache", "--concurrency"])
        #expect(try Self.complete(["prefetchd", "run", "job.yaml", "--progress", ""]) == ["auto", "always", "never"])
        #expect(try Self.complete(["prefetchd", "stats", "--format", "p"]) == ["prometheus"])
        #expect(try Self.complete(["prefetchd", "fsck", "--"]).sorted() == ["--cache", "--help", "--repair"])
        #expect(try Self.complete(["prefetchd", "help", "v"]) == ["verify"])
    }

    @Test func zshReadsTheCompletionAndDefinesIt() throws {
        let path = Self.file("completions/_prefetchd").path
        let syntax = try Self.run("zsh", ["-n", path])
        #expect(syntax.status == 0 && syntax.stderr.isEmpty, "\(syntax.stderr)")
        // Loaded by compinit from its folder, as a system's site-functions folder would hold it
        let folder = try TemporaryDirectory()
        let loaded = try Self.run("zsh", ["-f", "-c", """
            fpath=(\(Self.file("completions").path) $fpath)
            autoload -U compinit && compinit -u -d \(folder.path)/zcompdump
            print -r -- $_comps[prefetchd]
            autoload +X _prefetchd && whence -w _prefetchd
            """])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.stdout == "_prefetchd\n_prefetchd: function\n", "\(loaded.stdout) \(loaded.stderr)")
    }
}
