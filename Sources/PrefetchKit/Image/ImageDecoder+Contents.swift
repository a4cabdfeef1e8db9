#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ImageDecoder.Input {
    /// Lends the whole body to `body`: a buffer as it is, a file mapped read-only (the GIF, WebP,
    /// AVIF and JPEG XL libraries take their input from memory; the kernel pages it in as they read).
    func withContents<R>(_ body: (UnsafeRawBufferPointer) throws(ImageError) -> R) throws(ImageError) -> R {
        switch self {
        case .memory(let bytes):
            return try bytes.withImageBytes(body)
        case .file(let path):
            let file = try FileImageBytes(path: path)
            guard file.count > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
            guard let mapped = file.map() else {
                throw .unreadable(path: path, detail: String(cString: strerror(errno)))
            }
            defer { munmap(mapped, Int(file.count)) }
            return try body(UnsafeRawBufferPointer(start: mapped, count: Int(file.count)))
        }
    }
}

extension [UInt8] {
    /// `withUnsafeBytes` for a body that throws `ImageError` (the standard one only rethrows untyped).
    func withImageBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ImageError) -> R) throws(ImageError) -> R {
        try withUnsafeBytes { raw in Result { () throws(ImageError) in try body(raw) } }.get()
    }
}
