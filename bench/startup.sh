#!/usr/bin/env bash
# Start-up benchmark: `--version`, `--help` and `stats --cache CACHE --format json` of two builds,
# interleaved (each command of each build twice a round, ROUNDS rounds: once under `perf stat` for its
# CPU, the task-clock, and once alone for its wall); prints the medians, in ms.
#   bench/startup.sh NEW OLD CACHE [ROUNDS]
# NEW and OLD are prefetchd binaries; CACHE a cache folder (cache-filler makes one: see
# bench/maintain/run.sh), on a tmpfs for a CPU-bound comparison. Needs perf (linux-perf).
set -euo pipefail
new=$1 old=$2 cache=$3 rounds=${4:-9}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
commands=("--version" "--help" "stats --cache $cache --format json")
"$new" stats --cache "$cache" --format json >/dev/null   # warm the page cache
for ((round = 0; round < rounds; round++)); do
  for build in new old; do
    binary=$new; [ "$build" = old ] && binary=$old
    for number in "${!commands[@]}"; do
      # shellcheck disable=SC2086 # the command's words
      perf stat -x, -e task-clock -o "$out/perf" "$binary" ${commands[$number]} >/dev/null
      cpu=$(awk -F, '$3 == "task-clock" {print $1}' "$out/perf")
      start=$(date +%s%N)
      # shellcheck disable=SC2086
      "$binary" ${commands[$number]} >/dev/null
      echo "$(( ($(date +%s%N) - start) / 1000 ))" "$cpu" >>"$out/$build.$number"
    done
  done
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-45s %12s %12s\n' "command ($rounds rounds, medians)" "wall ms" "CPU ms"
for number in "${!commands[@]}"; do
  for build in new old; do
    wall=$(awk '{print $1 / 1000}' "$out/$build.$number" | median)
    cpu=$(awk '{print $2}' "$out/$build.$number" | median)
    printf '%-45s %12.1f %12.1f\n' "$build: prefetchd ${commands[$number]%% --cache*}" "$wall" "$cpu"
  done
done
