import Foundation
import Testing
@testable import PrefetchKit

@Suite struct AtomicFileTests {
    @Test func aRegularFileIsReplacedWhole() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("report.json").path
        try AtomicFile.write(Data("old".utf8), to: path)
        try AtomicFile.write(Data("new".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report.json"])
    }

    @Test func throughALinkTheFileItNamesIsReplacedAndTheLinkKept() throws {
        let folder = try TemporaryDirectory()
        let real = folder.file("real.prom").path
        let link = folder.file("link.prom").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: real))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.prom")

        try AtomicFile.write(Data("new".utf8), to: link)

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.prom")
        #expect(try String(contentsOfFile: real, encoding: .utf8) == "new")
    }

    @Test func aFIFOIsWrittenIntoNotReplaced() throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.file("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = LockedData()
        let reader = Thread {
            received.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data())
        }
        reader.start()

        try AtomicFile.write(Data("metrics 1\n".utf8), to: fifo)

        for _ in 0..<100 where received.get() == nil { usleep(20_000) }
        #expect(received.get() == Data("metrics 1\n".utf8))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func whatCannotBeWrittenIsSaidBeforehand() throws {
        let folder = try TemporaryDirectory()
        #expect(AtomicFile.problem(writing: "") == "no file name given")
        #expect(AtomicFile.problem(writing: folder.path) == "\(folder.path) is a folder, not a file")
        #expect(AtomicFile.problem(writing: folder.file("none/r.json").path)?.hasSuffix("does not exist") == true)
        #expect(AtomicFile.problem(writing: folder.file("r.json").path) == nil)
        #expect(AtomicFile.problem(writing: "-") == nil)
        #expect(AtomicFile.problem(writing: "/dev/null") == nil)
    }

    final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        func set(_ value: Data) { lock.withLock { data = value } }
        func get() -> Data? { lock.withLock { data } }
    }
}
