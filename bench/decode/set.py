#!/usr/bin/env python3
"""Generate the decode benchmark's image set: WebP, AVIF, GIF and JPEG XL files of web sizes.

Every image is a crop of one of the photographs in Tests/Fixtures/corpus (the libavif test
photos kodim23, sofa and paris, decoded once with avifdec; the libjpeg-turbo test photos testorig,
monkey16 and shira_bird8 for thumbnails of up to 400 px only), scaled to a long side drawn from
200-400 px (45 %), 400-800 px (40 %) and 800-1200 px (15 %), never up by more than 1.6x, mirrored
at random and given a small brightness, contrast and saturation change, then encoded with Debian's
own tools:

  webp  cwebp lossy -q 60-90 (70 %), lossy with an alpha mask (5 %), cwebp -lossless on a long side
        of at most 600 px (15 %), img2webp -lossy of 4-12 frames panning across the photo at
        200-480 px (10 %)
  avif  avifenc (aom, speed 6, one thread) 4:2:0 8-bit with the quantizer drawn from 18-40 (80 %),
        10-bit 4:2:0 (5 %), 4:4:4 (5 %), 4:2:0 with an alpha mask (5 %), a sequence of 4-8 frames at
        200-400 px (5 %; avifenc gives a sequence from PNG frames an alpha track)
  gif   Pillow: 256 colours, adaptive palette, Floyd-Steinberg, long side at most 640 px (80 %);
        4-12 frames at 200-400 px, Pillow's GIF optimiser on (20 %)
  jxl   cjxl (effort 7, one thread) lossy -d 0.8-2.5 (85 %), lossless -d 0 on a long side of at
        most 600 px (10 %), an animation of 3-6 frames at 200-400 px made from an APNG (5 %)

Each image's parameters come from its own seeded generator (seed, format, number), so the set
does not depend on how the work is spread over processes, and the same seed and tool versions
give the same files, byte for byte, but for the creation and modification times avifenc writes
into an AVIF sequence's movie, track and media headers (20 bytes of each animated AVIF).
Generation runs in --jobs processes, each encoder with one thread.

Output: OUT/<format>/NNNNN.<ext>, OUT/manifest.tsv (file, format, kind, width, height, frames,
bytes) and OUT/set.stamp (the parameters and the encoders' versions); when the stamp matches, nothing
is generated again. Put OUT on a tmpfs: the benchmark reads the files from there.

Usage: set.py --out DIR [--webp N] [--avif N] [--gif N] [--jxl N] [--seed S] [--jobs J]
Prints OUT on standard output.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "Tests" / "Fixtures" / "corpus"
# (name, path in the corpus, weight, thumbnail only)
SOURCES = [
    ("kodim23", "gif-webp-avif/libavif/kodim23_yuv420_8bpc.avif", 4, False),
    ("sofa", "gif-webp-avif/libavif/sofa_grid1x5_420.avif", 4, False),
    ("paris", "gif-webp-avif/libavif/paris_icc_exif_xmp.avif", 3, False),
    ("testorig", "libjpeg-turbo-testimages/testorig.jpg", 1, True),
    ("monkey16", "libjpeg-turbo-testimages/monkey16.png", 1, True),
    ("shira_bird8", "libjpeg-turbo-testimages/shira_bird8.bmp", 1, True),
]
EXTENSIONS = {"webp": "webp", "avif": "avif", "gif": "gif", "jxl": "jxl"}
# (kind, share) per format, drawn in this order.
KINDS = {
    "webp": [("lossy", 0.70), ("lossy-alpha", 0.05), ("lossless", 0.15), ("animated", 0.10)],
    "avif": [("yuv420", 0.80), ("yuv420-10bit", 0.05), ("yuv444", 0.05), ("yuv420-alpha", 0.05), ("animated", 0.05)],
    "gif": [("still", 0.80), ("animated", 0.20)],
    "jxl": [("lossy", 0.85), ("lossless", 0.10), ("animated", 0.05)],
}
FORMAT_SALT = {"webp": 1, "avif": 2, "gif": 3, "jxl": 4}


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="output folder (on a tmpfs)")
    parser.add_argument("--webp", type=int, default=2500, help="WebP images (default 2500)")
    parser.add_argument("--avif", type=int, default=2500, help="AVIF images (default 2500)")
    parser.add_argument("--gif", type=int, default=1000, help="GIF images (default 1000)")
    parser.add_argument("--jxl", type=int, default=1000, help="JPEG XL images (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="encoding processes (default: cores)")
    arguments = parser.parse_args()
    if min(arguments.webp, arguments.avif, arguments.gif, arguments.jxl) < 0 or arguments.jobs < 1:
        parser.error("counts must be >= 0 and jobs >= 1")
    return arguments


def tool_versions():
    def first_line(command):
        try:
            result = subprocess.run(command, capture_output=True, text=True, check=False)
        except OSError as error:
            return f"missing ({error})"
        text = (result.stdout or result.stderr).strip().splitlines()
        return text[0] if text else "unknown"

    import PIL
    return {
        "cwebp": first_line(["cwebp", "-version"]),
        "img2webp": first_line(["img2webp", "-version"]),
        "avifenc": first_line(["avifenc", "--version"]),
        "cjxl": first_line(["cjxl", "--version"]),
        "pillow": PIL.__version__,
    }


def prepare_sources(folder):
    """Decodes the source photos once to 8-bit RGB PNGs in folder; returns
    [(name, path, weight, thumbnail only, long side)]."""
    folder.mkdir(parents=True, exist_ok=True)
    prepared = []
    for name, relative, weight, thumb in SOURCES:
        source = CORPUS / relative
        target = folder / f"{name}.png"
        if not target.exists():
            if source.suffix == ".avif":
                decoded = folder / f"{name}.decoded.png"
                subprocess.run(["avifdec", "-d", "8", str(source), str(decoded)], check=True, stdout=subprocess.DEVNULL)
                image = Image.open(decoded)
            else:
                image = Image.open(source)
            if image.mode == "I;16" or image.mode.startswith("I"):
                image = image.point(lambda value: value / 256).convert("L")
            image.convert("RGB").save(target)
        prepared.append((name, str(target), weight, thumb, max(Image.open(target).size)))
    return prepared


def draw_kind(rng, kinds):
    roll = rng.random()
    total = 0.0
    for kind, share in kinds:
        total += share
        if roll < total:
            return kind
    return kinds[-1][0]


def draw_long_side(rng, low=200, high=1200):
    roll = rng.random()
    if roll < 0.45:
        side = rng.randint(200, 400)
    elif roll < 0.85:
        side = rng.randint(401, 800)
    else:
        side = rng.randint(801, 1200)
    return max(low, min(high, side))


# A crop is scaled up by at most this much (sofa, 1,024 px wide, gives the 1,200 px images).
MAX_UPSCALE = 1.6


def pick_source(rng, sources, long_side):
    usable = [s for s in sources if long_side <= MAX_UPSCALE * s[4] and not (s[3] and long_side > 400)]
    weights = [s[2] for s in usable]
    return rng.choices(usable, weights=weights)[0]


def crop_window(rng, size, aspect, long_side):
    """A window of the given aspect ratio, 45-100 % of the largest that fits the photo, and no
    smaller than long_side / MAX_UPSCALE on its long side."""
    width, height = size
    fit_w = min(width, height * aspect)
    fit_h = fit_w / aspect
    low = min(1.0, max(0.45, long_side / MAX_UPSCALE / max(fit_w, fit_h)))
    scale = rng.uniform(low, 1.0)
    w, h = max(8, int(fit_w * scale)), max(8, int(fit_h * scale))
    x = rng.randint(0, width - w)
    y = rng.randint(0, height - h)
    return x, y, w, h


def render(rng, source_path, long_side, aspect, frames=1):
    """frames RGB images of long side long_side: a crop of the source (panning when frames > 1)."""
    photo = Image.open(source_path).convert("RGB")
    if rng.random() < 0.5:
        photo = photo.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    x, y, w, h = crop_window(rng, photo.size, aspect, long_side)
    out_size = (long_side, max(1, round(long_side * h / w))) if w >= h else (max(1, round(long_side * w / h)), long_side)
    brightness, contrast, saturation = rng.uniform(0.85, 1.15), rng.uniform(0.85, 1.15), rng.uniform(0.7, 1.3)
    # Pan by up to a fifth of the free room per frame, within the photo.
    room_x, room_y = photo.size[0] - w, photo.size[1] - h
    step_x = rng.choice([-1, 1]) * max(1, room_x // max(1, 5 * frames)) if room_x else 0
    step_y = rng.choice([-1, 1]) * max(1, room_y // max(1, 8 * frames)) if room_y else 0
    images = []
    for frame in range(frames):
        fx = min(max(0, x + frame * step_x), room_x)
        fy = min(max(0, y + frame * step_y), room_y)
        image = photo.crop((fx, fy, fx + w, fy + h)).resize(out_size, Image.Resampling.LANCZOS)
        image = ImageEnhance.Brightness(image).enhance(brightness)
        image = ImageEnhance.Contrast(image).enhance(contrast)
        image = ImageEnhance.Color(image).enhance(saturation)
        images.append(image)
    return images


def alpha_mask(rng, image):
    """The image with a soft-edged ellipse or rounded rectangle as alpha (a cut-out product shot)."""
    w, h = image.size
    mask = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(mask)
    inset = rng.uniform(0.03, 0.15)
    box = (int(w * inset), int(h * inset), int(w * (1 - inset)), int(h * (1 - inset)))
    if rng.random() < 0.5:
        draw.ellipse(box, fill=255)
    else:
        draw.rounded_rectangle(box, radius=int(min(w, h) * 0.1), fill=255)
    mask = mask.filter(ImageFilter.GaussianBlur(max(1, min(w, h) // 60)))
    rgba = image.convert("RGBA")
    rgba.putalpha(mask)
    return rgba


def run(command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_one(task):
    """Encodes image number of format; returns its manifest row."""
    fmt, number, seed, out, sources = task
    rng = random.Random(seed * 1_000_003 + FORMAT_SALT[fmt] * 100_003 + number)
    kind = draw_kind(rng, KINDS[fmt])
    animated = kind == "animated"
    if animated:
        long_side = rng.randint(200, 480 if fmt == "webp" else 400)
    elif fmt == "gif" or kind == "lossless":
        long_side = draw_long_side(rng, high=640 if fmt == "gif" else 600)
    else:
        long_side = draw_long_side(rng)
    aspect = rng.choice([rng.uniform(1.2, 1.8), rng.uniform(0.6, 0.85), 1.0, rng.uniform(0.9, 1.5)])
    frames = {"webp": rng.randint(4, 12), "avif": rng.randint(4, 8), "gif": rng.randint(4, 12),
              "jxl": rng.randint(3, 6)}[fmt] if animated else 1
    name, source_path = pick_source(rng, sources, long_side)[:2]
    images = render(rng, source_path, long_side, aspect, frames)
    target = out / fmt / f"{number:05d}.{EXTENSIONS[fmt]}"
    with tempfile.TemporaryDirectory(dir=out / "tmp") as scratch:
        scratch = Path(scratch)
        pngs = []
        for index, image in enumerate(images):
            if kind.endswith("alpha"):
                image = alpha_mask(rng, image)
            path = scratch / f"f{index}.png"
            image.save(path, compress_level=1)
            pngs.append(str(path))
        if fmt == "webp":
            quality = rng.randint(60, 90)
            if kind == "lossy":
                run(["cwebp", "-quiet", "-q", str(quality), pngs[0], "-o", str(target)])
            elif kind == "lossy-alpha":
                run(["cwebp", "-quiet", "-q", str(quality), "-alpha_q", "100", pngs[0], "-o", str(target)])
            elif kind == "lossless":
                run(["cwebp", "-quiet", "-lossless", pngs[0], "-o", str(target)])
            else:
                command = ["img2webp", "-loop", "0", "-lossy", "-q", str(quality)]
                for png in pngs:
                    command += ["-d", str(rng.choice([60, 80, 100, 120])), png]
                run(command + ["-o", str(target)])
        elif fmt == "avif":
            q = rng.randint(18, 40)
            command = ["avifenc", "-s", "6", "-j", "1", "--min", str(max(0, q - 4)), "--max", str(q + 4)]
            command += {"yuv420": ["-y", "420", "-d", "8"], "yuv420-10bit": ["-y", "420", "-d", "10"],
                        "yuv444": ["-y", "444", "-d", "8"], "yuv420-alpha": ["-y", "420", "-d", "8"],
                        "animated": ["-y", "420", "-d", "8", "--fps", "10"]}[kind]
            run(command + pngs + [str(target)])
        elif fmt == "gif":
            paletted = [image.convert("P", palette=Image.Palette.ADAPTIVE, colors=256) for image in images]
            if animated:
                paletted[0].save(target, save_all=True, append_images=paletted[1:], duration=rng.choice([60, 80, 100]), loop=0)
            else:
                paletted[0].save(target)
        else:
            common = ["--num_threads=1", "--quiet"]
            if kind == "lossy":
                run(["cjxl", pngs[0], str(target), "-d", f"{rng.uniform(0.8, 2.5):.2f}"] + common)
            elif kind == "lossless":
                run(["cjxl", pngs[0], str(target), "-d", "0"] + common)
            else:
                apng = scratch / "anim.png"
                images[0].save(apng, save_all=True, append_images=images[1:], duration=100, loop=0)
                run(["cjxl", str(apng), str(target), "-d", f"{rng.uniform(0.8, 2.5):.2f}"] + common)
    width, height = images[0].size
    return (target.relative_to(out).as_posix(), fmt, kind, width, height, frames, target.stat().st_size, name)


def main():
    arguments = parse_arguments()
    out = arguments.out.resolve()
    counts = {"webp": arguments.webp, "avif": arguments.avif, "gif": arguments.gif, "jxl": arguments.jxl}
    stamp = {"seed": arguments.seed, "counts": counts, "tools": tool_versions(), "version": 1}
    stamp_path = out / "set.stamp"
    if stamp_path.exists() and json.loads(stamp_path.read_text()) == stamp and (out / "manifest.tsv").exists():
        print(out)
        return
    for fmt in counts:
        shutil.rmtree(out / fmt, ignore_errors=True)
        (out / fmt).mkdir(parents=True)
    shutil.rmtree(out / "tmp", ignore_errors=True)
    (out / "tmp").mkdir(parents=True)
    stamp_path.unlink(missing_ok=True)
    sources = prepare_sources(out / "sources")
    tasks = [(fmt, number, arguments.seed, out, sources) for fmt in counts for number in range(counts[fmt])]
    rows = []
    done = 0
    with ProcessPoolExecutor(max_workers=arguments.jobs) as pool:
        for row in pool.map(make_one, tasks, chunksize=8):
            rows.append(row)
            done += 1
            if done % 500 == 0:
                print(f"set.py: {done} of {len(tasks)} images", file=sys.stderr)
    shutil.rmtree(out / "tmp", ignore_errors=True)
    with open(out / "manifest.tsv", "w") as manifest:
        manifest.write("file\tformat\tkind\twidth\theight\tframes\tbytes\tsource\n")
        for row in rows:
            manifest.write("\t".join(str(value) for value in row) + "\n")
    stamp_path.write_text(json.dumps(stamp))
    print(out)


if __name__ == "__main__":
    main()
