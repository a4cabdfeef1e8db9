import Foundation
import Testing
@testable import PrefetchKit

@Suite struct CacheKeyAndNamingTests {
    @Test func theDefaultKeyIsTheURL() {
        let url = "https://cdn.example.com/a.jpg?sig=1&w=2#top"
        #expect(CacheKeyRule.none.key(for: url) == url)
    }

    @Test func droppedParametersGoAndTheOthersKeepTheirOrder() {
        let rule = CacheKeyRule.dropParams(["sig", "token"])
        #expect(rule.key(for: "https://c.example/a.jpg?w=2&sig=abc&h=3&token=t") == "https://c.example/a.jpg?w=2&h=3")
        #expect(rule.key(for: "https://c.example/a.jpg?sig=abc&token=t") == "https://c.example/a.jpg")
        #expect(rule.key(for: "https://c.example/a.jpg?sig") == "https://c.example/a.jpg")
        #expect(rule.key(for: "https://c.example/a.jpg?signature=1") == "https://c.example/a.jpg?signature=1")
        #expect(rule.key(for: "https://c.example/a.jpg?token=1#frag") == "https://c.example/a.jpg#frag")
        #expect(rule.key(for: "https://c.example/a.jpg") == "https://c.example/a.jpg")
    }

    @Test func stripQueryDropsQueryAndFragment() {
        #expect(CacheKeyRule.stripQuery.key(for: "https://c.example/a.jpg?w=2#x") == "https://c.example/a.jpg")
        #expect(CacheKeyRule.stripQuery.key(for: "https://c.example/a.jpg#x") == "https://c.example/a.jpg")
    }

    @Test func twoURLsWithOneKeyAreOneEntry() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let rule = CacheKeyRule.dropParams(["sig"])
            let first = "https://c.example/a.png?sig=1"
            let second = "https://c.example/a.png?sig=2"
            try cache.store(data: pngLikeBody(1), as: NewEntry(url: first, key: rule.key(for: first)))
            #expect(try cache.lookup(key: rule.key(for: second))?.url == first)
            try cache.store(data: pngLikeBody(2), as: NewEntry(url: second, key: rule.key(for: second)))
            #expect(try cache.index.entryCount() == 1)
        }
    }

    /// URLs from SDWebImageTests' SDImageCacheTests (test34-test37) and the names SDImageCache gives
    /// them (from coreutils md5sum): a plain JPEG URL keeps its extension, dots in the query are no
    /// extension, and the path's extension stays before a long query.
    static let sdWebImageNames = [
        ("https://cdn.example.com/banners/1.jpg", "99188c0b078d261ed6690af68e92c853.jpg"),
        ("https://maps.googleapis.com/maps/api/staticmap?center=48.8566,2.3522&format=png&maptype=roadmap&scale=2&size=375x200&zoom=15",
         "e71fc3239f5147046b9e7f07ad7e7d61"),
        (Self.longQueryURL, CacheDigest.md5Hex(Self.longQueryURL) + ".jpg"),
    ]
    static let longQueryURL = "https://imggen.alicdn.com/3b11cea896a9438329d85abfb07b30a8.jpg?aid=tanx&tid=1166&m=%7B%22img_url%22%3A%22https%3A%2F%2Fgma.alicdn.com%2Fbao%2Fuploaded%2Fi4%2F1695306010722305097%2FTB2S2KjkHtlpuFjSspoXXbcDpXa_%21%210-saturn_solar.jpg_sum.jpg%22%7D&e=cb88dab197bfaa19804f6ec796ca906dab536b88fe6d4475795c7ee661a7ede1&size=640x246"

    @Test(arguments: sdWebImageNames)
    func sdWebImageNamesAURLAsSDImageCacheDoes(url: String, name: String) {
        #expect(CacheFileNaming.sdWebImageFileName(forKey: url) == name)
    }

    @Test func sdWebImageDropsAnExtensionLongerThan222Characters() {
        let url = "https://imggen.alicdn.com/3b11cea896a9438329d85abfb07b30a8.jpg" + String(repeating: "a", count: 297)
        #expect(CacheFileNaming.sdWebImageFileName(forKey: url) == CacheDigest.md5Hex(url))
        let longest = "https://c.example/x." + String(repeating: "b", count: 222)
        #expect(CacheFileNaming.sdWebImageFileName(forKey: longest).hasSuffix("." + String(repeating: "b", count: 222)))
    }

    /// SDWebImage measures the extension as NSString does, in UTF-16 units: 120 emoji are 120
    /// characters but 240 units, and too long; 111 are 222 units, and kept.
    @Test func sdWebImageMeasuresTheExtensionInUTF16Units() {
        let emoji = "%F0%9F%98%80"  // U+1F600, two UTF-16 units
        let tooLong = "https://c.example/x." + String(repeating: emoji, count: 120)
        #expect(CacheFileNaming.sdWebImageFileName(forKey: tooLong) == CacheDigest.md5Hex(tooLong))
        let longest = "https://c.example/x." + String(repeating: emoji, count: 111)
        #expect(CacheFileNaming.sdWebImageFileName(forKey: longest) == CacheDigest.md5Hex(longest) + "." + String(repeating: "\u{1F600}", count: 111))
    }

    @Test func sdWebImageNamesAKeyThatIsNotAURLByItsOwnExtension() {
        #expect(CacheFileNaming.sdWebImageFileName(forKey: "TestImageKey.png").hasSuffix(".png"))
        #expect(CacheFileNaming.sdWebImageFileName(forKey: "TestImageKey") == CacheDigest.md5Hex("TestImageKey"))
    }

    @Test func thePathExtensionIsTheLastComponentsWithEscapesDecoded() {
        #expect(CacheFileNaming.pathExtension(of: "https://c.example/a.b/photo.J%50G?v=1.2#x.y") == "JPG")
        #expect(CacheFileNaming.pathExtension(of: "https://c.example/photo.webp/") == "webp")
        #expect(CacheFileNaming.pathExtension(of: "https://c.example.com/photo") == "")
        #expect(CacheFileNaming.pathExtension(of: "https://c.example.com/.hidden") == "")
        #expect(CacheFileNaming.pathExtension(of: "plain.key.gif") == "gif")
    }

    /// An escaped `/` splits the last component as NSURL splits it, so no extension holds a `/`; an
    /// SDWebImage name whose extension would hold a control character has none.
    @Test func anEscapedSlashOrControlCharacterNeverReachesAFileName() {
        let base = "https://c.example/ok/"
        #expect(CacheFileNaming.pathExtension(of: base + "x.%2F%2E%2E%2Fz") == "")
        #expect(CacheFileNaming.pathExtension(of: base + "x.%2Fevil") == "")
        #expect(CacheFileNaming.pathExtension(of: base + "x.%2F") == "")
        #expect(CacheFileNaming.pathExtension(of: base + "x.a%2F") == "a")
        #expect(CacheFileNaming.pathExtension(of: base + "x.%2Fa%2Epng") == "png")
        #expect(CacheFileNaming.pathExtension(of: base + "x.jp%2Fg") == "")
        for key in ["x.%2F%2E%2E%2Fz", "x.%2Fevil", "x.%2F", "x.a%2F", "x.%0Ajpg", "x.j%7Fpg", "x.%2Fa%2Fb"].map({ base + $0 }) {
            let name = CacheFileNaming.relativePath(forKey: key, layout: .sdwebimage)
            #expect(!name.contains("/") && !name.contains("\n") && !name.contains("\u{7F}"), "\(key): \(name)")
            #expect(DiskCache.isSDWebImageName(name), "\(key): \(name)")
        }
        #expect(CacheFileNaming.relativePath(forKey: base + "x.%0Ajpg", layout: .sdwebimage) == CacheDigest.md5Hex(base + "x.%0Ajpg"))
    }

    /// Every name the cache makes is the sweep's and a rescan's own, whatever its extension (here one
    /// that starts with a combining mark, which Characters would join to the dot); anything else is
    /// foreign.
    @Test func theCachesOwnNamesAreToldFromForeignOnes() {
        let hash = String(repeating: "ab", count: 32)
        for key in ["https://c.example/a.jpg", "https://c.example/a.%CC%81x", "https://c.example/noextension"] {
            let relativePath = CacheFileNaming.relativePath(forKey: key, layout: .native)
            let folder = String(relativePath.prefix(2))
            #expect(DiskCache.isNativeName(String(relativePath.dropFirst(3)), prefix: folder), "\(relativePath)")
            let sdWebImageName = CacheFileNaming.relativePath(forKey: key, layout: .sdwebimage)
            #expect(DiskCache.isSDWebImageName(sdWebImageName), "\(sdWebImageName)")
        }
        #expect(CacheFileNaming.relativePath(forKey: "https://c.example/a.%CC%81x", layout: .sdwebimage).hasSuffix(".\u{301}x"))
        #expect(DiskCache.isNativeName(hash + ".jpg", prefix: "ab"))
        #expect(!DiskCache.isNativeName(hash + ".jpg", prefix: "cd"))
        #expect(!DiskCache.isNativeName(hash + ".", prefix: "ab"))
        #expect(!DiskCache.isNativeName(hash + "x", prefix: "ab"))
        #expect(!DiskCache.isNativeName(String(hash.dropLast()), prefix: "ab"))
        #expect(!DiskCache.isNativeName(hash.uppercased() + ".jpg", prefix: "AB"))
        #expect(DiskCache.isSDWebImageName(String(hash.prefix(32)) + ".png"))
        #expect(DiskCache.isSDWebImageName(String(hash.prefix(32))))
        #expect(!DiskCache.isSDWebImageName(String(hash.prefix(31)) + "g.png"))
        #expect(!DiskCache.isSDWebImageName("notes.txt"))
    }

    @Test func incrementalChecksumMatchesAKnownXXH3() {
        let hasher = ContentHasher()
        hasher.update(Data("a".utf8))
        hasher.update(Data("bc".utf8))
        #expect(hasher.finalize() == "xxh3:06b05ab6733a618578af5f94892f3950")
    }
}
