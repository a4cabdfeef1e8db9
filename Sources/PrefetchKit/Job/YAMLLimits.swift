/// Bounds that keep a hostile job file from exhausting memory while it is parsed.
struct YAMLLimits: Sendable {
    /// Largest document read, in bytes.
    var maxBytes = 16 << 20
    /// Most alias events (`*name`) one document may use.
    var maxAliases = 100
    /// Most nodes in the built tree, counting every copy an alias makes.
    var maxNodes = 1_000_000
    /// Deepest nesting of collections in the document as written (a job file needs about six). It
    /// keeps the tree's freeing shallow, and libyaml's flow scanner, whose work grows with the depth
    /// for every token, linear.
    var maxDepth = 64

    static let standard = YAMLLimits()
}
