import Foundation
import Testing
@testable import PrefetchKit

/// Resident memory of this process, from /proc/self/statm.
private func residentBytes() throws -> Int {
    let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
    let pages = try #require(Int(fields[1]))
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

@Suite(.serialized) struct URLSourceStreamingTests {
    static let memoryBound = 50 << 20

    @Test func tenMillionPatternURLsAreCountedWithoutMemory() throws {
        let folder = try TemporaryDirectory()
        let before = try residentBytes()
        let job = try folder.load("""
            version: 1
            sets:
              - { name: big, url_pattern: "https://cdn.example/{a,b,c,d,e,f,g,h,i,j}/[0000000-0999999].jpg" }
            """)
        let urls = job.sets[0].urls
        #expect(urls.count == 10_000_000)
        var iterator = urls.makeIterator()
        var seen = 0
        var last = ""
        while seen < 200_000, let url = iterator.next() {
            seen += 1
            last = url
        }
        #expect(seen == 200_000)
        #expect(last == "https://cdn.example/a/0199999.jpg")
        #expect(iterator.next() == "https://cdn.example/a/0200000.jpg")
        #expect(try residentBytes() - before < Self.memoryBound)
    }

    @Test func aMillionLineURLFileIsStreamed() throws {
        // Given a URL file of a million lines, about 70 MB, written in chunks.
        let folder = try TemporaryDirectory()
        let file = "\(folder.path)/urls.txt"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: file))
        for chunk in 0..<100 {
            var text = "# chunk \(chunk)\n"
            for line in 0..<10_000 {
                text += "https://images.example.com/catalog/products/\(chunk)/\(line)/picture-large.jpg\n"
            }
            handle.write(Data(text.utf8))
        }
        try handle.close()
        let before = try residentBytes()

        // When the job is loaded (which checks and counts every line) and the set is iterated,
        let job = try folder.load("version: 1\nsets:\n  - { name: file, url_file: urls.txt }\n")
        var iterator = job.sets[0].urls.makeIterator()
        var count = 0
        var last = ""
        while let url = iterator.next() {
            count += 1
            last = url
        }

        // then every URL is seen and memory stays bounded.
        #expect(job.sets[0].urls.count == 1_000_000)
        #expect(count == 1_000_000)
        #expect(iterator.failure == nil)
        #expect(last == "https://images.example.com/catalog/products/99/9999/picture-large.jpg")
        #expect(try residentBytes() - before < Self.memoryBound)
    }

    @Test func entriesSpanningBufferBoundariesAndAFinalLineWithoutNewline() throws {
        let folder = try TemporaryDirectory()
        let long = "https://x.example/" + String(repeating: "p", count: 70_000) + ".png"
        try folder.write("urls.txt", "\r\n  # note\n\(long)\r\n\thttps://x.example/2.png\nhttps://x.example/3.png")
        let job = try folder.load("version: 1\nsets:\n  - { name: file, url_file: urls.txt }\n")
        #expect(Array(job.sets[0].urls) == [long, "https://x.example/2.png", "https://x.example/3.png"])
        #expect(job.sets[0].urls.count == 3)
    }

    @Test func aByteOrderMarkBeforeTheFirstURLIsNotPartOfIt() throws {
        let folder = try TemporaryDirectory()
        try folder.write("urls.txt", "\u{FEFF}https://x.example/1.png\r\nhttps://x.example/2.png\r\n")
        let job = try folder.load("version: 1\nsets:\n  - { name: file, url_file: urls.txt }\n")
        #expect(Array(job.sets[0].urls) == ["https://x.example/1.png", "https://x.example/2.png"])
    }

    @Test func aURLFileRemovedAfterLoadingEndsIterationWithAFailure() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("urls.txt", "https://x.example/1.png\n").path
        let job = try folder.load("version: 1\nsets:\n  - { name: file, url_file: urls.txt }\n")
        try FileManager.default.removeItem(atPath: file)
        var iterator = job.sets[0].urls.makeIterator()
        #expect(iterator.next() == nil)
        let failure = try #require(iterator.failure)
        #expect(failure.keyPath == "sets[0].url_file")
        #expect(failure.description.contains("No such file or directory"))
    }
}
