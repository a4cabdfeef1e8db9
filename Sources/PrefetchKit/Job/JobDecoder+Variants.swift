extension JobDecoder {
    static let variantKeys = ["name", "max_pixel_size", "width", "height", "fit", "format", "quality"]
    /// The largest side a variant may ask for.
    static let maxVariantSide = 16_384

    /// `variants:`, a list of items with unique names; `[]` turns the defaults' variants off.
    mutating func variants(_ node: YAMLNode, _ path: String) -> [VariantSpec]? {
        guard let items = list(node, path) else { return nil }
        var result: [VariantSpec] = []
        var firstNames: [String: YAMLNode] = [:]
        var complete = true
        for item in items {
            guard let spec = variant(item.node, item.path, seen: &firstNames) else {
                complete = false
                continue
            }
            result.append(spec)
        }
        return complete ? result : nil
    }

    private mutating func variant(_ node: YAMLNode, _ path: String, seen: inout [String: YAMLNode]) -> VariantSpec? {
        guard let fields = mapping(node, path, allowed: Self.variantKeys) else { return nil }
        let name = variantName(fields, node, path, seen: &seen)
        let box = variantBox(fields, node, path)
        let format = fields["format"].map { choice($0.value, Self.join(path, "format"), as: VariantSpec.Format.self) } ?? .same
        var quality: Int? = 80
        if let pair = fields["quality"] {
            quality = int(pair.value, Self.join(path, "quality"), in: 1...100)
            if format == .png {
                report(pair.key, Self.join(path, "quality"), "`quality` applies to jpeg and webp; PNG is lossless")
                quality = nil
            }
        }
        guard let name, let box, let format, let quality else { return nil }
        return VariantSpec(name: name, box: box, format: format, quality: quality)
    }

    /// Letters, digits, `-` and `_`, at most 64: the name is part of the variant's key and of `path --variant`.
    private mutating func variantName(_ fields: [String: YAMLPair], _ node: YAMLNode, _ path: String, seen: inout [String: YAMLNode]) -> String? {
        guard let nameNode = fields["name"]?.value else {
            report(node, path, "missing `name`")
            return nil
        }
        let namePath = Self.join(path, "name")
        guard let name = nonEmptyString(nameNode, namePath) else { return nil }
        guard name.utf8.count <= 64, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }) else {
            report(nameNode, namePath, "`\(name)` is not a variant name; use at most 64 letters, digits, `-` and `_`")
            return nil
        }
        if let first = seen[name] {
            report(nameNode, namePath, "duplicate variant name `\(name)`; first used at line \(first.mark.line)")
            return nil
        }
        seen[name] = nameNode
        return name
    }

    /// Exactly one of `max_pixel_size` or a `width`/`height` box; `fit: cover` needs both sides.
    private mutating func variantBox(_ fields: [String: YAMLPair], _ node: YAMLNode, _ path: String) -> VariantSpec.Box? {
        let sides = 1...Self.maxVariantSide
        let width = fields["width"]
        let height = fields["height"]
        if let maximum = fields["max_pixel_size"] {
            if let other = [width, height, fields["fit"]].compactMap({ $0 }).first, case .scalar(let key, _) = other.key.content {
                report(other.key, Self.join(path, key), "`\(key)` contradicts `max_pixel_size`; give either `max_pixel_size` or `width`/`height`")
                return nil
            }
            return int(maximum.value, Self.join(path, "max_pixel_size"), in: sides).map(VariantSpec.Box.longestSide)
        }
        guard width != nil || height != nil else {
            report(node, path, "needs `max_pixel_size` or `width`/`height`")
            return nil
        }
        let widthValue = width.map { int($0.value, Self.join(path, "width"), in: sides) }
        let heightValue = height.map { int($0.value, Self.join(path, "height"), in: sides) }
        let fit = fields["fit"].map { choice($0.value, Self.join(path, "fit"), as: VariantSpec.Fit.self) } ?? .inside
        guard widthValue != .some(nil), heightValue != .some(nil), let fit else { return nil }
        switch fit {
        case .inside:
            return .inside(width: widthValue ?? nil, height: heightValue ?? nil)
        case .cover:
            guard let coverWidth = widthValue ?? nil, let coverHeight = heightValue ?? nil else {
                report(fields["fit"]!.value, Self.join(path, "fit"), "`fit: cover` needs both `width` and `height`")
                return nil
            }
            return .cover(width: coverWidth, height: coverHeight)
        }
    }

    /// `keep_original: false` stores only the variants, so a set (with what it inherits from `defaults`)
    /// must have some; reported at the set's own `keep_original` or `variants`, else at the set.
    mutating func checkKeepOriginal(_ options: JobOptions, fields: [String: YAMLPair], written setNode: YAMLNode, path: String) {
        guard !options.keepOriginal, options.variants.isEmpty else { return }
        let key = fields["keep_original"] != nil ? "keep_original" : fields["variants"] != nil ? "variants" : nil
        let place = key.flatMap { fields[$0]?.value } ?? setNode
        report(place, key.map { Self.join(path, $0) } ?? path, "`keep_original: false` needs at least one variant; nothing would be stored")
    }
}
