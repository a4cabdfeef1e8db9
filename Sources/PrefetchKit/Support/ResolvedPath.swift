import Foundation

/// Paths compared as the files they name, whatever the spelling: `.`, `..` and symbolic links.
package enum ResolvedPath {
    /// `path` absolute, with its symbolic links resolved as far as it exists (`realpath` of the
    /// longest existing path above it, the rest appended).
    package static func of(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if let real = realpath(url.path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let parent = url.deletingLastPathComponent()
        guard parent.path != url.path else { return url.path }
        return (of(parent.path) as NSString).appendingPathComponent(url.lastPathComponent)
    }
}
