import Foundation
import Testing
@testable import PrefetchKit

/// The JSON lists bound as one parameter (`verify`'s paths, a batch's uses) read back by SQLite's
/// `json_each` as they were written, whatever characters they hold.
@Suite struct IndexValueListTests {
    static let texts = ["ab/cd.jpg", "", "quote\"d", "back\\slash", "tab\there\u{1}and\u{1F}", "ünï/🙂.png"]

    @Test func textsComeBackAsTheyWere() throws {
        let folder = try TemporaryDirectory()
        let database = try IndexDatabase(path: folder.file("lists.sqlite").path)
        let statement = try IndexStatement(database, "SELECT value FROM json_each(?1) ORDER BY key")
        try statement.bind([.textList(Self.texts)])
        var back: [String?] = []
        while try statement.step() { back.append(statement.text(0)) }
        #expect(back == Self.texts)
    }

    @Test func pathsAndTimesComeBackAsTheyWere() throws {
        let folder = try TemporaryDirectory()
        let database = try IndexDatabase(path: folder.file("lists.sqlite").path)
        let touches = Dictionary(uniqueKeysWithValues: Self.texts.enumerated().map { ($1, 1_764_600_000.25 + Double($0)) })
        let statement = try IndexStatement(
            database, "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1)")
        try statement.bind([.touchList(touches.map { ($0.key, $0.value) })])
        var back: [String: Double] = [:]
        while try statement.step() { back[statement.text(0) ?? "nil"] = statement.double(1) }
        #expect(back == touches)
    }
}
