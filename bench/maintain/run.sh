#!/usr/bin/env bash
# Maintenance benchmark: prefetchd's index-driven stats and clean against the scan-based way
# (du/find for stats; find -delete for expiry and a list-sort-delete LRU trim), on copies of one
# cache built through the real store path; then stores into the trimmed cache against stores into an
# empty fresh one, a fresh one of the trimmed cache's size (built the same way, never trimmed) and an
# untrimmed copy of the same cache, interleaved so all meet the same disk.
#   bench/maintain/run.sh [ENTRIES] [WORK_DIR] [MAX_AGE_DAYS] [CAP_PERCENT]
# Defaults: 20000 entries, a fresh temp folder, expire after 14 days, cap at 40 % of the data (a heavy
# clean: about two thirds go). A nightly-sized clean: MAX_AGE_DAYS=28 CAP_PERCENT=92.
# Needs a release build: swift build -c release --static-swift-stdlib --product prefetchd && swift build -c release --product cache-filler
# The disk may be mounted with discard (unlink waits on the device, creation is slow for minutes after
# a mass deletion): every copy is made before anything is deleted, the scan-based clean runs first and
# prefetchd's after a pause, so any slowdown left by the first falls on prefetchd.
# The stores are timed twice: right after the clean, and again after a `sync` and a pause of
# STORE_PAUSE_S seconds (default 400). This file system (ext4 without a journal) does not reuse an
# inode within 60 s of its deletion (RECENTCY_MIN in fs/ext4/ialloc.c), or 360 s while its inode-table
# block is dirty, and creating a file dirties the block again; until then every file created in a block
# group full of just-deleted inodes scans past them. That window follows any mass deletion, the
# scan-based way's as much as prefetchd's.
set -euo pipefail
entries=${1:-20000}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$here/../.." && pwd)/.build/release
max_age_days=${3:-14}
cap_percent=${4:-40}
pause=${PAUSE_S:-30}
store_pause=${STORE_PAUSE_S:-400}
rm -rf "$work/base" "$work/prefetchd" "$work/scan" "$work/untrimmed" "$work/fresh" "$work/same"
mkdir -p "$work"

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

echo "== building $entries entries through the store path in $work/base (two filler processes)"
t0=$(now)
half=$(( entries / 2 ))
"$bin/cache-filler" "$work/base" 1 0 >/dev/null   # makes the cache folder once
"$bin/cache-filler" "$work/base" $(( half - 1 )) 1 >/dev/null &
"$bin/cache-filler" "$work/base" $(( entries - half )) "$half" >/dev/null
wait
t1=$(now)
build_s=$(elapsed "$t0" "$t1")
python3 "$here/age.py" "$work/base"

echo "== copying (cp -a, every copy made before anything is deleted)"
t0=$(now)
cp -a "$work/base" "$work/prefetchd"
cp -a "$work/base" "$work/scan"
copy_s=$(elapsed "$t0" "$(now)")
cp -a "$work/base" "$work/untrimmed"
# A fresh cache about the size the clean leaves (32 % of the entries), built before anything is deleted.
same_entries=$(( entries * 32 / 100 ))
echo "== building a fresh cache of $same_entries entries in $work/same"
"$bin/cache-filler" "$work/same" 1 0 >/dev/null
"$bin/cache-filler" "$work/same" $(( same_entries / 2 - 1 )) 1 >/dev/null &
"$bin/cache-filler" "$work/same" $(( same_entries - same_entries / 2 )) $(( same_entries / 2 )) >/dev/null
wait
total_bytes=$(find "$work/base" -type f -name '*.jpg' -printf '%s\n' | awk '{s+=$1} END {print s}')
max_size=$(( total_bytes * cap_percent / 100 ))
target=$(( max_size * 8 / 10 ))

echo "== stats (median of 3, warm page cache for both)"
s=(); d=()
for _ in 1 2 3; do
  t0=$(now); "$bin/prefetchd" stats --cache "$work/base" --format json >/dev/null; t1=$(now); s+=("$(elapsed "$t0" "$t1")")
  t0=$(now); du -sb "$work/base" >/dev/null; find "$work/base" -type f | wc -l >/dev/null; t1=$(now); d+=("$(elapsed "$t0" "$t1")")
done
stats_s=$(median3 "${s[@]}"); du_s=$(median3 "${d[@]}")
json_entries=$("$bin/prefetchd" stats --cache "$work/base" --format json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["entries"], j["bytes"])')
scan_entries="$(find "$work/base" -type f -name '*.jpg' | wc -l) $total_bytes"
rm -rf "$work/base"
sync; sleep "$pause"

echo "== clean, scan-based: find -mmin +$(( max_age_days * 1440 )) -delete, then LRU trim to $target bytes"
t0=$(now)
find "$work/scan" -type f -name '*.jpg' -mmin +$(( max_age_days * 1440 )) -delete
find "$work/scan" -type f -name '*.jpg' -printf '%T@ %s %p\n' | sort -n | awk -v target="$target" -f "$here/scan_trim.awk" \
  | xargs -d '\n' -r rm -f
t1=$(now); scan_s=$(elapsed "$t0" "$t1")
sync; sleep "$pause"

echo "== clean, prefetchd: expire > ${max_age_days}d, trim to 0.8 x $max_size bytes"
t0=$(now)
"$bin/prefetchd" clean --cache "$work/prefetchd" --max-age "${max_age_days}d" --max-size "$max_size" >"$work/clean.out" 2>"$work/clean.err"
t1=$(now); clean_s=$(elapsed "$t0" "$t1")

left_prefetchd=$(cd "$work/prefetchd" && find . -type f -name '*.jpg' | sort | md5sum | cut -c1-12)
left_scan=$(cd "$work/scan" && find . -type f -name '*.jpg' | sort | md5sum | cut -c1-12)
count_prefetchd=$(find "$work/prefetchd" -type f -name '*.jpg' | wc -l)
count_scan=$(find "$work/scan" -type f -name '*.jpg' | wc -l)

rounds=4
per_round=$(( entries / 50 > 1000 ? entries / 50 : 1000 ))
stored=$(( rounds * per_round ))
timed_fill() { local t0; t0=$(now); "$bin/cache-filler" "$1" "$per_round" "$2" >/dev/null; elapsed "$t0" "$(now)"; }
# store_rounds FIRST_KEY: interleaved rounds into the four caches; sets trimmed_s fresh_s untrimmed_s same_s.
store_rounds() {
  trimmed_s=0; fresh_s=0; same_s=0; untrimmed_s=0
  for round in $(seq 1 $rounds); do
    first=$(( $1 + round * per_round ))
    trimmed_s=$(echo "$trimmed_s + $(timed_fill "$work/prefetchd" "$first")" | bc -l)
    fresh_s=$(echo "$fresh_s + $(timed_fill "$work/fresh" "$first")" | bc -l)
    untrimmed_s=$(echo "$untrimmed_s + $(timed_fill "$work/untrimmed" "$first")" | bc -l)
    same_s=$(echo "$same_s + $(timed_fill "$work/same" "$first")" | bc -l)
  done
}
echo "== stores right after the clean: into the trimmed cache, an empty fresh one, a fresh one of its size and the untrimmed copy, interleaved"
store_rounds "$entries"
soon=("$trimmed_s" "$fresh_s" "$untrimmed_s" "$same_s")
echo "== stores again after sync and ${store_pause} s"
sync; sleep "$store_pause"
store_rounds $(( entries + rounds * per_round ))

report=$(cat <<REPORT
## Maintenance: $entries entries ($(nproc) cores shared, $(date -u +%Y-%m-%d))

Machine: $(nproc) cores, kernel $(uname -r), load before the clean runs: $(cut -d' ' -f1-3 /proc/loadavg).
Cache built through the real store path (cache-filler, release build, two processes) in $(printf %.1f "$build_s") s;
$total_bytes bytes of file data; ages spread over 30 days (bench/maintain/age.py). Both copies made with
\`cp -a\` ($(printf %.0f "$copy_s") s) before anything was deleted; the scan-based clean ran first, prefetchd's after a
\`sync\` and a ${pause} s pause.

| task | prefetchd | scan-based anchor | speed-up |
|---|---|---|---|
| stats (median of 3) | $(printf %.3f "$stats_s") s (\`stats --format json\`) | $(printf %.3f "$du_s") s (\`du -sb\` + \`find \| wc -l\`) | $(printf %.1f "$(echo "$du_s / $stats_s" | bc -l)")x |
| clean: expire > ${max_age_days} d + LRU trim to 0.8 x $max_size B | $(printf %.3f "$clean_s") s | $(printf %.3f "$scan_s") s (\`find -mmin -delete\`; \`find -printf \| sort \| awk \| xargs rm\`) | $(printf %.2f "$(echo "$scan_s / $clean_s" | bc -l)")x |
| right after the clean: store $stored entries ($rounds rounds, interleaved) | $(printf %.3f "${soon[0]}") s into the trimmed cache | $(printf %.3f "${soon[1]}") s into a fresh cache | $(printf %.2f "$(echo "${soon[1]} / ${soon[0]}" | bc -l)")x |
| the same stores, same rounds | $(printf %.3f "${soon[0]}") s into the trimmed cache | $(printf %.3f "${soon[3]}") s into a fresh cache of $same_entries entries (never trimmed) | $(printf %.2f "$(echo "${soon[3]} / ${soon[0]}" | bc -l)")x |
| ${store_pause} s after the clean and a \`sync\`: store $stored more entries | $(printf %.3f "$trimmed_s") s into the trimmed cache | $(printf %.3f "$fresh_s") s into a fresh cache | $(printf %.2f "$(echo "$fresh_s / $trimmed_s" | bc -l)")x |
| the same stores, same rounds | $(printf %.3f "$trimmed_s") s into the trimmed cache | $(printf %.3f "$untrimmed_s") s into the untrimmed copy ($entries entries) | $(printf %.2f "$(echo "$untrimmed_s / $trimmed_s" | bc -l)")x |
| the same stores, same rounds | $(printf %.3f "$trimmed_s") s into the trimmed cache | $(printf %.3f "$same_s") s into a fresh cache of $same_entries entries (never trimmed) | $(printf %.2f "$(echo "$same_s / $trimmed_s" | bc -l)")x |

- stats answer: $json_entries (entries bytes); fresh scan: $scan_entries.
- files left: prefetchd $count_prefetchd (list digest $left_prefetchd), scan-based $count_scan (list digest $left_scan).
- prefetchd clean summary: $(grep -m1 -o 'clean: removed.*' "$work/clean.err")
REPORT
)
echo "$report"
echo "$report" > "$work/result.md"
rm -rf "$work/prefetchd" "$work/scan" "$work/fresh" "$work/untrimmed" "$work/same"
