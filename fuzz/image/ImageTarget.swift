import FuzzSupport
import Glibc
import PrefetchKit

/// Body bytes -> the verdict of `ImageValidator`, for every format prefetchd validates (PNG, JPEG,
/// GIF, WebP): the sniffer, the header readers (PNG IHDR, the JPEG marker walk to SOFn, the GIF screen,
/// the WebP VP8/VP8L/VP8X chunk) and the limits, then the full decodes of the C shims (libpng and
/// libjpeg-turbo behind setjmp), through their memory entry points and their file ones.
///
/// The same bytes go through each way prefetchd reads a body, which must agree: in memory, from a
/// file, and from a file whose first bytes are held (as the downloader keeps them), at the `header`
/// level and at `decode`.
enum ImageTarget {
    /// As the downloader keeps them (`Prefetcher.keptHeadBytes`).
    static let keptHeadBytes = 32 << 10
    static let header = ImageValidator(level: .header)
    static let decode = ImageValidator(level: .decode)

    /// One unnamed scratch file for the whole run, rewritten for each input and read back through
    /// its /proc name: no file name is made or left behind.
    nonisolated(unsafe) static let scratch: UnsafeMutablePointer<FILE> = {
        guard let file = tmpfile() else { fatalError("tmpfile: \(String(cString: strerror(errno)))") }
        return file
    }()
    static let scratchPath = "/proc/self/fd/\(fileno(scratch))"

    static func run(_ bytes: [UInt8]) {
        _ = ImageSniffer.sniff(bytes)
        write(bytes)
        let size = Int64(bytes.count)
        let inMemory = verdict { () throws(ImageError) -> ImageInfo? in try header.validate(data: bytes) }
        let fromFile = verdict { () throws(ImageError) -> ImageInfo? in try header.validate(fileAt: scratchPath) }
        let kept = verdict { () throws(ImageError) -> ImageInfo? in try header.validate(fileAt: scratchPath, head: Array(bytes.prefix(keptHeadBytes)), size: size) }
        let short = verdict { () throws(ImageError) -> ImageInfo? in try header.validate(fileAt: scratchPath, head: Array(bytes.prefix(bytes.count / 3)), size: size) }
        for (name, other) in [("a file", fromFile), ("a file with its head kept", kept), ("a file with a short head", short)] {
            fuzzCheck(other == inMemory, "header check: \(inMemory) in memory, \(other) from \(name)")
        }
        if case .success(let info?) = inMemory {
            fuzzCheck(info.width > 0 && info.height > 0 && info.pixels <= ImageLimits.defaultMaxPixels,
                      "header check passed \(info)")
        }
        guard case .success(let headerInfo?) = inMemory, headerInfo.format == .png || headerInfo.format == .jpeg else {
            return
        }
        let decodedInMemory = verdict { () throws(ImageError) -> ImageInfo? in try decode.validate(data: bytes) }
        let decodedFromFile = verdict { () throws(ImageError) -> ImageInfo? in try decode.validate(fileAt: scratchPath) }
        fuzzCheck(reason(decodedInMemory) == reason(decodedFromFile),
                  "decode: \(decodedInMemory) in memory, \(decodedFromFile) from a file")
        if case .success(let info?) = decodedInMemory {
            fuzzCheck(info == headerInfo, "the header read \(headerInfo), the decoder \(info)")
        }
    }

    static func verdict(_ body: () throws(ImageError) -> ImageInfo?) -> Result<ImageInfo?, ImageError> {
        do throws(ImageError) {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }

    /// The rejection's stable name, or the dimensions of an accepted image.
    static func reason(_ verdict: Result<ImageInfo?, ImageError>) -> String {
        switch verdict {
        case .success(let info): "\(String(describing: info))"
        case .failure(let error): error.reason
        }
    }

    static func write(_ bytes: [UInt8]) {
        let descriptor = fileno(scratch)
        guard ftruncate(descriptor, 0) == 0 else { fatalError("ftruncate: \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + written, $0.count - written, off_t(written)) }
            guard count > 0 else { fatalError("pwrite: \(String(cString: strerror(errno)))") }
            written += count
        }
    }
}

/// libFuzzer's entry point: one input, always 0 (a finding is a crash or a failed `fuzzCheck`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ImageTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@main
struct ImageFuzzer {
    static func main() {
        #if FUZZING
        FuzzMain.libFuzzer(fuzz)
        #else
        FuzzMain.replay(ImageTarget.run)
        #endif
    }
}
