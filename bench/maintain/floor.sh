#!/usr/bin/env bash
# The nightly trim at its floor: `prefetchd clean` against the bare unlink of the very files it removes
# and against the scan-based way, on copies of one cache built through the real store path.
#   bench/maintain/floor.sh [--tmpfs] [--rounds N] [--keep] ENTRIES [WORK_DIR]
# The cache (ENTRIES entries from cache-filler, two processes, ages spread over 30 days by age.py) is
# trimmed by half: `clean --max-age 0 --max-size M`, M = 5/8 of its bytes, so the trim to 0.8 x M
# removes the least recently used half. The rows, each on a fresh `cp -a` copy of the cache, in an
# order that rotates every round:
# - prefetchd: `prefetchd clean` as above (and, with PREFETCHD_BASE=BIN, the same with that build);
# - floor: `unlink_list` (unlink_list.c, one unlink(2) per line, one thread, relative paths from the
#   cache folder) over the list of files that clean removes, made beforehand by `clean --dry-run` on
#   the cache, outside the timing;
# - scan: the list-sort-delete LRU trim (`find -printf '%T@ %s %p' | sort -n | awk | xargs rm`, as
#   run.sh's) to the same low-water mark.
# Then `prefetchd stats` (each build on a copy of the cache's index) against `du -sb` + `find | wc -l`,
# 3 x N times each, interleaved.
# Every row must leave the same files (their list digests are compared). Wall time and CPU (user +
# sys, children included) are taken with bash's time; the medians are of the rounds.
# --tmpfs puts the work folder on /dev/shm (a fresh folder there, unless WORK_DIR is given), so the
# disk is out of the comparison and no pause is needed. On a disk, each timed command runs after a
# `sync` and PAUSE_S seconds (default 30). A cache of 1,000,000 entries holds about 5 GB on a tmpfs
# (a 4 KiB page per file), twice that while a copy is being timed. --keep leaves the built cache in
# WORK_DIR/base, and a later run given the same WORK_DIR and ENTRIES with --keep times copies of it
# again instead of building another.
# PREFETCHD and PREFETCHD_BASE name the builds (default: this checkout's); CACHE_FILLER the cache-filler
# that builds the cache. When the two builds' index schemas differ, give the earlier build's filler:
# the later build upgrades each copy before its timing (see time_row), the earlier cannot read a later one.
# Needs a release build: swift build -c release --static-swift-stdlib --product prefetchd && swift build -c release --product cache-filler
set -euo pipefail
tmpfs=0
rounds=3
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tmpfs) tmpfs=1; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) break ;;
  esac
done
entries=${1:?usage: floor.sh [--tmpfs] [--rounds N] ENTRIES [WORK_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$here/../.." && pwd)/.build/release
prefetchd=${PREFETCHD:-$bin/prefetchd}
base_build=${PREFETCHD_BASE:-}
filler=${CACHE_FILLER:-$bin/cache-filler}
if [[ $tmpfs == 1 ]]; then
  work=${2:-$(mktemp -d -p /dev/shm prefetchd-floor.XXXXXX)}
  pause=0
else
  work=${2:-$(mktemp -d)}
  pause=${PAUSE_S:-30}
fi
mkdir -p "$work"
rm -rf "$work/copy"
if [[ $keep == 1 ]]; then
  trap 'rm -rf "$work/copy"' EXIT
  [[ -f $work/base.entries && $(cat "$work/base.entries") == "$entries" ]] || rm -rf "$work/base" "$work/base.entries"
else
  rm -rf "$work/base" "$work/base.entries"
  trap 'rm -rf "$work/base" "$work/copy"' EXIT
fi

gcc -O2 -o "$work/unlink_list" "$here/unlink_list.c"

if [[ ! -d $work/base ]]; then
  echo "== building $entries entries through the store path in $work/base (two filler processes)"
  half=$(( entries / 2 ))
  "$filler" "$work/base" 1 0 >/dev/null   # makes the cache folder once
  "$filler" "$work/base" $(( half - 1 )) 1 >/dev/null &
  "$filler" "$work/base" $(( entries - half )) "$half" >/dev/null
  wait
  python3 "$here/age.py" "$work/base"
  echo "$entries" > "$work/base.entries"
else
  echo "== timing copies of the cache kept in $work/base"
fi
total_bytes=$(find "$work/base" -type f -name '*.jpg' -printf '%s\n' | awk '{s+=$1} END {print s}')
max_size=$(( total_bytes * 5 / 8 ))
target=$(( max_size * 8 / 10 ))

echo "== the list of files the clean removes (clean --dry-run, not timed)"
"${base_build:-$prefetchd}" clean --cache "$work/base" --max-age 0 --max-size "$max_size" --dry-run 2>/dev/null \
  | awk '$1 == "would" && $2 == "remove" && $3 == "trimmed" { print $4 }' > "$work/list"
listed=$(wc -l < "$work/list")
expected_left=$(( entries - listed ))

# timed COMMAND...: runs COMMAND, its output to $work/out and $work/err; "wall user sys" (children
# included) to $work/time, in milliseconds' resolution.
timed() {
  local TIMEFORMAT='%3R %3U %3S'
  { time "$@" >"$work/out" 2>"$work/err"; } 2>"$work/time"
}

# time_row NAME COMMAND...: runs COMMAND in a fresh copy of the cache; appends "NAME wall cpu digest count".
# With $prepare set (a prefetchd binary), that build's `stats` opens the copy first, untimed: a build
# of a later index schema upgrades it there, as it would once on a real cache, not inside the clean.
time_row() {
  local name=$1; shift
  cp -a "$work/base" "$work/copy"
  if [[ -n ${prepare:-} ]]; then "$prepare" stats --cache "$work/copy" >/dev/null; fi
  if [[ $pause != 0 ]]; then sync; sleep "$pause"; fi
  timed "$@" || { echo "$name failed:"; cat "$work/err"; exit 1; }
  local digest count
  digest=$(cd "$work/copy" && find . -type f -name '*.jpg' | sort | md5sum | cut -c1-12)
  count=$(find "$work/copy" -type f -name '*.jpg' | wc -l)
  read -r wall user sys < "$work/time"
  echo "$name $wall $(echo "$user + $sys" | bc -l) $digest $count" >> "$work/rows"
  echo "   $name: ${wall} s wall, $(echo "$user + $sys" | bc -l) s CPU, $count files left ($digest)"
  rm -rf "$work/copy"
  if [[ $pause != 0 ]]; then sync; fi
}
run_prefetchd() { "$1" clean --cache "$work/copy" --max-age 0 --max-size "$max_size"; }
run_floor() { (cd "$work/copy" && "$work/unlink_list" "$work/list"); }
run_scan() {
  find "$work/copy" -type f -name '*.jpg' -printf '%T@ %s %p\n' | sort -n | awk -v target="$target" -f "$here/scan_trim.awk" \
    | xargs -d '\n' -r rm -f
}
export -f run_prefetchd run_floor run_scan
export work max_size target here

names=(prefetchd floor scan)
[[ -n $base_build ]] && names+=(base)
rm -f "$work/rows"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq 1 "$rounds"); do
  echo "== round $round"
  count=${#names[@]}
  for slot in $(seq 0 $(( count - 1 ))); do
    name=${names[$(( (slot + round - 1) % count ))]}
    case $name in
      prefetchd) prepare=$prefetchd time_row prefetchd bash -c 'run_prefetchd "$0"' "$prefetchd" ;;
      base) prepare=$base_build time_row base bash -c 'run_prefetchd "$0"' "$base_build" ;;
      floor) prepare='' time_row floor bash -c run_floor ;;
      scan) prepare='' time_row scan bash -c run_scan ;;
    esac
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "== stats: $(( 3 * rounds )) times each, interleaved, against du -sb + find | wc -l on the cache"
# Each build reads its own copy of the index alone (stats reads nothing else), upgraded first, untimed.
stats_builds=(prefetchd)
[[ -n $base_build ]] && stats_builds+=(base)
for name in "${stats_builds[@]}"; do
  binary=$prefetchd; [[ $name == base ]] && binary=$base_build
  rm -rf "$work/stats-$name"; mkdir -p "$work/stats-$name/tmp"
  cp -a "$work/base/index.sqlite" "$work/base/CACHEDIR.TAG" "$work/stats-$name/"
  "$binary" stats --cache "$work/stats-$name" >/dev/null
done
rm -f "$work/stats-rows"
for _ in $(seq 1 $(( 3 * rounds ))); do
  for name in "${stats_builds[@]}"; do
    binary=$prefetchd; [[ $name == base ]] && binary=$base_build
    timed "$binary" stats --cache "$work/stats-$name" --format json
    read -r wall user sys < "$work/time"; echo "$name $wall $(echo "$user + $sys" | bc -l)" >> "$work/stats-rows"
  done
  timed bash -c 'du -sb "$0" >/dev/null; find "$0" -type f | wc -l >/dev/null' "$work/base"
  read -r wall user sys < "$work/time"; echo "scan $wall $(echo "$user + $sys" | bc -l)" >> "$work/stats-rows"
done
stats_answer=$("$prefetchd" stats --cache "$work/stats-prefetchd" --format json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["entries"], j["bytes"])')
rm -rf "$work/stats-prefetchd" "$work/stats-base"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wall_of() { awk -v n="$1" '$1 == n { print $2 }' "$work/rows" | median; }
cpu_of() { awk -v n="$1" '$1 == n { print $3 }' "$work/rows" | median; }
rounds_of() { awk -v n="$1" '$1 == n { printf "%s%.2f", (c++ ? ", " : ""), $2 }' "$work/rows"; }
floor_wall=$(wall_of floor); scan_wall=$(wall_of scan)
stats_wall_of() { awk -v n="$1" '$1 == n { print $2 }' "$work/stats-rows" | median; }
stats_cpu_of() { awk -v n="$1" '$1 == n { print $3 }' "$work/stats-rows" | median; }
du_wall=$(stats_wall_of scan)
stats_row() {
  printf '| %s | %.3f s | %.3f s | %.1fx |\n' "$2" "$(stats_wall_of "$1")" "$(stats_cpu_of "$1")" \
    "$(echo "$du_wall / $(stats_wall_of "$1")" | bc -l)"
}
row() {
  local wall cpu
  wall=$(wall_of "$1"); cpu=$(cpu_of "$1")
  printf '| %s | %.2f s (%s) | %.2f s | %.2fx | %.2fx |\n' "$2" "$wall" "$(rounds_of "$1")" "$cpu" \
    "$(echo "$wall / $floor_wall" | bc -l)" "$(echo "$scan_wall / $wall" | bc -l)"
}
digests=$(awk '{ print $4, $5 }' "$work/rows" | sort -u)
if [[ $(echo "$digests" | wc -l) != 1 || $(echo "$digests" | cut -d' ' -f2) != "$expected_left" ]]; then
  echo "the rows left different files (expected $expected_left):"; cat "$work/rows"; exit 1
fi

report=$(cat <<REPORT
## Trim to the floor: $entries entries, $( [[ $tmpfs == 1 ]] && echo "tmpfs" || echo "disk" ) ($(nproc) cores shared, $(date -u +%Y-%m-%dT%H:%MZ))

Machine: $(nproc) cores, kernel $(uname -r), load average $load_before before, $load_after after.
$total_bytes bytes of file data; \`clean --max-age 0 --max-size $max_size\` (trim to $target B) removes
$listed files and leaves $expected_left (list digest $(echo "$digests" | cut -d' ' -f1) in every row and round).
$rounds rounds, the order of the rows rotating; $( [[ $pause != 0 ]] && echo "\`sync\` and ${pause} s before each command; " )wall (every round) and CPU (user + sys) are medians.

| row | wall | CPU | wall / floor | scan / wall |
|---|---:|---:|---:|---:|
$(row prefetchd "prefetchd clean")
$( [[ -n $base_build ]] && row base "prefetchd clean, PREFETCHD_BASE build" )
$(row floor "floor: unlink_list over the ready-made list")
$(row scan "scan: find -printf \\| sort \\| awk \\| xargs rm")

| stats ($(( 3 * rounds )) times, medians) | wall | CPU | du + find / wall |
|---|---:|---:|---:|
$(stats_row prefetchd "prefetchd stats --format json")
$( [[ -n $base_build ]] && stats_row base "prefetchd stats --format json, PREFETCHD_BASE build" )
$(stats_row scan "du -sb + find \\| wc -l")

stats answer: $stats_answer (entries bytes); the cache: $entries entries, $total_bytes bytes.
REPORT
)
echo "$report"
echo "$report" > "$work/result.md"
echo "(also in $work/result.md)"
