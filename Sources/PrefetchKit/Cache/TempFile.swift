internal import CShims
import Foundation
import Synchronization

/// A body being written on the cache's file system, hashed as it streams. Commit it with
/// `DiskCache.commit(_:as:)`; dropped uncommitted, it is closed and removed.
/// Owned by one writer at a time (not Sendable); hand it over with `sending`.
///
/// Two kinds: a named file in `<cache>/tmp/` (`<pid>-<counter>-<random>.part`, swept when stale),
/// or an unnamed file (`O_TMPFILE`) made in the folder its entry will live in. An unnamed file has no
/// name to leave behind after a crash, and it is put in place with `linkat` inside its own folder, so
/// a store takes no cross-folder rename lock and its inode is allocated beside its final name.
package final class TempFile {
    /// The named file's path, or the folder an unnamed one is in and its descriptor as opened. The
    /// strings below are made when first asked for, not with the file: a body handed to the engine is
    /// written through its descriptor and hashed there, and its path is needed only to check and place it.
    private enum Name {
        case named(String)
        case unnamed(folder: String, descriptor: Int32)
    }

    private let name: Name
    /// A path that opens this file: the named file, or `/proc/self/fd/N` for an unnamed one.
    package private(set) lazy var path: String = {
        switch name {
        case .named(let path): path
        case .unnamed(_, let descriptor): "/proc/self/fd/\(descriptor)"
        }
    }()

    /// The file as a person should read it in a message: its path, or for an unnamed one the folder
    /// it is in.
    package var shownPath: String {
        switch name {
        case .named(let path): path
        case .unnamed(let folder, _): "a new file in \(folder)"
        }
    }

    /// Bytes written so far through `write`.
    package private(set) var byteCount: Int64 = 0
    private(set) var descriptor: Int32
    /// False for an `O_TMPFILE` file, which has no name until it is placed.
    var isNamed: Bool {
        if case .named = name { true } else { false }
    }

    /// The key and path the file was made for, when `DiskCache.makeBodyFile` made it.
    var location: CacheLocation?
    /// Made at the first `write` or `checksum`: a body the engine writes is hashed there instead.
    private lazy var hasher = ContentHasher()
    private var committed = false
    /// A partial body's file, left in place when dropped uncommitted.
    private var keepsName = false

    /// The suffix the sweeper recognises temp files by.
    static let suffix = ".part"

    /// A named temp file at `path`, created here.
    init(path: String) throws(CacheError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .fromErrno("create", path) }
        name = .named(path)
        self.descriptor = fd
    }

    /// The partial body at `path` (`DiskCache.openPartial`), opened to be written on from where it
    /// stands. Not removed when dropped uncommitted: it stays for a later run, or a clean, to deal with.
    init(partialAt path: String) throws(CacheError) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .fromErrno("open", path) }
        name = .named(path)
        self.descriptor = fd
        keepsName = true
    }

    /// An unnamed file in `folder`; nil when the file system cannot make one (no `O_TMPFILE`).
    init?(unnamedIn folder: String) throws(CacheError) {
        let tmpfile = pf_open_flag_tmpfile()
        guard tmpfile != 0 else { return nil }
        // Through withCString: a String passed straight to a C parameter is copied into a new array
        // first, once per call (twice for linkat), and these run once per stored body.
        let fd = folder.withCString { open($0, O_WRONLY | tmpfile | O_CLOEXEC, 0o644) }
        guard fd >= 0 else {
            if [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) { return nil }
            throw .fromErrno("create a file in", folder)
        }
        name = .unnamed(folder: folder, descriptor: fd)
        self.descriptor = fd
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if isNamed && !committed && !keepsName { unlink(path) }
    }

    /// Appends `bytes` to the file and to the checksum.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(CacheError) {
        guard descriptor >= 0 else { throw .tempFileClosed(path: path) }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .fromErrno("write", path)
            }
            offset += written
        }
        hasher.update(bytes)
        byteCount += Int64(bytes.count)
    }

    package func write(_ data: Data) throws(CacheError) {
        // Data.withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        let result = data.withUnsafeBytes { bytes in Result { () throws(CacheError) in try write(bytes) } }
        try result.get()
    }

    /// The checksum of what went through `write`.
    func checksum() -> String {
        hasher.finalize()
    }

    /// fsyncs the file when `durable`; before it is placed.
    func sync(durable: Bool) throws(CacheError) {
        guard descriptor >= 0 else { throw .tempFileClosed(path: path) }
        if durable {
            guard fsync(descriptor) == 0 else { throw CacheError.fromErrno("fsync", path) }
        }
    }

    /// Puts the file under `finalPath`, replacing what is there, and closes it; returns 0 or the
    /// errno that stopped it (the file is then still open and unplaced). An unnamed file is linked
    /// in; when the name is taken it is linked under `aside` (a temp name) and renamed over the old
    /// file, so a reader sees the old body or the new one, never neither. The caller holds the lock
    /// that orders this against a clean.
    /// `byDescriptor` false links an unnamed file through its `/proc/self/fd` path only (`link(as:)`).
    func place(at finalPath: String, aside: () -> String,
               byDescriptor: Bool = TempFile.linksByDescriptor.load(ordering: .relaxed)) -> Int32 {
        let failure = isNamed ? placeNamed(at: finalPath) : placeUnnamed(at: finalPath, aside: aside, byDescriptor: byDescriptor)
        guard failure == 0 else { return failure }
        committed = true
        close(descriptor)
        descriptor = -1
        return 0
    }

    private func placeNamed(at finalPath: String) -> Int32 {
        rename(path, finalPath) == 0 ? 0 : errno
    }

    private func placeUnnamed(at finalPath: String, aside: () -> String, byDescriptor: Bool) -> Int32 {
        let linked = link(as: finalPath, byDescriptor: byDescriptor)
        if linked == 0 { return 0 }
        guard linked == EEXIST else { return linked }
        let asidePath = aside()
        let linkedAside = link(as: asidePath, byDescriptor: byDescriptor)
        guard linkedAside == 0 else { return linkedAside }
        guard rename(asidePath, finalPath) == 0 else {
            let failure = errno
            unlink(asidePath)
            return failure
        }
        return 0
    }

    /// Links the unnamed file in as `target`; 0 or the errno. `byDescriptor`, by its descriptor where
    /// the kernel allows the process that opened it that (`AT_EMPTY_PATH`: Linux 6.10 and later, or a
    /// process with `CAP_DAC_READ_SEARCH`), else through its `/proc/self/fd` path, whose lookup was
    /// about 2 % of the header run's CPU (bench/RESULTS.md, "Linked by descriptor"). A kernel that
    /// refuses the first way once is not asked again.
    private func link(as target: String, byDescriptor: Bool) -> Int32 {
        target.withCString { target in
            let emptyPath = pf_at_flag_empty_path()
            if emptyPath != 0, byDescriptor {
                if linkat(descriptor, "", AT_FDCWD, target, emptyPath) == 0 { return 0 }
                guard errno == ENOENT else { return errno }
            }
            let linked = path.withCString { source in linkat(AT_FDCWD, source, AT_FDCWD, target, AT_SYMLINK_FOLLOW) }
            guard linked == 0 else { return errno }
            // The /proc path worked where the descriptor did not: this kernel does not allow it.
            if byDescriptor { Self.linksByDescriptor.store(false, ordering: .relaxed) }
            return 0
        }
    }

    /// False once a link by descriptor failed where one by path did not.
    private static let linksByDescriptor = Atomic<Bool>(true)
}
