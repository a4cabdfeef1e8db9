#!/usr/bin/env bash
# The cache core benchmark: entries stored per second through the full store path (temp file,
# rename, batched index) for 100,000 small files, and `path` lookups per second on a 1,000,000-entry
# index; each side by side with the same work done by Python's standard library (peer_store.py),
# and `prefetchd path` as a process per lookup.
#
#   bench/cache/run.sh [--store N] [--index N] [--lookups N]
#
# Outputs go to bench/out/cache/ (kept until the next run, so no deletion lands in a timed run);
# the table is written to bench/out/cache-results.md and printed.
set -euo pipefail
BENCH=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
store=100000 index=1000000 lookups=200000
while (( $# )); do
    case $1 in
        --store) store=$2; shift 2 ;;
        --index) index=$2; shift 2 ;;
        --lookups) lookups=$2; shift 2 ;;
        *) echo "usage: bench/cache/run.sh [--store N] [--index N] [--lookups N]" >&2; exit 2 ;;
    esac
done

"$ROOT/scripts/bootstrap" time hyperfine >&2
(cd "$ROOT" && swift build -c release --static-swift-stdlib --product prefetchd >&2 && swift build -c release --product cache-filler >&2 \
    && swift build -c release --product cache-probe >&2)
bin=$(cd "$ROOT" && swift build -c release --show-bin-path)
out="$BENCH/out/cache"
rm -rf "$out"
mkdir -p "$out"

timed() { # label, command... -> "wall cpu rss"
    local label=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$out/$label.time" "$@" > "$out/$label.out"
    awk '{ printf "%s %.2f %d\n", $1, $2 + $3, $4 / 1024 }' "$out/$label.time"
}
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%d", n / s }'; }

sync
read -r w1 c1 r1 < <(timed filler-store "$bin/cache-filler" "$out/store" "$store")
sync
read -r w2 c2 r2 < <(timed peer-store python3 "$BENCH/cache/peer_store.py" store "$out/peer-store" "$store")
sync
read -r w3 c3 r3 < <(timed filler-index "$bin/cache-filler" "$out/index" "$index")
sync
read -r w4 c4 r4 < <(timed peer-index python3 "$BENCH/cache/peer_store.py" store "$out/peer-index" "$index")
sync
read -r _ c5 r5 < <(timed probe "$bin/cache-probe" "$out/index" "$lookups" "$index")
probe_s=$(awk '{ print $6 }' "$out/probe.out")
read -r _ c6 r6 < <(timed peer-probe python3 "$BENCH/cache/peer_store.py" lookup "$out/peer-index" "$lookups" "$index")
peer_s=$(awk '{ print $6 }' "$out/peer-probe.out")
hyperfine --warmup 3 --runs 30 --export-json "$out/path.json" -N \
    "$bin/prefetchd path https://img3.example.com/catalog/123451.jpg --cache $out/index" > "$out/hyperfine.txt"
path_mean=$(python3 -c "import json; print(json.load(open('$out/path.json'))['results'][0]['mean'])")

{
    echo "Cache benchmark, $(date -u +%Y-%m-%dT%H:%MZ): $(nproc) cores, Linux $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "| what | prefetchd | peer (Python stdlib, same work) | ratio |"
    echo "|---|---:|---:|---:|"
    echo "| store $store entries: entries/s (wall s, CPU s, RSS MiB) | $(rate "$store" "$w1") ($w1 s, $c1 s, $r1) | $(rate "$store" "$w2") ($w2 s, $c2 s, $r2) | $(awk -v a="$w2" -v b="$w1" 'BEGIN { printf "%.2f", a / b }')x |"
    echo "| store $index entries: entries/s (wall s, CPU s, RSS MiB) | $(rate "$index" "$w3") ($w3 s, $c3 s, $r3) | $(rate "$index" "$w4") ($w4 s, $c4 s, $r4) | $(awk -v a="$w4" -v b="$w3" 'BEGIN { printf "%.2f", a / b }')x |"
    echo "| $lookups path lookups on $index entries: lookups/s (CPU s, RSS MiB) | $(rate "$lookups" "$probe_s") ($c5 s, $r5) | $(rate "$lookups" "$peer_s") ($c6 s, $r6) | $(awk -v a="$peer_s" -v b="$probe_s" 'BEGIN { printf "%.2f", a / b }')x |"
    echo "| \`prefetchd path URL\` as a process on $index entries: mean wall | $(awk -v m="$path_mean" 'BEGIN { printf "%.1f ms", m * 1000 }') | | |"
} | tee "$BENCH/out/cache-results.md"
