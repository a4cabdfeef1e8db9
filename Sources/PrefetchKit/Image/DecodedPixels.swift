/// An image decoded to 8-bit samples, for libvips to make a variant of when it cannot open the
/// encoded file itself (`VariantMaker`): rows packed, `bands` samples a pixel.
struct DecodedPixels {
    var width: Int
    var height: Int
    /// 3 (RGB) or 4 (RGB and alpha).
    var bands: Int
    var samples: [UInt8]
    /// The image's ICC colour profile; empty when it has none.
    var iccProfile: [UInt8]
}
