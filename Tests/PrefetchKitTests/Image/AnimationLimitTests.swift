import Testing
@testable import PrefetchKit

/// Every frame of an animation is decoded, and its frame count and frames x canvas are held to
/// `max_frames` and `max_frame_pixels`: each limit passes an animation at it and refuses one just over.
@Suite struct AnimationLimitTests {
    struct Animation: CustomStringConvertible, Sendable {
        let file: String
        let format: ImageFormat
        let frames: Int
        let width: Int
        let height: Int
        var description: String { file }
        var path: String { CorpusEntry.root + "/gif-webp-avif/" + file }
        var framePixels: Int { frames * width * height }
    }

    static let animations = [
        Animation(file: "giflib/fire.gif", format: .gif, frames: 33, width: 30, height: 60),
        Animation(file: "image-webp/random_lossy.webp", format: .webp, frames: 4, width: 99, height: 87),
        Animation(file: "libavif/colors-animated-8bpc.avif", format: .avif, frames: 5, width: 150, height: 150),
        Animation(file: "libjxl-conformance/animation_spline.jxl", format: .jxl, frames: 60, width: 320, height: 320),
    ]

    @Test(arguments: animations)
    func everyFrameIsDecodedAndCounted(_ animation: Animation) throws {
        let info = try #require(try ImageValidator(level: .decode).validate(fileAt: animation.path))
        #expect(info == ImageInfo(format: animation.format, width: animation.width, height: animation.height,
                                  frames: animation.frames))
    }

    /// `max_frames` and then `max_frame_pixels`: the animation passes at each and fails one under it.
    @Test(arguments: animations)
    func eachLimitPassesAtItAndRefusesOneOver(_ animation: Animation) throws {
        let limits: [(at: ImageValidator, under: ImageValidator, says: String)] = [
            (ImageValidator(level: .decode, maxFrames: animation.frames),
             ImageValidator(level: .decode, maxFrames: animation.frames - 1),
             "\(animation.frames) frames, over the limit of \(animation.frames - 1)"),
            (ImageValidator(level: .decode, maxFramePixels: animation.framePixels),
             ImageValidator(level: .decode, maxFramePixels: animation.framePixels - 1),
             "over the limit of \(animation.framePixels - 1) frame pixels"),
        ]
        for limit in limits {
            #expect(try limit.at.validate(fileAt: animation.path)?.frames == animation.frames)
            let error = try #require(throws: ImageError.self) { try limit.under.validate(fileAt: animation.path) }
            #expect(error.reason == "too_many_frames" && error.description.contains(limit.says), "\(error)")
        }
    }
}
