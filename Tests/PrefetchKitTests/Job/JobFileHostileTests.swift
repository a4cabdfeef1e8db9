import Foundation
import Testing
@testable import PrefetchKit

/// Job files written to break the loader or the terminal it prints to.
@Suite(.timeLimit(.minutes(1))) struct JobFileHostileTests {
    /// Documents nested far past any job's needs, block and flow: refused at the 65th level, at once.
    static let deepDocuments: [(name: String, text: String)] = [
        ("block sequences", "x:\n" + String(repeating: "- ", count: 70_000) + "a\n"),
        ("flow sequences", "x: " + String(repeating: "[", count: 40_000) + "\n"),
        ("flow mappings", "x: " + String(repeating: "{a: ", count: 20_000) + "\n"),
    ]

    @Test(arguments: deepDocuments.map(\.name))
    func aDeeplyNestedDocumentIsRefusedWithoutACrash(_ name: String) throws {
        let text = try #require(Self.deepDocuments.first { $0.name == name }).text
        let diagnostics = try TemporaryDirectory().diagnostics(text)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message == "collections nested more than 64 deep; refusing an oversized document",
                "\(diagnostics)")
    }

    @Test func sixtyFourLevelsAreRead() throws {
        // The root mapping and 63 lists: the reader takes it, and the decoder names the unknown key.
        let text = "version: 1\nx: " + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "\n"
        let diagnostics = try TemporaryDirectory().diagnostics(text)
        #expect(diagnostics.contains { $0.keyPath == "x" && $0.message.contains("unknown key `x`") }, "\(diagnostics)")
        let deeper = "version: 1\nx: " + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "\n"
        #expect(try TemporaryDirectory().diagnostics(deeper).map(\.message)
            == ["collections nested more than 64 deep; refusing an oversized document"])
    }

    @Test func aValueCannotForgeASecondDiagnosticLine() throws {
        let diagnostics = try TemporaryDirectory().diagnostics("""
            version: 1
            sets:
              - { name: a, priority: "high\\nfake.yaml:1:1: version: injected", urls: [] }
            """)
        let printed = JobFileError(diagnostics: diagnostics).description
        #expect(!printed.contains("\n"), "\(printed)")
        #expect(printed.contains("`high\\u{a}fake.yaml:1:1: version: injected`"), "\(printed)")
    }

    @Test func escapeSequencesInKeysAndValuesNeverReachTheTerminal() throws {
        let diagnostics = try TemporaryDirectory().diagnostics("""
            version: 1
            "\\e[31mred": 1
            sets:
              - { name: a, order: "\\e]0;owned\\a", urls: [] }
            """)
        let printed = JobFileError(diagnostics: diagnostics).description
        #expect(!printed.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(printed)")
        #expect(printed.contains("\\u{1b}[31mred"), "\(printed)")
        #expect(printed.contains("\\u{1b}]0;owned\\u{7}"), "\(printed)")
    }
}
