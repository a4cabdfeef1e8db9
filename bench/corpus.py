#!/usr/bin/env python3
"""Generate the benchmark image corpus, its URL list and prefetchd job files.

The corpus is COUNT JPEG files (default 20,000) under OUT/images/NNN/NNNNNN.jpg:
about 95 % of them between 15 and 80 KB (sizes drawn uniformly) and about 5 % between
1 and 3 MB (drawn from a triangular law with its mode at 1.25 MB), so that 20,000 images
weigh about 2.65 GB in total. The content is a mix of gradients, shapes and uniform
noise; each image's pixel count is searched (at a fixed, randomly drawn JPEG quality) so
that its size lands within 6 % of a drawn target.

Speed: encoding 20,000 images with a size search takes too long, so only a pool of
POOL distinct base images (default 300, of which the large ones are the same 5 %) is made
with Pillow. Every corpus file is a copy of one pool image (chosen by the seeded random
generator) with a JPEG comment segment (marker FF FE, two length bytes, then the text
"prefetchd-bench seed S image I") inserted right after the SOI marker (FF D8). A COM
segment is allowed anywhere between markers, so each file is still a valid JPEG that
decodes to the pool image's pixels, and every file has distinct bytes (and so a distinct
checksum), which keeps content-addressed caches and de-duplication from short-cutting.

Everything depends only on the parameters (count, seed, pool, large fraction): the same
parameters give byte-identical files. When OUT/corpus.stamp records the same parameters,
the images are not generated again. The URL list (OUT/urls.txt) and one job file per
validation level (OUT/job-<level>.yaml) are rewritten on every call, since they depend
on the server's base URL. The job files name no cache path: prefetchd takes it from
`--cache DIR` on its command line. They set per_host (default 16) so that a single-host
benchmark is not held below the concurrency given with `--concurrency`.

Usage: corpus.py [--count N] [--seed S] [--pool P] [--large-fraction F]
                 [--base-url URL] [--validate LEVEL ...] [--per-host N] [--out DIR]
Prints the corpus folder on standard output.
"""

import argparse
import json
import os
import random
import shutil
import struct
import sys
from io import BytesIO
from pathlib import Path

from PIL import Image, ImageDraw

SMALL_RANGE = (15_000, 80_000)
LARGE_RANGE = (1_000_000, 3_000_000)
LARGE_MODE = 1_250_000
STAMP_NAME = "corpus.stamp"
# Leave room for the comment segment and stay clear of the range edges.
SIZE_MARGIN = 0.02


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=20_000, help="number of images (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--pool", type=int, default=300, help="distinct base images (default 300)")
    parser.add_argument("--large-fraction", type=float, default=0.05,
                        help="fraction of 1-3 MB images (default 0.05)")
    parser.add_argument("--base-url", default="http://127.0.0.1:8090",
                        help="URL the corpus folder is served at (default http://127.0.0.1:8090)")
    parser.add_argument("--validate", nargs="+", default=["decode"],
                        choices=["none", "sniff", "header", "decode"],
                        help="validation levels to write job files for (default decode)")
    parser.add_argument("--per-host", type=int, default=16,
                        help="per_host connection limit written into the job files (default 16)")
    parser.add_argument("--out", type=Path,
                        help="corpus folder (default bench/out/corpus-n<count>-s<seed>-p<pool>-l<fraction>)")
    arguments = parser.parse_args()
    if arguments.count < 1 or arguments.pool < 2 or not 0 <= arguments.large_fraction < 1:
        parser.error("count must be >= 1, pool >= 2 and large fraction in [0, 1)")
    return arguments


def default_folder(arguments):
    bench = Path(__file__).resolve().parent
    name = f"corpus-n{arguments.count}-s{arguments.seed}-p{arguments.pool}-l{arguments.large_fraction:g}"
    return bench / "out" / name


def encode(image, quality):
    buffer = BytesIO()
    image.save(buffer, "JPEG", quality=quality, optimize=False)
    return buffer.getvalue()


def draw_base(rng, width, height, noise_range):
    """A picture with a gradient, a few shapes and noise of random strength.

    All randomness comes from rng (never from Pillow's own noise generator), and the
    recipe (angle, noise strengths, shapes in relative coordinates) is drawn before the
    noise bytes, so the same rng state gives the same picture at any size."""
    angle = rng.uniform(0, 360)
    strengths = [rng.uniform(*noise_range) for _ in range(3)]
    shapes = []
    for _ in range(rng.randint(2, 12)):
        xs = sorted(rng.random() * width for _ in range(2))
        ys = sorted(rng.random() * height for _ in range(2))
        colour = tuple(rng.randrange(256) for _ in range(3))
        shapes.append((rng.random() < 0.5, [xs[0], ys[0], xs[1], ys[1]], colour))
    gradient = Image.linear_gradient("L").resize((width, height)).rotate(angle)
    channels = []
    for strength in strengths:
        noise = Image.frombytes("L", (width, height), rng.randbytes(width * height))
        channels.append(Image.blend(gradient, noise, strength))
    image = Image.merge("RGB", channels)
    draw = ImageDraw.Draw(image)
    for is_ellipse, box, colour in shapes:
        (draw.ellipse if is_ellipse else draw.rectangle)(box, fill=colour)
    return image


def fit_size(rng, target, large):
    """Encode a fresh picture whose JPEG size lands within size_range, near target.

    The picture's recipe (its own seed), aspect ratio and JPEG quality are fixed first;
    then only its pixel count is scaled until the encoded size is within 6 % of target."""
    size_range = LARGE_RANGE if large else SMALL_RANGE
    low = size_range[0] * (1 + SIZE_MARGIN)
    high = size_range[1] * (1 - SIZE_MARGIN)
    recipe = rng.getrandbits(64)
    aspect = rng.uniform(0.6, 1.8)
    # Large pictures are noisier and finer, like photographs; small ones vary more.
    quality = rng.randint(85, 95) if large else rng.randint(55, 92)
    noise_range = (0.5, 0.9) if large else (0.1, 0.6)
    pixels = target / (0.8 if large else 0.3)
    for _ in range(10):
        width = max(16, round((pixels * aspect) ** 0.5))
        height = max(16, round(pixels / width))
        data = encode(draw_base(random.Random(recipe), width, height, noise_range), quality)
        if low <= len(data) <= high and abs(len(data) - target) <= target * 0.06:
            return data
        pixels *= target / len(data)
    raise RuntimeError(f"could not make a JPEG of about {target:.0f} bytes")


def progress(text, last):
    """A progress line rewritten in place on a terminal; only the last one otherwise."""
    if sys.stderr.isatty():
        print(f"\rcorpus: {text}", end="\n" if last else "", file=sys.stderr, flush=True)
    elif last:
        print(f"corpus: {text}", file=sys.stderr)


def make_pool(rng, pool_size, large_count):
    """Pool entries: (is_large, jpeg bytes)."""
    pool = []
    for index in range(pool_size):
        large = index < large_count
        if large:
            target = rng.triangular(LARGE_RANGE[0], LARGE_RANGE[1], LARGE_MODE)
        else:
            target = rng.uniform(*SMALL_RANGE)
        pool.append((large, fit_size(rng, target, large)))
        progress(f"pool image {index + 1}/{pool_size}", index + 1 == pool_size)
    return pool


def with_comment(jpeg, text):
    """The JPEG with a COM segment holding text inserted right after SOI."""
    if jpeg[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG: no SOI marker")
    payload = text.encode("ascii")
    return jpeg[:2] + b"\xff\xfe" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def relative_path(index):
    return f"images/{index // 1000:03d}/{index:06d}.jpg"


def generate_images(folder, arguments, parameters):
    rng = random.Random(arguments.seed)
    large_total = round(arguments.count * arguments.large_fraction)
    large_pool = 0 if large_total == 0 else max(1, round(arguments.pool * arguments.large_fraction))
    pool = make_pool(rng, arguments.pool, large_pool)
    small_entries = [data for large, data in pool if not large]
    large_entries = [data for large, data in pool if large]
    large_indices = set(rng.sample(range(arguments.count), large_total))
    total_bytes = 0
    for index in range(arguments.count):
        source = rng.choice(large_entries if index in large_indices else small_entries)
        data = with_comment(source, f"prefetchd-bench seed {arguments.seed} image {index}")
        path = folder / relative_path(index)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        total_bytes += len(data)
        if index % 500 == 499 or index == arguments.count - 1:
            progress(f"image {index + 1}/{arguments.count}", index == arguments.count - 1)
    stamp = dict(parameters, files=arguments.count, bytes=total_bytes, large=large_total)
    (folder / STAMP_NAME).write_text(json.dumps(stamp, indent=2, sort_keys=True) + "\n")
    print(f"corpus: {arguments.count} images, {total_bytes / 1e9:.2f} GB, {large_total} large", file=sys.stderr)


def write_jobs(folder, arguments):
    base = arguments.base_url.rstrip("/")
    lines = [f"{base}/{relative_path(index)}\n" for index in range(arguments.count)]
    (folder / "urls.txt").write_text("".join(lines))
    for level in arguments.validate:
        job = (
            "# prefetchd benchmark job, written by bench/corpus.py; the cache path comes from --cache.\n"
            "version: 1\n"
            f"name: bench-{level}\n"
            "cache:\n"
            "  max_size: 0\n"
            "  max_age: 0\n"
            "defaults:\n"
            f"  per_host: {arguments.per_host}\n"
            f"  validate: {level}\n"
            "  formats: [jpeg]\n"
            "network:\n"
            "  allow_private: true\n"
            "sets:\n"
            "  - name: corpus\n"
            "    url_file: urls.txt\n"
        )
        (folder / f"job-{level}.yaml").write_text(job)


def main():
    arguments = parse_arguments()
    folder = (arguments.out or default_folder(arguments)).resolve()
    parameters = {"count": arguments.count, "seed": arguments.seed, "pool": arguments.pool,
                  "large_fraction": arguments.large_fraction, "generator": 1}
    stamp_path = folder / STAMP_NAME
    stamp = json.loads(stamp_path.read_text()) if stamp_path.exists() else {}
    if all(stamp.get(key) == value for key, value in parameters.items()):
        print(f"corpus: {folder.name} exists, not generated again", file=sys.stderr)
    else:
        stamp_path.unlink(missing_ok=True)
        shutil.rmtree(folder / "images", ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        generate_images(folder, arguments, parameters)
    write_jobs(folder, arguments)
    print(folder)


if __name__ == "__main__":
    main()
