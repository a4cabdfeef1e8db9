#!/usr/bin/env bash
# The variants benchmark: 256 px JPEG thumbnails at quality 80 of the benchmark corpus, side by side,
# in interleaved rounds, CPU (user + sys) beside wall, every output on a tmpfs (/dev/shm):
#   vipsthumbnail  one process over all the files, default threads:
#                  vipsthumbnail FILE... -s 256 -o OUT/%s.jpg[Q=80]
#   imagemagick    convert FILE -thumbnail 256x256 -quality 80 OUT, one process per file, on the
#                  first --magick files (it is slow)
#   decode         prefetchd run with validate: decode, cold cache (the corpus served by nginx)
#   variant        the same with one variant {max_pixel_size: 256, format: jpeg, quality: 80}
# Prints one TSV line a row a round (bench/measure.sh: label, wall s, cpu s, peak RSS KiB, status).
#
# Usage: PREFETCHD=path/to/prefetchd bench/variants/run.sh [--images N] [--magick M] [--rounds R] [--port P] [--rows LIST]
#   --images N   corpus size (default 20000)   --magick M  files ImageMagick makes (default 2000)
#   --rounds R   rounds (default 3)            --port P    nginx port (default 8090)
#   --rows LIST  the rows to run, space-separated, in the odd rounds' order
#                (default "vipsthumbnail imagemagick decode variant")
set -euo pipefail

images=20000 magick=2000 rounds=3 port=8090 chosen="vipsthumbnail imagemagick decode variant"
while (($#)); do
    case $1 in
        --images) images=$2; shift 2 ;;
        --magick) magick=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --rows) chosen=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ -x ${PREFETCHD:-} ]] || { echo "run.sh: set PREFETCHD to a prefetchd binary (a release build)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../setup.sh
source "$here/../setup.sh"
bench_setup
"$BENCH/../scripts/bootstrap" libvips-tools imagemagick nginx
work=/dev/shm/prefetchd-bench-variants
corpus=$work/corpus
mkdir -p "$work"
"$PYTHON" "$BENCH/corpus.py" --count "$images" --base-url "http://127.0.0.1:$port" --validate decode --out "$corpus" >/dev/null
sed 's/^name: bench-decode/name: bench-variant/; s/^  validate: decode$/  validate: decode\n  variants: [{name: thumb, max_pixel_size: 256, format: jpeg, quality: 80}]/' \
    "$corpus/job-decode.yaml" >"$corpus/job-variant.yaml"
cleanup() {
    "$BENCH/nginx.sh" stop "$corpus" "$port" >/dev/null 2>&1 || true
    rm -rf "$work/out" "$work/cache-"*
}
trap cleanup EXIT
"$BENCH/nginx.sh" start "$corpus" "$port" >&2
mapfile -t files < <(find "$corpus/images" -name '*.jpg' | sort)
printf 'row\twall_s\tcpu_s\tpeak_rss_kib\tstatus\n'
for ((round = 1; round <= rounds; round++)); do
    read -ra rows <<<"$chosen"
    # Odd rounds in this order, even ones reversed.
    if ((round % 2 == 0)); then
        for ((i = 0, j = ${#rows[@]} - 1; i < j; i++, j--)); do
            row=${rows[i]} rows[i]=${rows[j]} rows[j]=$row
        done
    fi
    for row in "${rows[@]}"; do
        rm -rf "$work/out" "$work/cache-$row"
        mkdir -p "$work/out"
        case $row in
            vipsthumbnail)
                "$BENCH/measure.sh" "$row" "$work/time" -- vipsthumbnail "${files[@]}" -s 256 -o "$work/out/%s.jpg[Q=80]" ;;
            imagemagick)
                "$BENCH/measure.sh" "$row ($magick files)" "$work/time" -- bash -c \
                    'out=$1; shift; for f in "$@"; do convert-im6.q16 "$f" -thumbnail 256x256 -quality 80 "$out/${f##*/}"; done' \
                    _ "$work/out" "${files[@]:0:$magick}" ;;
            decode|variant)
                "$BENCH/measure.sh" "$row" "$work/time" -- "$PREFETCHD" run "$corpus/job-$row.yaml" \
                    --cache "$work/cache-$row" --quiet --progress never ;;
            *) echo "run.sh: unknown row $row" >&2; exit 2 ;;
        esac
    done
done
