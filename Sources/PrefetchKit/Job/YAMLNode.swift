/// A 1-based position in a YAML document, taken from libyaml's marks.
struct YAMLMark: Sendable, Equatable {
    var line: Int
    var column: Int
}

/// One node of a parsed YAML document, with the place it starts.
///
/// Aliases are resolved while the tree is built, so a node never refers to an anchor.
struct YAMLNode: Sendable {
    enum Content: Sendable {
        /// `plain` is true for an unquoted scalar, the only kind that can spell null.
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }

    var content: Content
    var mark: YAMLMark
    /// This node plus every node below it; alias copies count in full.
    var size: Int

    /// The word used in "expected X, found Y" messages.
    var kindName: String {
        switch content {
        case .scalar(let text, let plain):
            plain && YAMLNode.nullSpellings.contains(text) ? "null" : "a scalar"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }

    static let nullSpellings: Set<String> = ["", "~", "null", "Null", "NULL"]
}

/// A key and its value inside a mapping node.
struct YAMLPair: Sendable {
    var key: YAMLNode
    var value: YAMLNode
}
