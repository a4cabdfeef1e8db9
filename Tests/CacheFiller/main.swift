// cache-filler CACHE_DIR COUNT [FIRST [QUERY_LENGTH]]
// Stores COUNT entries (numbers FIRST..<FIRST+COUNT) through DiskCache.store, the real store path:
// temp file, rename, batched index rows. URLs spread over 8 hosts and 5 sets, each with a query of
// QUERY_LENGTH characters (default none; long ones stand for signed URLs); bodies are 200-2,200
// bytes that sniff as JPEG. Prints the entries and bytes stored.
import Foundation
import PrefetchKit

let arguments = CommandLine.arguments
guard arguments.count >= 3, let count = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: cache-filler CACHE_DIR COUNT [FIRST [QUERY_LENGTH]]\n".utf8))
    exit(2)
}
let first = arguments.count >= 4 ? Int(arguments[3]) ?? 0 : 0
let queryLength = arguments.count >= 5 ? Int(arguments[4]) ?? 0 : 0
let query = queryLength > 0 ? "?sig=" + String(repeating: "x", count: queryLength) : ""

do {
    let cache = try DiskCache.open(at: arguments[1], layout: .native)
    var bytes: Int64 = 0
    for number in first..<(first + count) {
        let url = "https://img\(number % 8).example.com/catalog/\(number).jpg" + query
        let length = 200 + (number &* 7919) % 2_000
        var body = Data([0xFF, 0xD8, 0xFF, 0xE0])
        body.append(Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ number) }))
        try cache.store(data: body, as: NewEntry(url: url, key: url, setName: "set\(number % 5)", format: .jpeg))
        bytes += Int64(body.count)
    }
    try cache.flush()
    print("stored \(count) entries, \(bytes) bytes")
} catch {
    FileHandle.standardError.write(Data("cache-filler: \(error)\n".utf8))
    exit(1)
}
