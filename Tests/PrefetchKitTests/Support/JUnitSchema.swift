import Foundation
import Testing

/// Checks a JUnit file against the xUnit plugin's published JUnit schema (Tests/Fixtures/junit/) with
/// `xmllint --schema`. Without `xmllint` (Debian's libxml2-utils, which scripts/test installs) the
/// check fails: a report no one validated is not taken as valid.
enum JUnitSchema {
    static let schema = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // PrefetchKitTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/junit/junit-10.xsd")

    static let xmllint = ["/usr/bin/xmllint", "/bin/xmllint"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Records an issue, with xmllint's words, unless the file at `path` is well-formed XML 1.0 valid
    /// against the schema.
    static func expectValid(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tool = try #require(xmllint, "xmllint is not installed (Debian package libxml2-utils; scripts/test installs it)",
                                sourceLocation: sourceLocation)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--noout", "--schema", schema.path, path]
        let outcome = try Binary.outcome(of: process)
        #expect(outcome.status == 0, "\(path) is not valid JUnit XML: \(outcome.stderr)", sourceLocation: sourceLocation)
    }
}
