// store-torture CACHE_DIR [native|sdwebimage [KEYS]]
// Stores entries into the cache in an endless loop, streaming each body in small chunks, so that a
// SIGKILL lands in the middle of writes, renames and index transactions. Bodies are derived from the
// key (see TortureBody in the crash test, which must stay identical) so a survivor can be checked.
import Foundation
import PrefetchKit

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: store-torture CACHE_DIR [native|sdwebimage [KEYS]]\n".utf8))
    exit(2)
}
let layout = arguments.count >= 3 ? CacheLayout(rawValue: arguments[2]) ?? .native : .native

/// Number of distinct keys (400 unless given); a small pool so entries are overwritten often.
let keyPool = arguments.count >= 4 ? max(1, Int(arguments[3]) ?? 400) : 400

func body(_ number: Int) -> [UInt8] {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let key = Array("https://torture.invalid/img/\(number).png\n".utf8)
    let length = 512 + (number * 977) % 24_000
    return signature + key + (0..<length).map { UInt8(truncatingIfNeeded: $0 * 31 + number) }
}

do {
    let cache = try DiskCache.open(at: arguments[1], layout: layout)
    while true {
        let number = Int.random(in: 0..<keyPool)
        let url = "https://torture.invalid/img/\(number).png"
        let temp = try cache.makeBodyFile(forKey: url)
        let bytes = body(number)
        for start in stride(from: 0, to: bytes.count, by: 4096) {
            try temp.write(Data(bytes[start..<min(start + 4096, bytes.count)]))
        }
        try cache.commit(temp, as: NewEntry(url: url, key: url, setName: "torture", format: .png))
        if number % 3 == 0 { try cache.touch(key: url) }
        if number % 17 == 0 { _ = try cache.lookup(key: "https://torture.invalid/img/\(number / 2).png") }
    }
} catch {
    FileHandle.standardError.write(Data("store-torture: \(error)\n".utf8))
    exit(1)
}
