#!/usr/bin/env python3
"""Decodes every frame of every image in LIST (one path per line) with Pillow, in one process.

Pillow's wheel brings its own libraries (its WebP plugin uses libwebp's WebPAnimDecoder for stills
too, full size; its AVIF plugin libavif with dav1d and converts to RGB(A); GIF is Pillow's own LZW
decoder), so this is "what a Python program doing the same check costs", not the same library
calls as prefetchd. AVIF decoding is held to one thread, like every other row. With --jpeg-draft,
JPEGs are decoded with draft scaling to 1/8 (libjpeg-turbo's DCT scaling), as prefetchd's decode
check asks libjpeg-turbo: the fetch benchmark's one-process floor for its JPEG corpus. Prints the
files, frames and pixels decoded; exits 1 if any file failed.

Usage: pillow_decode.py [--jpeg-draft] LIST
"""

import sys

from PIL import AvifImagePlugin, Image, features

AvifImagePlugin.DEFAULT_MAX_THREADS = 1
Image.MAX_IMAGE_PIXELS = None


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--versions":
        import PIL
        print(f"Pillow {PIL.__version__} (libwebp {features.version('webp')}, libavif {features.version('avif')}"
              f" with {AvifImagePlugin._avif.codec_versions()})")
        return 0
    arguments = sys.argv[1:]
    draft = arguments[:1] == ["--jpeg-draft"]
    if draft:
        arguments = arguments[1:]
    if len(arguments) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    files = frames = pixels = failed = 0
    with open(arguments[0]) as listing:
        for line in listing:
            path = line.rstrip("\n")
            if not path:
                continue
            files += 1
            try:
                with Image.open(path) as image:
                    if draft and image.format == "JPEG":
                        image.draft(image.mode, ((image.size[0] + 7) // 8, (image.size[1] + 7) // 8))
                    for index in range(getattr(image, "n_frames", 1)):
                        image.seek(index)
                        image.load()
                        frames += 1
                        pixels += image.size[0] * image.size[1]
            except Exception as error:  # noqa: BLE001 - a file that fails is counted and named
                print(f"pillow_decode.py: {path}: {error}", file=sys.stderr)
                failed += 1
    print(f"files {files} frames {frames} pixels {pixels} failed {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
