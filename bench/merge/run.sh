#!/usr/bin/env bash
# Merge benchmark: `prefetchd merge` of 3 shard caches into a new one, on the same file system, against
# a floor that does the same file and index work by the plainest means, interleaved, medians.
#   bench/merge/run.sh [--tmpfs] [--rounds N] [ENTRIES] [WORK_DIR]
# The shards: three caches of ENTRIES entries each (default 100000), disjoint keys, made by
# cache-filler through the real store path (bodies of 200-2,200 bytes), outside the timing.
# The rows, each into a fresh destination (the previous one removed outside the timing), in an order
# that alternates every round:
# - prefetchd: `prefetchd merge S1 S2 S3 --into DST` (DST missing: merge makes it). Hard links.
# - floor: `cp -a` of an empty cache (CACHEDIR.TAG, its 256 fan-out folders and an empty index made
#   by prefetchd, outside the timing) to DST, then `cp -al S/?? DST/` for each shard (hard links of
#   every entry file into the fan-out folders), then one sqlite3 CLI invocation:
#   ATTACH each shard's index.sqlite; BEGIN; INSERT INTO entries(<every column>) SELECT the same
#   FROM each shard's entries (the row ids made from the paths, as prefetchd gave them); COMMIT. The floor does less than merge: no newer-fetch test per key, no
#   temp name and rename (no partial file under a final name), no size check, no running totals or
#   largest entries, no ledger or runs, no lock.
# Every row must leave 3 x ENTRIES rows and as many files under final names (checked each time).
# Wall time and CPU (user + sys, children included) from bash's time; medians of the rounds.
# --tmpfs puts the work folder on /dev/shm (a fresh folder there unless WORK_DIR is given). On a disk,
# each timed command runs after a `sync` and PAUSE_S seconds (default 10).
# Needs a release build: swift build -c release --static-swift-stdlib --product prefetchd && swift build -c release --product cache-filler
set -euo pipefail
tmpfs=0
rounds=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tmpfs) tmpfs=1; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    *) break ;;
  esac
done
entries=${1:-100000}
here=$(cd "$(dirname "$0")" && pwd)
bin=${BIN:-$(cd "$here/../.." && pwd)/.build/release}
if [[ $tmpfs == 1 ]]; then work=${2:-$(mktemp -d /dev/shm/merge-bench.XXXXXX)}; else work=${2:-$(mktemp -d)}; fi
pause=${PAUSE_S:-10}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

columns="url, cache_key, set_name, relative_path, byte_size, format, width, height, etag, last_modified, checksum, fetched_at, modified_at, accessed_at, validated_at, frames, variant_of, variant"

echo "== building 3 shards of $entries entries in $work (cache-filler)"
for shard in 0 1 2; do
  "$bin/cache-filler" "$work/s$shard" "$entries" $(( shard * entries )) >/dev/null &
done
wait
"$bin/cache-filler" "$work/empty" 0 0 >/dev/null
total=$(( 3 * entries ))

floor() {
  local dst=$1
  cp -a "$work/empty" "$dst"
  for shard in 0 1 2; do cp -al "$work/s$shard"/?? "$dst/"; done
  sqlite3 "$dst/index.sqlite" <<SQL
ATTACH '$work/s0/index.sqlite' AS s0; ATTACH '$work/s1/index.sqlite' AS s1; ATTACH '$work/s2/index.sqlite' AS s2;
BEGIN;
INSERT INTO entries(id, $columns) SELECT id, $columns FROM s0.entries;
INSERT INTO entries(id, $columns) SELECT id, $columns FROM s1.entries;
INSERT INTO entries(id, $columns) SELECT id, $columns FROM s2.entries;
COMMIT;
SQL
}

merge() {
  "$bin/prefetchd" merge "$work/s0" "$work/s1" "$work/s2" --into "$1" 2>/dev/null
}

check() {
  local rows files
  rows=$(sqlite3 "$1/index.sqlite" 'SELECT count(*) FROM entries')
  files=$(find "$1"/?? -type f | wc -l)
  [[ $rows == "$total" && $files == "$total" ]] || { echo "$2 left $rows rows and $files files, not $total" >&2; exit 1; }
}

declare -A wall cpu
time_row() {
  local name=$1 dst="$work/dst"
  rm -rf "$dst"
  [[ $tmpfs == 1 ]] || { sync; sleep "$pause"; }
  local TIMEFORMAT='%R %U %S' out
  out=$( { time "$name" "$dst" >/dev/null; } 2>&1 | tail -1)
  check "$dst" "$name"
  read -r real user sys <<<"$out"
  wall[$name]+="$real "
  cpu[$name]+="$(echo "$user + $sys" | bc -l) "
  printf '  %-10s wall %7.2f s  cpu %7.2f s  %8.0f entries/s\n' "$name" "$real" "$(echo "$user + $sys" | bc -l)" "$(echo "$total / $real" | bc -l)"
}

median() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for round in $(seq 1 "$rounds"); do
  echo "== round $round"
  if (( round % 2 )); then time_row merge; time_row floor; else time_row floor; time_row merge; fi
done
echo "== medians over $rounds rounds, $total entries ($( [[ $tmpfs == 1 ]] && echo tmpfs || echo disk ))"
for name in merge floor; do
  w=$(median "${wall[$name]}"); c=$(median "${cpu[$name]}")
  printf '%-10s wall %7.2f s  cpu %7.2f s  %8.0f entries/s\n' "$name" "$w" "$c" "$(echo "$total / $w" | bc -l)"
done
