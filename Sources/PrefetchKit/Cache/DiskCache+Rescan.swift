import Foundation

/// Finding the cache's files on disk: the truth the index is rebuilt from.
extension DiskCache {
    /// Relative paths of every file under a final name for this layout; temp files, the index and the
    /// marker are not final names. A fan-out folder that cannot be listed is told to `unlisted` and
    /// passed over when one is given (fsck goes on past it), else it stops the walk.
    func finalFiles(unlisted: ((String, CacheError) -> Void)? = nil) throws(CacheError) -> [String] {
        switch layout {
        case .sdwebimage:
            return try Self.names(in: root).filter { Self.isSDWebImageName($0) && isRegularFile($0) }
        case .native:
            var files: [String] = []
            for folder in try Self.names(in: root) where folder.count == 2 && Self.isLowerHex(folder) && isRealFolder(folder) {
                let names: [String]
                do {
                    names = try Self.names(in: root + "/" + folder)
                } catch {
                    guard let unlisted else { throw error }
                    unlisted(folder, error)
                    continue
                }
                for name in names where Self.isNativeName(name, prefix: folder) && isRegularFile(folder + "/" + name) {
                    files.append(folder + "/" + name)
                }
            }
            return files
        }
    }

    /// Adds a row for every final file the index does not know; returns how many it added. A file or
    /// fan-out folder this user may not read is passed over (`fsck` says it, and leaves it), so that
    /// an index made anew by another user holds everything else.
    @discardableResult
    func rescan() throws(CacheError) -> Int {
        var failure: CacheError?
        let files = try finalFiles { _, error in
            if !error.isPermissionDenied { failure = failure ?? error }
        }
        if let failure { throw failure }
        var added = 0
        for relativePath in files where try index.entry(relativePath: relativePath) == nil {
            let entry: CacheEntry
            do {
                entry = try entryForFile(relativePath)
            } catch where error.isPermissionDenied {
                continue
            }
            try index.insertIfMissing(entry)
            added += 1
        }
        try index.flush()
        return added
    }

    /// What can be known of a file without its URL: size, checksum, format by magic bytes, times from mtime.
    func entryForFile(_ relativePath: String) throws(CacheError) -> CacheEntry {
        let path = root + "/" + relativePath
        var info = stat()
        guard stat(path, &info) == 0 else { throw .fromErrno("inspect", path) }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        return CacheEntry(
            url: nil, key: nil, setName: nil, relativePath: relativePath, path: path, size: Int64(info.st_size),
            format: try Self.sniffFormat(path), width: nil, height: nil, etag: nil, lastModified: nil,
            checksum: try ContentHasher.checksum(ofFileAt: path), fetchedAt: modified, modifiedAt: modified,
            accessedAt: modified, validatedAt: nil)
    }

    private func isRegularFile(_ relativePath: String) -> Bool {
        var info = stat()
        return lstat(root + "/" + relativePath, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The names in a folder; an absent folder has none.
    static func names(in folder: String) throws(CacheError) -> [String] {
        try listing(of: folder).map(\.name)
    }

    /// The names in a folder with their types as the folder gives them (`d_type`: `DT_REG` for a
    /// regular file, `DT_UNKNOWN` where the file system does not say, and a stat must); an absent
    /// folder has none.
    static func listing(of folder: String) throws(CacheError) -> [(name: String, type: UInt8)] {
        guard let directory = opendir(folder) else {
            if errno == ENOENT || errno == ENOTDIR { return [] }
            throw .fromErrno("list", folder)
        }
        defer { closedir(directory) }
        var names: [(name: String, type: UInt8)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append((name, entry.pointee.d_type)) }
        }
        return names
    }

    static func isLowerHex(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy(isLowerHexDigit)
    }

    private static func isLowerHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// `<64 hex>` or `<64 hex>.<ext>`, in the folder its first two digits name.
    static func isNativeName(_ name: String, prefix: String) -> Bool {
        name.utf8.starts(with: prefix.utf8) && isHashName(name, digits: 64)
    }

    /// `<32 hex>` or `<32 hex>.<ext>`.
    static func isSDWebImageName(_ name: String) -> Bool {
        isHashName(name, digits: 32)
    }

    /// `digits` lowercase hex digits, alone or followed by `.` and an extension: read as the bytes the
    /// name was made of (hash + "." + extension), not as Characters, which an extension starting with a
    /// combining mark would join to the dot, and whose counting costs a clean's sweep a walk of every
    /// name it lists.
    private static func isHashName(_ name: String, digits: Int) -> Bool {
        let bytes = name.utf8
        let rest = bytes.dropFirst(digits)
        return bytes.count >= digits && bytes.prefix(digits).allSatisfy(isLowerHexDigit)
            && (rest.isEmpty || (rest.first == UInt8(ascii: ".") && rest.count > 1))
    }
}
