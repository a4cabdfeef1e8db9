import Foundation
import Testing

/// ImageMagick 6, exiftool and libjpeg-turbo's cjpeg from Debian's packages (`imagemagick`,
/// `libimage-exiftool-perl`, `libjpeg-turbo-progs`, which scripts/test installs): the independent
/// reference downscales and the measure the variant tests hold prefetchd's variants to, and the
/// kinds of JPEG ImageMagick does not write. Called by their Debian names, so that no other `convert` on the
/// PATH stands in. A missing tool fails the test that needs it.
enum ImageMagick {
    static let convert = "/usr/bin/convert-im6.q16"
    static let compare = "/usr/bin/compare-im6.q16"
    static let exiftool = "/usr/bin/exiftool"
    static let cjpeg = "/usr/bin/cjpeg"

    /// Runs `tool` and returns its outcome; throws when it cannot be started.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Binary.Outcome {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw ToolMissing(tool: tool)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        return try Binary.outcome(of: process)
    }

    /// `convert ARGUMENTS`, which must succeed.
    static func convert(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let outcome = try run(convert, arguments)
        try #require(outcome.status == 0, "convert \(arguments.joined(separator: " ")): \(outcome.stderr)", sourceLocation: sourceLocation)
    }

    /// PSNR in dB of the luma (Rec. 601 weights) of two images of one size, each flattened onto white
    /// first; `.infinity` for identical ones. The pixels are taken as stored, as sRGB: ImageMagick
    /// would otherwise read a PNG's gAMA 1.0 (most of PngSuite) as linear and convert it on the way.
    static func lumaPSNR(_ first: String, _ second: String, in folder: URL) throws -> Double {
        var lumas: [[Double]] = []
        for (number, image) in [first, second].enumerated() {
            let output = folder.appendingPathComponent("pixels-\(number).rgb").path
            try convert([image, "-set", "colorspace", "sRGB", "-background", "white", "-alpha", "remove", "-alpha", "off",
                         "-type", "TrueColor", "-depth", "8", "rgb:" + output])
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
            var luma: [Double] = []
            for index in stride(from: 0, to: bytes.count - 2, by: 3) {
                let red: Double = 0.299 * Double(bytes[index])
                let green: Double = 0.587 * Double(bytes[index + 1])
                let blue: Double = 0.114 * Double(bytes[index + 2])
                luma.append(red + green + blue)
            }
            lumas.append(luma)
        }
        try #require(lumas[0].count == lumas[1].count && !lumas[0].isEmpty, "\(first) and \(second) differ in size")
        let squared = zip(lumas[0], lumas[1]).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / Double(lumas[0].count)
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / squared)
    }

    /// ImageMagick's own PSNR in dB of two images of one size, over all their channels (`compare
    /// -metric PSNR`, which prints it on standard error and exits 1 when they differ).
    static func psnr(_ first: String, _ second: String) throws -> Double {
        let outcome = try run(compare, ["-metric", "PSNR", first, second, "null:"])
        let text = outcome.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(text == "inf" ? .infinity : Double(text), "compare \(first) \(second): \(text)")
    }

    struct ToolMissing: Error, CustomStringConvertible {
        let tool: String
        var description: String { "\(tool) is not installed: scripts/test installs imagemagick, libimage-exiftool-perl and libjpeg-turbo-progs" }
    }
}
