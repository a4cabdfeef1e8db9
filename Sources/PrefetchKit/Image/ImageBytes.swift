#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to a body, so header checks read a few bytes of a cached file without loading it.
protocol ImageBytes {
    /// Length of the whole body.
    var count: Int64 { get }
    /// Up to `length` bytes starting at `offset`; fewer only at the end of the body.
    func read(at offset: Int64, length: Int) throws(ImageError) -> [UInt8]
    /// The two bytes at `offset` as a big-endian number, nil past the end: what a marker walk reads
    /// most, without the array of a `read`.
    func twoBytes(at offset: Int64) throws(ImageError) -> UInt16?
}

extension ImageBytes {
    func twoBytes(at offset: Int64) throws(ImageError) -> UInt16? {
        try read(at: offset, length: 2).twoBytes(at: 0)
    }
}

extension [UInt8] {
    /// The two bytes at `offset` as a big-endian number, nil unless both are there.
    func twoBytes(at offset: Int64) -> UInt16? {
        guard offset >= 0, offset + 2 <= Int64(count) else { return nil }
        let index = Int(offset)
        return UInt16(self[index]) << 8 | UInt16(self[index + 1])
    }
}

/// A body held in memory.
struct MemoryImageBytes: ImageBytes {
    let bytes: [UInt8]

    var count: Int64 { Int64(bytes.count) }

    func read(at offset: Int64, length: Int) -> [UInt8] {
        guard offset < count else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(bytes.count, start + length)])
    }

    func twoBytes(at offset: Int64) -> UInt16? {
        bytes.twoBytes(at: offset)
    }
}

/// A body in a file, read with pread; owns the descriptor and closes it in deinit.
final class FileImageBytes: ImageBytes {
    let path: String
    let count: Int64
    private let descriptor: Int32

    init(path: String) throws(ImageError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .unreadable(path: path, detail: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let detail = String(cString: strerror(errno))
            close(descriptor)
            throw .unreadable(path: path, detail: detail)
        }
        self.descriptor = descriptor
        self.count = Int64(status.st_size)
    }

    deinit {
        close(descriptor)
    }

    /// The whole file mapped read-only and private, or nil with errno set; the caller unmaps it.
    func map() -> UnsafeMutableRawPointer? {
        let mapped = mmap(nil, Int(count), PROT_READ, MAP_PRIVATE, descriptor, 0)
        return mapped == MAP_FAILED ? nil : mapped
    }

    func read(at offset: Int64, length: Int) throws(ImageError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: length)
        var filled = 0
        while filled < length {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + filled, length - filled, off_t(offset) + off_t(filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, detail: String(cString: strerror(errno)))
            }
            if got == 0 { break }
            filled += got
        }
        buffer.removeLast(length - filled)
        return buffer
    }
}

/// A body in a file whose first bytes are already in memory (kept by the downloader as they
/// streamed): reads within them cost nothing, and the file is opened only for a read beyond them.
final class HeadedImageBytes: ImageBytes {
    let head: [UInt8]
    let count: Int64
    private let path: String
    private var file: FileImageBytes?

    init(head: [UInt8], count: Int64, path: String) {
        self.head = head
        self.count = count
        self.path = path
    }

    func read(at offset: Int64, length: Int) throws(ImageError) -> [UInt8] {
        let end = min(offset + Int64(length), count)
        if end <= Int64(head.count) || Int64(head.count) == count {
            return MemoryImageBytes(bytes: head).read(at: offset, length: length)
        }
        if file == nil { file = try FileImageBytes(path: path) }
        return try file!.read(at: offset, length: length)
    }

    func twoBytes(at offset: Int64) throws(ImageError) -> UInt16? {
        if offset + 2 <= Int64(head.count) { return head.twoBytes(at: offset) }
        return try read(at: offset, length: 2).twoBytes(at: 0)
    }
}
