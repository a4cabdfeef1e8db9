#!/usr/bin/env bash
# The side-by-side fetch benchmark: the same nginx on loopback, the same corpus, the same
# concurrency, one timed run per row; curl and prefetchd with validate: header, the pair the main
# target compares, run --rounds times each, interleaved (curl first in odd rounds, prefetchd first in
# even ones), and compared by their medians: on this disk the same run varies by 2x from one minute
# to the next.
#   curl      curl --parallel --parallel-max N, one `url =`/`output =` pair per image in a config file
#   aria2c    aria2c -j N with its defaults (preallocation, control files, fsync)
#   aria2c    the same with --file-allocation=none --auto-save-interval=0 (no preallocation and no
#             control file; aria2 1.36 still fsyncs each finished file, no option turns that off)
#   aria2c    the same again under eatmydata, which turns fsync into a no-op (aria2 without any sync)
#   prefetchd `run` with validate: header, then validate: decode, then decode again over the
#             same cache (warm: nothing to fetch). Only when $PREFETCHD names a binary whose
#             `run --help` exits 0 and whose trial run over 10 URLs exits 0; otherwise the rows
#             say "not available".
# Before each timed run, dirty pages are flushed (sync), the page cache is dropped (as root) and
# the corpus is read into the page cache, outside the timing. Outputs are not deleted between runs (deleting 20,000 files costs
# I/O that would land in the next run): each is parked in bench/out/parked-<n>/ and all are
# deleted at the end, as is the nginx server stopped, whatever way the script ends.
#
# Usage: bench/fetch.sh [--images N] [--concurrency N] [--rounds R] [--port P] [--seed S] [--results FILE]
#   --images N       corpus size (default 20000; about 132 KB per image on average)
#   --concurrency N  parallel transfers for every tool (default 16)
#   --rounds R       runs of curl and of prefetchd validate: header each (default 3)
#   --port P         loopback port for nginx (default 8090)
#   --seed S         corpus seed (default 1)
#   --results FILE   Markdown fragment to write (default bench/out/fetch-n<N>-c<C>.md)
# Environment: PREFETCHD=path/to/prefetchd adds the prefetchd rows.
set -euo pipefail

images=20000 concurrency=16 rounds=3 port=8090 seed=1 results=""
while (($#)); do
    case $1 in
        --images) images=$2; shift 2 ;;
        --concurrency) concurrency=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --results) results=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "fetch.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
for number in "$images" "$concurrency" "$rounds" "$port" "$seed"; do
    [[ $number =~ ^[0-9]+$ && $number -gt 0 ]] || { echo "fetch.sh: $number is not a positive number" >&2; exit 2; }
done

source "$(dirname "$0")/setup.sh"
bench_setup
"$BENCH/../scripts/bootstrap" eatmydata

base_url=http://127.0.0.1:$port
corpus=$("$PYTHON" "$BENCH/corpus.py" --count "$images" --seed "$seed" --base-url "$base_url" \
    --validate header decode --per-host "$concurrency")
results=${results:-$OUT/fetch-n$images-c$concurrency.md}
work=$OUT/fetch-work
parked_count=0

cleanup() {
    "$BENCH/nginx.sh" stop "$corpus" "$port" || true
    rm -rf "$work" "$OUT"/parked-*
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
rm -rf "$work" "$OUT"/parked-*
mkdir -p "$work"

corpus_bytes=$(find "$corpus/images" -type f -name '*.jpg' -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }')
# 2 x rounds + 4 rows write a full copy of the corpus, all kept until the end; plus some room.
needed_kib=$(( corpus_bytes / 1024 * (2 * rounds + 5) ))
free_kib=$(df -Pk "$OUT" | awk 'NR == 2 { print $4 }')
if (( free_kib < needed_kib )); then
    echo "fetch.sh: needs about $((needed_kib / 1048576)) GiB free in $OUT for the parked outputs, has $((free_kib / 1048576)) GiB" >&2
    exit 3
fi

"$BENCH/nginx.sh" start "$corpus" "$port"

# One TSV line per row: label, wall, cpu, rss KiB, exit status, check.
rows=$work/rows.tsv
: >"$rows"
row_count=0
load_start=$(cut -d ' ' -f 1-3 /proc/loadavg)

prepare() {
    sync
    # As root, the page cache is dropped too, so that every run starts with the same free memory
    # instead of the kernel reclaiming earlier rows' parked outputs while it runs.
    if [[ -w /proc/sys/vm/drop_caches ]]; then echo 1 >/proc/sys/vm/drop_caches; fi
    find "$corpus/images" -type f -name '*.jpg' -exec cat {} + >/dev/null
}

park() {
    parked_count=$((parked_count + 1))
    mv "$1" "$OUT/parked-$parked_count"
}

# Checks that folder $1 holds every image with the corpus's total size.
check_files() {
    local files bytes
    files=$(find "$1" -type f -name '*.jpg' | wc -l)
    bytes=$(find "$1" -type f -name '*.jpg' -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s + 0 }')
    if [[ $files -eq $images && $bytes -eq $corpus_bytes ]]; then
        echo ok
    else
        echo "incomplete: $files files, $bytes bytes"
    fi
}

# Checks that the prefetchd report $1 counts every image as totals.$2 and none failed.
check_report() {
    python3 - "$1" "$2" "$images" <<'PY'
import json, sys
path, key, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    totals = json.load(open(path))["totals"]
except (OSError, ValueError, KeyError) as error:
    print(f"no report: {error}")
    sys.exit()
if totals.get(key) == expected and totals.get("failed") == 0:
    print("ok")
else:
    print(f"report: {key} {totals.get(key)}, failed {totals.get('failed')}")
PY
}

# median_rate PREFIX: the median URLs/s of the finished rows whose label starts with PREFIX (0 if none).
median_rate() {
    awk -F '\t' -v prefix="$1" -v n="$images" 'index($1, prefix) == 1 && $2 > 0 && $5 == 0 { print n / $2 }' "$rows" \
        | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure LABEL -- COMMAND...: prepare, time, append the row (without its check).
measure() {
    local label=$1
    shift 2
    prepare
    echo "fetch.sh: running $label" >&2
    row_count=$((row_count + 1))
    "$BENCH/measure.sh" "$label" "$work/time-$row_count" -- "$@" | tr -d '\n' >>"$rows"
}

# curl, one round
curl_row() {
    local folder=$work/curl-$1
    mkdir -p "$folder"
    awk -v dir="$folder" '{ n = split($0, part, "/"); printf "url = \"%s\"\noutput = \"%s/%s\"\n", $0, dir, part[n] }' \
        "$corpus/urls.txt" >"$work/curl.config"
    measure "curl --parallel (round $1)" -- curl --silent --show-error --fail --parallel --parallel-max "$concurrency" \
        --config "$work/curl.config"
    printf '\t%s\n' "$(check_files "$folder")" >>"$rows"
    park "$folder"
}

# aria2c, three ways
aria2_row() {
    local label=$1 folder=$2
    shift 2
    mkdir -p "$folder"
    measure "$label" -- "$@" aria2c -j "$concurrency" -d "$folder" -i "$corpus/urls.txt" "${aria2_options[@]}"
    printf '\t%s\n' "$(check_files "$folder")" >>"$rows"
    park "$folder"
}

# prefetchd
prefetchd_rows=("prefetchd validate: header" "prefetchd validate: decode" "prefetchd validate: decode, warm")
# Sets prefetchd_missing to the reason when prefetchd cannot run the benchmark.
prefetchd_missing=""
prefetchd_available() {
    if [[ -z ${PREFETCHD:-} ]]; then
        prefetchd_missing="PREFETCHD is not set"
    elif [[ ! -x $PREFETCHD ]]; then
        prefetchd_missing="$PREFETCHD is not an executable file"
    elif ! "$PREFETCHD" run --help >/dev/null 2>&1; then
        prefetchd_missing="\`$PREFETCHD run --help\` failed"
    else
        mkdir -p "$work/trial"
        head -n 10 "$corpus/urls.txt" >"$work/trial/trial-urls.txt"
        sed 's/url_file: urls.txt/url_file: trial-urls.txt/' "$corpus/job-decode.yaml" >"$work/trial/job.yaml"
        if ! "$PREFETCHD" run "$work/trial/job.yaml" --cache "$work/trial/cache" --concurrency "$concurrency" \
            --progress never --report "$work/trial/report.json" >"$work/trial/log" 2>&1; then
            prefetchd_missing="its trial run over 10 URLs failed: $(tail -n 1 "$work/trial/log")"
        fi
    fi
    [[ -z $prefetchd_missing ]]
}
prefetchd_run() {
    local label=$1 level=$2 cache=$3 report=$4
    measure "$label" -- "$PREFETCHD" run "$corpus/job-$level.yaml" --cache "$cache" \
        --concurrency "$concurrency" --progress never --report "$report"
}
header_row() {
    prefetchd_run "${prefetchd_rows[0]} (round $1)" header "$work/prefetchd-header-$1" "$work/report-header-$1.json"
    printf '\t%s\n' "$(check_report "$work/report-header-$1.json" fetched)" >>"$rows"
    park "$work/prefetchd-header-$1"
}
if prefetchd_available; then
    has_prefetchd=1
    prefetchd_note="prefetchd: $PREFETCHD ($("$PREFETCHD" --version 2>&1 | head -n 1))."
else
    has_prefetchd=0
    prefetchd_note="prefetchd: not available ($prefetchd_missing)."
fi
for round in $(seq 1 "$rounds"); do
    if ((round % 2 == 1)); then curl_row "$round"; fi
    if ((has_prefetchd)); then
        header_row "$round"
    else
        printf '%s\t\t\t\t\tnot available\n' "${prefetchd_rows[0]} (round $round)" >>"$rows"
    fi
    if ((round % 2 == 0)); then curl_row "$round"; fi
done
aria2_options=()
aria2_row "aria2c (defaults)" "$work/aria2-defaults"
aria2_options=(--file-allocation=none --auto-save-interval=0)
aria2_row "aria2c --file-allocation=none --auto-save-interval=0" "$work/aria2-nosave"
aria2_row "aria2c, same options, fsync off (eatmydata)" "$work/aria2-nosync" eatmydata
if ((has_prefetchd)); then
    prefetchd_run "${prefetchd_rows[1]}" decode "$work/prefetchd-decode" "$work/report-decode.json"
    printf '\t%s\n' "$(check_report "$work/report-decode.json" fetched)" >>"$rows"
    prefetchd_run "${prefetchd_rows[2]}" decode "$work/prefetchd-decode" "$work/report-warm.json"
    printf '\t%s\n' "$(check_report "$work/report-warm.json" cached)" >>"$rows"
    park "$work/prefetchd-decode"
else
    for label in "${prefetchd_rows[@]:1}"; do
        printf '%s\t\t\t\t\tnot available\n' "$label" >>"$rows"
    done
fi

"$BENCH/nginx.sh" stop "$corpus" "$port"

{
    echo "Fetch benchmark, $(date -u +%Y-%m-%dT%H:%MZ): $images images ($(awk -v b="$corpus_bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB)," \
        "concurrency $concurrency, nginx on 127.0.0.1 (sendfile, keep-alive), corpus in the page cache."
    echo
    echo "Machine: $(nproc) cores, Linux $(uname -r), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
        "load average $load_start at the start, $(cut -d ' ' -f 1-3 /proc/loadavg) at the end." \
        "$(curl --version | head -n 1 | cut -d ' ' -f 1-2), $(aria2c --version | head -n 1), $(nginx -v 2>&1 | sed 's/.*: //')."
    echo
    echo "$prefetchd_note"
    echo
    echo "| tool | wall s | URLs/s | MB/s | CPU s | peak RSS MiB | URLs/s vs curl (median) | check |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
    curl_rate=$(median_rate "curl --parallel")
    awk -F '\t' -v n="$images" -v bytes="$corpus_bytes" -v curl_rate="$curl_rate" '
        {
            if ($2 == "" || $2 + 0 == 0) { printf "| %s | | | | | | | %s |\n", $1, $6; next }
            rate = n / $2
            check = ($5 == 0) ? $6 : "exit " $5 "; " $6
            ratio = (curl_rate > 0) ? sprintf("%.2f", rate / curl_rate) : ""
            printf "| %s | %.2f | %.0f | %.1f | %.2f | %.1f | %s | %s |\n",
                $1, $2, rate, bytes / 1e6 / $2, $3, $4 / 1024, ratio, check
        }' "$rows"
    header_rate=$(median_rate "${prefetchd_rows[0]}")
    echo
    echo "Medians of $rounds rounds: curl --parallel $(printf %.0f "$curl_rate") URLs/s," \
        "prefetchd validate: header $(printf %.0f "$header_rate") URLs/s:" \
        "$(awk -v a="$header_rate" -v b="$curl_rate" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "no ratio" }') curl's."
} >"$results"
cat "$results"
echo "fetch.sh: results written to $results" >&2
