import Foundation
import Testing
@testable import PrefetchKit

/// A variant keeps none of its original's metadata, whatever the output format: libvips 8.14's WebP
/// saver wrote the EXIF (GPS position and author included), XMP and ICC data whatever "strip" said.
@Suite struct VariantMetadataTests {
    @Test(arguments: [VariantSpec.Format.webp, .png, .jpeg])
    func aVariantCarriesNoneOfTheOriginalsMetadata(_ format: VariantSpec.Format) throws {
        let folder = try TemporaryDirectory()
        let original = folder.file("tagged.jpg").path
        try FileManager.default.copyItem(atPath: CorpusEntry.root + "/libjpeg-turbo-testimages/testorig.jpg", toPath: original)
        let tagging = try ImageMagick.run(ImageMagick.exiftool, ["-q", "-overwrite_original", "-Artist=SECRET ARTIST",
                                                                 "-GPSLatitude=48.1", "-GPSLatitudeRef=N", "-XMP-dc:Creator=SECRET CREATOR",
                                                                 original])
        try #require(tagging.status == 0, "\(tagging.stderr)")
        let before = try ImageMagick.run(ImageMagick.exiftool, ["-s", "-s", "-Artist", "-GPSLatitude", "-Creator", original])
        #expect(before.stdout.contains("SECRET ARTIST") && before.stdout.contains("GPSLatitude") && before.stdout.contains("SECRET CREATOR"))

        // Through libvips (a `cover` box), not the JPEG fast path, for every format.
        let made = try VariantMaker.make(VariantSpec(name: "card", box: .cover(width: 40, height: 30), format: format),
                                         fromFileAt: original, format: .jpeg)
        #expect(made.maker == .libvips)
        let variant = try folder.write("variant", made.data).path
        let after = try ImageMagick.run(ImageMagick.exiftool, ["-a", "-s", "-s", "-Artist", "-GPS:all", "-XMP:all", "-ICC_Profile:all", variant])
        try #require(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.isEmpty, "\(format): \(after.stdout)")
    }
}
