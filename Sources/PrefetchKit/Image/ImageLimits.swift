/// The budgets a decode may spend, each checked from headers before pixels are allocated.
/// 0 means no limit.
package struct ImageLimits: Sendable, Equatable {
    /// Pillow's decompression-bomb threshold, per frame and per canvas.
    package static let defaultMaxPixels = 89_478_485
    /// As libjpeg-turbo's `-maxscans` advice for untrusted progressive JPEGs.
    package static let defaultMaxScans = 100
    /// Far above any real animation (a 10 s, 60 fps GIF has 600).
    package static let defaultMaxFrames = 1_000
    /// Frames x canvas: every frame of an animation is composited onto the whole canvas, so this is
    /// the pixel work a full decode does. 1e9 is about 11 full-size frames at the pixel limit, or
    /// 4 GB of RGBA, the bound the shared corpora's manifests use.
    package static let defaultMaxFramePixels = 1_000_000_000

    package var maxPixels = defaultMaxPixels
    package var maxScans = defaultMaxScans
    package var maxFrames = defaultMaxFrames
    package var maxFramePixels = defaultMaxFramePixels

    package init(
        maxPixels: Int = defaultMaxPixels, maxScans: Int = defaultMaxScans,
        maxFrames: Int = defaultMaxFrames, maxFramePixels: Int = defaultMaxFramePixels
    ) {
        self.maxPixels = maxPixels
        self.maxScans = maxScans
        self.maxFrames = maxFrames
        self.maxFramePixels = maxFramePixels
    }

    /// Refuses a canvas (or one frame) of `width` x `height` over the pixel limit.
    func checkCanvas(_ format: ImageFormat, width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else { throw .zeroPixels(format, width: width, height: height) }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard maxPixels <= 0 || (!overflow && pixels <= maxPixels) else {
            throw .tooManyPixels(format, width: width, height: height, limit: maxPixels)
        }
    }

    /// Refuses an animation of `frames` frames on a canvas of `canvasPixels` once it is over either
    /// frame limit; called with the declared count up front, or with the count so far as frames arrive.
    func checkFrames(_ format: ImageFormat, frames: Int, canvasPixels: Int) throws(ImageError) {
        guard maxFrames <= 0 || frames <= maxFrames else {
            throw .tooManyFrames(format, detail: "\(frames) frames, over the limit of \(maxFrames)")
        }
        let (total, overflow) = frames.multipliedReportingOverflow(by: canvasPixels)
        guard frames <= 1 || maxFramePixels <= 0 || (!overflow && total <= maxFramePixels) else {
            throw .tooManyFrames(
                format, detail: "\(frames) frames of \(canvasPixels) canvas pixels, over the limit of \(maxFramePixels) frame pixels")
        }
    }
}
