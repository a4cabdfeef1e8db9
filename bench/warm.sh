#!/usr/bin/env bash
# The warm-path benchmark: `verify` and a warm rerun (`run` with everything cached and fresh) of one
# job over a filled cache, for one build or two side by side, without a server or a network.
#   bench/warm.sh [--entries N] [--rounds R] [--outputs DIR]
#   --entries N   cache entries and job URLs (default 20000)
#   --rounds R    rounds (default 5); each runs every build's `verify`, then every build's `run`, the
#                 builds in the order given in odd rounds and in the reverse order in even ones
#   --outputs DIR an existing folder for the cache and the job, e.g. on a tmpfs (default bench/out)
#   --cache DIR   a cache cache-filler made with N entries from 0, used as it is and kept, instead of
#                 a new one (a million entries take minutes to make); with two builds each gets a
#                 copy, so the folder of --outputs needs room for two more caches (a million entries:
#                 about 8.5 GB and two million inodes more on a tmpfs)
#   --age-hours H before every timed command, every entry's last use is moved H hours back (one
#                 sqlite3 UPDATE, untimed, through the index's own triggers), so the rerun's uses fall
#                 in another hour than the ones before, as a rerun the next day does (default 0: the
#                 uses of the command before, in the same hour as a rule)
# Environment: PREFETCHD (default this checkout's .build/release/prefetchd); PREFETCHD_BASE adds a
# second build; CACHE_FILLER (default .build/release/cache-filler) makes the cache.
# The cache is made by cache-filler through the real store path (N entries of 200-2,200 bytes whose
# URLs spread over 8 hosts, one process; build it from the older checkout when the builds' indexes
# differ; each build then gets a copy of its own), and the job lists the same N URLs in one set with `validate: header` and neither max_age
# nor max_size. Each command runs once untimed first. Wall and
# CPU (user + system) come from /usr/bin/time; the script prints every round and the medians, and
# removes the cache it made at the end. Needs a release build:
#   swift build -c release --static-swift-stdlib --product prefetchd && swift build -c release --product cache-filler
set -euo pipefail

entries=20000 rounds=5 outputs="" cache="" age_hours=0
while (($#)); do
    case $1 in
        --entries) entries=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --outputs) outputs=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --age-hours) age_hours=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "warm.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $age_hours =~ ^[0-9]+$ ]] || { echo "warm.sh: --age-hours $age_hours is not a whole number" >&2; exit 2; }
for number in "$entries" "$rounds"; do
    [[ $number =~ ^[0-9]+$ && $number -gt 0 ]] || { echo "warm.sh: $number is not a positive number" >&2; exit 2; }
done
bench=$(cd "$(dirname "$0")" && pwd)
release=$bench/../.build/release
builds=("${PREFETCHD:-$release/prefetchd}")
[[ -n ${PREFETCHD_BASE:-} ]] && builds+=("$PREFETCHD_BASE")
filler=${CACHE_FILLER:-$release/cache-filler}
for binary in "${builds[@]}" "$filler"; do
    [[ -x $binary ]] || { echo "warm.sh: $binary is not an executable (see --help)" >&2; exit 2; }
done
"$bench/../scripts/bootstrap" time sqlite3
outputs=${outputs:-$bench/out}
mkdir -p "$outputs"
work=$(mktemp -d "$outputs/warm-XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ -z $cache ]]; then
    cache=$work/cache
    echo "== filling $cache with $entries entries"
    "$filler" "$cache" "$entries" 0
fi
# Each build works on a cache of its own: a newer build upgrades an older index in place on its first
# write, after which the older build would refuse it. With two builds the second one's is a copy
# (`cp -a`), made before either runs, and so is the first one's when the cache was given (--cache):
# a kept cache is left as it was.
declare -A caches
caches[${builds[0]}]=$cache
if ((${#builds[@]} == 2)); then
    copies=(1)
    [[ $cache != "$work/cache" ]] && copies=(0 1)
    for number in "${copies[@]}"; do
        echo "== copying $cache for ${builds[number]}"
        cp -a "$cache" "$work/cache-$number"
        caches[${builds[number]}]=$work/cache-$number
    done
fi
awk -v n="$entries" 'BEGIN { for (i = 0; i < n; i++) printf "https://img%d.example.com/catalog/%d.jpg\n", i % 8, i }' \
    >"$work/urls.txt"
cat >"$work/job.yaml" <<'EOF'
version: 1
name: warm-bench
cache:
  max_size: 0
  max_age: 0
defaults:
  validate: header
  formats: [jpeg]
sets:
  - name: warm
    url_file: urls.txt
EOF

# Runs build $1's command $2 once; sets wall and cpu (seconds).
timed() {
    local cache=${caches[$1]}
    if ((age_hours > 0)); then
        sqlite3 "$cache/index.sqlite" "UPDATE entries SET accessed_at = accessed_at - $age_hours * 3600" \
            || { echo "warm.sh: could not age $cache" >&2; exit 1; }
    fi
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$1" "$2" "$work/job.yaml" --cache "$cache" >"$work/out" 2>&1 \
        || { echo "warm.sh: $1 $2 failed:" >&2; cat "$work/out" >&2; exit 1; }
    read -r wall cpu < <(awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$work/time")
}

declare -A walls cpus
for binary in "${builds[@]}"; do
    for command in verify run; do timed "$binary" "$command"; done
done
for ((round = 1; round <= rounds; round++)); do
    order=("${builds[@]}")
    ((round % 2 == 0 && ${#order[@]} == 2)) && order=("${order[1]}" "${order[0]}")
    for command in verify run; do
        for binary in "${order[@]}"; do
            timed "$binary" "$command"
            echo "round $round: $binary $command: wall $wall s, CPU $cpu s"
            walls[$binary $command]+="$wall "
            cpus[$binary $command]+="$cpu "
        done
    done
done

median() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo
echo "| build | command | median wall s | median CPU s | URLs/s by wall | each round's wall s |"
echo "|---|---|---:|---:|---:|---|"
for binary in "${builds[@]}"; do
    for command in verify run; do
        wall=$(median "${walls[$binary $command]}")
        cpu=$(median "${cpus[$binary $command]}")
        rate=$(awk -v n="$entries" -v w="$wall" 'BEGIN { printf "%.0f", n / w }')
        echo "| $binary | $command | $wall | $cpu | $rate | ${walls[$binary $command]}|"
    done
done
