#!/usr/bin/env bash
# The decode benchmark: full decodes of WebP, AVIF, GIF and JPEG XL images, prefetchd against
# reference tools doing the same decode, interleaved over --rounds rounds (the row order reversed
# in even rounds), compared by medians. Inputs and outputs live on a tmpfs: the work is CPU-bound.
#
# The image set (bench/decode/set.py) is generated once into WORK/set, outside any timing. Rows,
# per format:
#   prefetchd fsck          decode-only: `prefetchd fsck` on a cache holding the format's images
#                           (filled beforehand by `prefetchd run` with validate: header); fsck walks
#                           the index, stats and checksums each file, reads its header and decodes it
#                           (one thread; fsck has no option for more)
#   decode-ref              bench/decode/ref.c, one process, one thread, the same library calls as
#                           prefetchd's decoders (WebP stills at 1/8 output scale, as prefetchd)
#   decode-ref, full size   WebP only: stills decoded at full size into RGBA (dwebp's work)
#   decode-ref, YUV         WebP only: lossy stills without alpha decoded at full size into YUV (no
#                           RGB conversion, no rescaling), the others as prefetchd does
#   decode-ref, + RGB       AVIF only: each frame also converted to RGBA (what a viewer adds)
#   dwebp per image         WebP stills only (dwebp does not decode animations): `dwebp -quiet FILE`
#                           (no -o: decoded at full size and discarded), a process per image through
#                           `xargs -n 1`; beside it decode-ref over the same stills at full size, and
#                           `dwebp -version` per image: the process cost alone
#   avifdec --info per image  AVIF: `avifdec --info FILE` decodes every frame (YUV, as prefetchd);
#                           beside it `avifdec --version` per image
#   djxl per image          JPEG XL: `djxl --num_threads=1 --quiet FILE` (no output file: decoded and
#                           discarded); beside it `djxl --version` per image
#   Pillow                  bench/decode/pillow_decode.py, one process: Pillow's wheel with its own
#                           libwebp, libavif and dav1d (newer than Debian's), AVIF on one thread, GIF
#                           with Pillow's own decoder; full size, RGB(A). Not JPEG XL (no plugin).
#   run decode / run header end to end: `prefetchd run` of the format's URLs from nginx on loopback
#                           into a new cache on the tmpfs, validate: decode and validate: header
#                           (--concurrency N); its validation pool has one thread per core
#   decode-ref, 2 threads   the reference with as many threads as the run's validation pool
# Every row is timed by GNU time (wall, user + sys CPU, peak RSS) and checked: fsck exits 0 with no
# problem, run reports every URL fetched and none failed, decode-ref and Pillow exit 0 with no
# failure, the per-image loops exit 0.
#
# Usage: bench/decode/run.sh [--rounds R] [--formats "webp avif gif jxl"] [--webp N] [--avif N]
#                            [--gif N] [--jxl N] [--seed S] [--concurrency N] [--port P]
#                            [--work DIR] [--results FILE]
#   --rounds R      rounds of every row (default 5)
#   --formats LIST  formats to measure, in this order (default "webp avif gif jxl")
#   --webp N ...    images per format in the set (default 2500 WebP, 2500 AVIF, 1000 GIF, 1000 JXL)
#   --seed S        the set's seed (default 1)
#   --concurrency N transfers in flight for the run rows (default 16)
#   --port P        loopback port for nginx (default 8091)
#   --work DIR      work folder, on a tmpfs (default /dev/shm/prefetchd-decode); the set is kept
#                   there between runs (set.py skips generation when its stamp matches), caches
#                   and timings are made again
#   --results FILE  Markdown fragment to write (default bench/out/decode.md)
# Environment: PREFETCHD=path/to/prefetchd (default .build/release/prefetchd of this checkout).
set -euo pipefail

rounds=5 formats="webp avif gif jxl" seed=1 concurrency=16 port=8091 work=/dev/shm/prefetchd-decode results=""
declare -A count=([webp]=2500 [avif]=2500 [gif]=1000 [jxl]=1000)
while (($#)); do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --formats) formats=$2; shift 2 ;;
        --webp|--avif|--gif|--jxl) count[${1#--}]=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --concurrency) concurrency=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --results) results=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "decode/run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
for format in $formats; do
    [[ -n ${count[$format]:-} ]] || { echo "decode/run.sh: unknown format $format" >&2; exit 2; }
done

source "$(cd "$(dirname "$0")/.." && pwd)/setup.sh"
bench_setup
"$BENCH/../scripts/bootstrap" webp libavif-bin libjxl-tools gcc time nginx >&2
PREFETCHD=${PREFETCHD:-$BENCH/../.build/release/prefetchd}
[[ -x $PREFETCHD ]] || { echo "decode/run.sh: $PREFETCHD is not an executable; build it or set PREFETCHD" >&2; exit 3; }
PREFETCHD=$(cd "$(dirname "$PREFETCHD")" && pwd)/$(basename "$PREFETCHD")
# The binary as the results name it: relative to this checkout when inside it.
root=$(cd "$BENCH/.." && pwd)
prefetchd_name=${PREFETCHD#"$root"/}
results=${results:-$OUT/decode.md}

mkdir -p "$work"
work=$(cd "$work" && pwd)
if [[ $(stat -f -c %T "$work") != tmpfs ]]; then
    echo "decode/run.sh: $work is not on a tmpfs; mount one (mount -t tmpfs) or use /dev/shm" >&2
    exit 3
fi
set_dir=$work/set
"$PYTHON" "$BENCH/decode/set.py" --out "$set_dir" --seed "$seed" --webp "${count[webp]}" --avif "${count[avif]}" \
    --gif "${count[gif]}" --jxl "${count[jxl]}" >/dev/null

run_dir=$work/run
rm -rf "$run_dir"
mkdir -p "$run_dir/bin" "$run_dir/lists" "$run_dir/time"
cleanup() {
    "$BENCH/nginx.sh" stop "$set_dir" "$port" || true
    rm -rf "$run_dir/caches" "$run_dir/run-cache"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The reference, built against Debian's libraries.
ref=$run_dir/bin/decode-ref
gcc -O2 -o "$ref" "$BENCH/decode/ref.c" \
    $(pkg-config --cflags --libs libwebp libwebpdemux libavif libjxl) -lgif -lpthread

# Lists: every file of a format, and the WebP stills (what dwebp decodes).
for format in $formats; do
    awk -F '\t' -v f="$format" -v dir="$set_dir" 'NR > 1 && $2 == f { print dir "/" $1 }' "$set_dir/manifest.tsv" \
        >"$run_dir/lists/$format.txt"
done
awk -F '\t' -v dir="$set_dir" 'NR > 1 && $2 == "webp" && $3 != "animated" { print dir "/" $1 }' "$set_dir/manifest.tsv" \
    >"$run_dir/lists/webp-stills.txt"

# Job files: the format's URLs, validate: header (to fill the fsck caches, and the run header row)
# and validate: decode.
base_url=http://127.0.0.1:$port
for format in $formats; do
    awk -F '\t' -v f="$format" -v base="$base_url" 'NR > 1 && $2 == f { print base "/" $1 }' "$set_dir/manifest.tsv" \
        >"$run_dir/lists/$format-urls.txt"
    for level in header decode; do
        cat >"$run_dir/lists/job-$format-$level.yaml" <<YAML
# decode benchmark job, written by bench/decode/run.sh; the cache path comes from --cache.
version: 1
name: decode-$format-$level
cache:
  max_size: 0
  max_age: 0
defaults:
  per_host: $concurrency
  validate: $level
  formats: [$format]
network:
  allow_private: true
sets:
  - name: $format
    url_file: $format-urls.txt
YAML
    done
done

"$BENCH/nginx.sh" start "$set_dir" "$port"

# One TSV line per timed run: format, label, round, wall, cpu, rss KiB, status, check, files.
rows=$run_dir/rows.tsv
: >"$rows"
row_count=0
load_start=$(cut -d ' ' -f 1-3 /proc/loadavg)

# measure FORMAT LABEL ROUND FILES CHECK_FUNCTION -- COMMAND...
measure() {
    local format=$1 label=$2 round=$3 files=$4 check=$5 line status timefile
    shift 6
    row_count=$((row_count + 1))
    timefile=$run_dir/time/$row_count
    echo "decode/run.sh: round $round, $format: $label" >&2
    line=$("$BENCH/measure.sh" "$label" "$timefile" -- "$@")
    status=$(cut -f 5 <<<"$line")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$format" "$label" "$round" "$(cut -f 2-5 <<<"$line")" \
        "$("$check" "$status" "$timefile.log")" "$files" >>"$rows"
}

check_exit() { if [[ $1 == 0 ]]; then echo ok; else echo "exit $1: $(tail -n 1 "$2")"; fi; }
check_counts() { # decode-ref and Pillow: exit 0 and "failed 0"
    if [[ $1 == 0 ]] && grep -q 'failed 0$' "$2"; then echo ok; else echo "exit $1: $(tail -n 1 "$2")"; fi
}
check_fsck() {
    if [[ $1 == 0 ]] && grep -q ': 0 problems found' "$2"; then echo ok; else echo "exit $1: $(tail -n 1 "$2")"; fi
}
report_file=""
expected_urls=0
check_report() {
    python3 - "$report_file" "$expected_urls" "$1" <<'PY'
import json, sys
path, expected, status = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    totals = json.load(open(path))["totals"]
except (OSError, ValueError, KeyError) as error:
    print(f"exit {status}: no report: {error}")
    sys.exit()
if status == "0" and totals.get("fetched") == expected and totals.get("failed") == 0:
    print("ok")
else:
    print(f"exit {status}: fetched {totals.get('fetched')}, failed {totals.get('failed')}")
PY
}

# Fill one cache per format for fsck (validate: header stores the format in the row; fsck
# decode-checks every row that names a format).
for format in $formats; do
    cache=$run_dir/caches/$format
    n=$(wc -l <"$run_dir/lists/$format.txt")
    status=0
    "$PREFETCHD" run "$run_dir/lists/job-$format-header.yaml" --cache "$cache" --concurrency "$concurrency" \
        --progress never --report "$run_dir/fill-$format.json" >"$run_dir/fill-$format.log" 2>&1 || status=$?
    report_file=$run_dir/fill-$format.json expected_urls=$n
    verdict=$(check_report "$status")
    [[ $verdict == ok ]] || { echo "decode/run.sh: filling the $format cache: $verdict" >&2; exit 3; }
done

# The kinds of row of a format, in round order.
row_kinds() {
    case $1 in
        webp) echo "fsck ref ref-full ref-yuv cli-version cli ref-stills pillow run-decode run-header ref2" ;;
        avif) echo "fsck ref ref-rgb cli-version cli pillow run-decode run-header ref2" ;;
        gif) echo "fsck ref pillow run-decode run-header ref2" ;;
        jxl) echo "fsck ref cli-version cli run-decode run-header ref2" ;;
    esac
}

run_row() {
    local format=$1 kind=$2 round=$3 list=$run_dir/lists/$1.txt n
    n=$(wc -l <"$list")
    case $format:$kind in
        *:fsck)
            measure "$format" "prefetchd fsck" "$round" "$n" check_fsck -- \
                "$PREFETCHD" fsck --cache "$run_dir/caches/$format" ;;
        *:ref)
            measure "$format" "decode-ref" "$round" "$n" check_counts -- "$ref" "$list" ;;
        webp:ref-full)
            measure "$format" "decode-ref, full size" "$round" "$n" check_counts -- "$ref" --webp-scale full "$list" ;;
        webp:ref-yuv)
            measure "$format" "decode-ref, YUV" "$round" "$n" check_counts -- "$ref" --webp-scale yuv "$list" ;;
        avif:ref-rgb)
            measure "$format" "decode-ref, + RGB" "$round" "$n" check_counts -- "$ref" --avif-rgb "$list" ;;
        *:ref2)
            measure "$format" "decode-ref, $(nproc) threads" "$round" "$n" check_counts -- \
                "$ref" --threads "$(nproc)" "$list" ;;
        webp:ref-stills)
            list=$run_dir/lists/webp-stills.txt n=$(wc -l <"$run_dir/lists/webp-stills.txt")
            measure "$format" "decode-ref, stills, full size" "$round" "$n" check_counts -- \
                "$ref" --webp-scale full "$list" ;;
        webp:cli)
            list=$run_dir/lists/webp-stills.txt n=$(wc -l <"$run_dir/lists/webp-stills.txt")
            measure "$format" "dwebp per image, stills" "$round" "$n" check_exit -- \
                xargs -a "$list" -n 1 dwebp -quiet ;;
        webp:cli-version)
            list=$run_dir/lists/webp-stills.txt n=$(wc -l <"$run_dir/lists/webp-stills.txt")
            measure "$format" "dwebp -version per image, stills" "$round" "$n" check_exit -- \
                sh -c 'exec xargs -a "$1" -n 1 dwebp -version >/dev/null' x "$list" ;;
        avif:cli)
            measure "$format" "avifdec --info per image" "$round" "$n" check_exit -- \
                sh -c 'exec xargs -a "$1" -n 1 avifdec --info >/dev/null' x "$list" ;;
        avif:cli-version)
            measure "$format" "avifdec --version per image" "$round" "$n" check_exit -- \
                sh -c 'exec xargs -a "$1" -n 1 avifdec --version >/dev/null' x "$list" ;;
        jxl:cli)
            measure "$format" "djxl per image" "$round" "$n" check_exit -- \
                xargs -a "$list" -n 1 djxl --num_threads=1 --quiet ;;
        jxl:cli-version)
            measure "$format" "djxl --version per image" "$round" "$n" check_exit -- \
                sh -c 'exec xargs -a "$1" -n 1 djxl --version >/dev/null' x "$list" ;;
        *:pillow)
            measure "$format" "Pillow" "$round" "$n" check_counts -- "$PYTHON" "$BENCH/decode/pillow_decode.py" "$list" ;;
        *:run-decode|*:run-header)
            local level=${kind#run-}
            rm -rf "$run_dir/run-cache"
            report_file=$run_dir/run-report.json expected_urls=$n
            rm -f "$report_file"
            measure "$format" "prefetchd run, validate: $level" "$round" "$n" check_report -- \
                "$PREFETCHD" run "$run_dir/lists/job-$format-$level.yaml" --cache "$run_dir/run-cache" \
                --concurrency "$concurrency" --progress never --report "$report_file"
            rm -rf "$run_dir/run-cache" ;;
    esac
}

for round in $(seq 1 "$rounds"); do
    for format in $formats; do
        read -r -a kinds <<<"$(row_kinds "$format")"
        if ((round % 2 == 0)); then
            reversed=()
            for ((i = ${#kinds[@]} - 1; i >= 0; i--)); do reversed+=("${kinds[i]}"); done
            kinds=("${reversed[@]}")
        fi
        for kind in "${kinds[@]}"; do run_row "$format" "$kind" "$round"; done
    done
done

"$BENCH/nginx.sh" stop "$set_dir" "$port"

# medians FORMAT: per row of FORMAT (first-seen order) over its checked runs:
# label, runs, files, median wall, median cpu, median rss KiB, each run's wall.
medians() {
    awk -F '\t' -v format="$1" '
        function median(list,   k, v, i, j, t) {
            k = split(list, v, " ")
            for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        }
        $1 == format && $7 == 0 && $8 == "ok" {
            if (!($2 in runs)) order[++names] = $2
            runs[$2]++; files[$2] = $9
            walls[$2] = walls[$2] " " $4; cpus[$2] = cpus[$2] " " $5; rss[$2] = rss[$2] " " $6
        }
        END {
            for (i = 1; i <= names; i++) {
                m = order[i]
                printf "%s\t%d\t%d\t%.3f\t%.3f\t%.0f\t%s\n", m, runs[m], files[m], median(walls[m]), median(cpus[m]), median(rss[m]), substr(walls[m], 2)
            }
        }' "$rows"
}

describe_set() {
    awk -F '\t' -v format="$1" '
        NR > 1 && $2 == format {
            n++; bytes += $7; frames += $6; pixels += $4 * $5 * $6; kinds[$3]++
            long = ($4 > $5 ? $4 : $5); if (long > max) max = long; if (min == "" || long < min) min = long
        }
        END {
            line = ""
            for (k in kinds) line = line sprintf("%s%s %d", (line == "" ? "" : ", "), k, kinds[k])
            printf "%d files (%s), %.1f MB, %d frames, %.1f Mpx decoded, long side %d-%d px, %.1f KB and %.3f Mpx per file on average",
                n, line, bytes / 1e6, frames, pixels / 1e6, min, max, bytes / n / 1e3, pixels / n / 1e6
        }' "$set_dir/manifest.tsv"
}

incomplete=0
{
    echo "Decode benchmark, $(date -u +%Y-%m-%dT%H:%MZ): $rounds rounds, rows interleaved (reversed in even rounds)," \
        "set and caches on a tmpfs, medians of the checked runs."
    echo
    echo "Machine: $(nproc) cores, Linux $(uname -r), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
        "load average $load_start at the start, $(cut -d ' ' -f 1-3 /proc/loadavg) at the end."
    echo
    echo "prefetchd: $prefetchd_name ($("$PREFETCHD" --version 2>&1 | head -n 1)). Libraries (Debian):" \
        "$(dpkg-query -W -f='${Package} ${Version}, ' libgif7 libwebp7 libwebpdemux2 libavif15 libdav1d6 libjxl0.7 | sed 's/, $//')." \
        "Tools: $(dwebp -version | head -n 1 | sed 's/^/dwebp /'), $(avifdec --version | head -n 1 | sed 's/^Version: /avifdec /'), $(djxl --version 2>&1 | head -n 1)." \
        "$("$PYTHON" "$BENCH/decode/pillow_decode.py" --versions)."
    for format in $formats; do
        echo
        echo "**$format**: $(describe_set "$format")."
        echo
        echo "| row | runs | images | median wall s | images/s | median CPU s | CPU ms/image | CPU vs decode-ref | peak RSS MiB | each run's wall s |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        ref_cpu_ms=$(medians "$format" | awk -F '\t' '$1 == "decode-ref" { printf "%.6f", $5 / $3 * 1000 }')
        medians "$format" | awk -F '\t' -v ref="${ref_cpu_ms:-0}" '{
            ms = $5 / $3 * 1000
            printf "| %s | %d | %d | %.2f | %.0f | %.2f | %.2f | %s | %.1f | %s |\n",
                $1, $2, $3, $4, $3 / $4, $5, ms, (ref > 0 ? sprintf("%.2fx", ms / ref) : ""), $6 / 1024, $7 }'
    done
    failed=$(awk -F '\t' '$7 != 0 || $8 != "ok"' "$rows")
    if [[ -n $failed ]]; then
        echo
        echo "Runs left out of the medians (failed their check):"
        echo
        awk -F '\t' '$7 != 0 || $8 != "ok" { printf "- %s, %s, round %s: %s\n", $1, $2, $3, $8 }' "$rows"
    fi
} >"$results"
cp "$rows" "${results%.md}.tsv"
cat "$results"
echo "decode/run.sh: results written to $results (each run in ${results%.md}.tsv)" >&2
