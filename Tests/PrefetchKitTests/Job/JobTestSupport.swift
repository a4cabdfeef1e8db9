import Foundation
import Testing
@testable import PrefetchKit

/// The one diagnostic at `keyPath`, checked for place and message text.
func expectDiagnostic(
    _ diagnostics: [JobDiagnostic], line: Int, column: Int, keyPath: String, contains text: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let matching = diagnostics.filter { $0.keyPath == keyPath }
    guard let diagnostic = matching.first else {
        Issue.record("no diagnostic at \(keyPath) in:\n\(diagnostics.map(\.description).joined(separator: "\n"))", sourceLocation: sourceLocation)
        return
    }
    #expect(matching.count == 1, "several diagnostics at \(keyPath)", sourceLocation: sourceLocation)
    #expect(diagnostic.line == line && diagnostic.column == column, "\(diagnostic)", sourceLocation: sourceLocation)
    #expect(diagnostic.message.contains(text), "\(diagnostic)", sourceLocation: sourceLocation)
    let path = keyPath.isEmpty ? "" : "\(keyPath): "
    #expect(diagnostic.description == "\(diagnostic.file):\(line):\(column): \(path)\(diagnostic.message)", sourceLocation: sourceLocation)
    #expect(diagnostic.file.hasSuffix(".yaml") || diagnostic.file.hasSuffix(".txt"), sourceLocation: sourceLocation)
}
