/// One `variants:` item of a set: a smaller copy made from every stored original, kept as a cache
/// entry of its own under `key(forOriginal:)`.
package struct VariantSpec: Sendable, Equatable {
    /// How the variant's size follows from the original's. No box ever enlarges an image.
    package enum Box: Sendable, Equatable {
        /// `max_pixel_size`: the longest side at most this, the aspect kept.
        case longestSide(Int)
        /// `width` and/or `height` with `fit: inside` (the default): inside the box, the aspect kept.
        case inside(width: Int?, height: Int?)
        /// `width` and `height` with `fit: cover`: fills the box, the centre cropped to it.
        case cover(width: Int, height: Int)
    }

    /// `format:`; `same` keeps the original's format for JPEG, PNG and WebP and makes PNG of others.
    package enum Format: String, Sendable, CaseIterable {
        case jpeg, png, webp, same

        /// The format a variant of an original in `original` is encoded as.
        package func output(for original: ImageFormat?) -> ImageFormat {
            switch self {
            case .jpeg: .jpeg
            case .png: .png
            case .webp: .webp
            case .same:
                switch original {
                case .jpeg: .jpeg
                case .webp: .webp
                default: .png
                }
            }
        }
    }

    /// `fit:` with `width`/`height`.
    package enum Fit: String, Sendable, CaseIterable {
        case inside, cover
    }

    package var name: String
    package var box: Box
    package var format = Format.same
    /// 1...100, for JPEG and WebP output.
    package var quality = 80

    package init(name: String, box: Box, format: Format = .same, quality: Int = 80) {
        self.name = name
        self.box = box
        self.format = format
        self.quality = quality
    }

    /// Everything that changes the variant's bytes, in one fixed spelling: `max=256;format=jpeg;quality=80`
    /// or `width=1080;height=720;fit=cover;format=same;quality=80` (an absent side is left out).
    package var parameters: String {
        let size: String
        switch box {
        case .longestSide(let side): size = "max=\(side)"
        case .inside(let width, let height):
            size = [width.map { "width=\($0)" }, height.map { "height=\($0)" }].compactMap { $0 }.joined(separator: ";") + ";fit=inside"
        case .cover(let width, let height): size = "width=\(width);height=\(height);fit=cover"
        }
        return "\(size);format=\(format.rawValue);quality=\(quality)"
    }

    /// The variant's cache key: the original's, then `#variant=NAME;PARAMETERS`. Stable: the same
    /// original and item always give the same key, and changing any parameter gives a new one.
    package func key(forOriginal key: String) -> String {
        "\(key)\(Self.keyMarker)\(name);\(parameters)"
    }

    /// What stands between the original's key and the variant's name in a variant's key.
    static let keyMarker = "#variant="

    /// The largest width and height the variant may have, for libvips (a free side is unbounded).
    var target: (width: Int, height: Int, cover: Bool) {
        let unbounded = 10_000_000
        switch box {
        case .longestSide(let side): return (side, side, false)
        case .inside(let width, let height): return (width ?? unbounded, height ?? unbounded, false)
        case .cover(let width, let height): return (width, height, true)
        }
    }
}
