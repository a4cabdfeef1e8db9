#!/usr/bin/env bash
# The side-by-side fetch benchmark: the same nginx on loopback, the same corpus, the same
# concurrency, one timed run per row; curl and prefetchd with validate: header, the pair the main
# target compares, run --rounds times each, interleaved (curl first in odd rounds, prefetchd first in
# even ones), and compared by their medians: on this disk the same run varies by 2x from one minute
# to the next.
#   curl      curl --parallel --parallel-max N, one `url =`/`output =` pair per image in a config file
#   header floor  bench/header-floor/floor.c: libcurl's multi interface on one thread, N transfers in
#             flight, doing for every body only what prefetchd's header run must: an unnamed file
#             written from libcurl's buffer, XXH3-128 over the bytes, the file linked under its name,
#             a row in an SQLite table shaped as the index's entries (256 rows a transaction). What
#             that work costs with nothing of prefetchd's around it; in every round beside curl
#             (unless --skip header-floor). Then the same on 2 threads, each with its own multi
#             handle, N/2 in flight and every other URL, the rows through the one table under a
#             mutex: the least that work costs spread over two cores, and what URLs/s it reaches
#             there beside nginx (unless --skip header-floor-2); with --https, that 2-thread floor
#             over HTTPS too, each thread multiplexing on one HTTP/2 connection.
#   aria2c    aria2c -j N with its defaults (preallocation, control files, fsync)
#   aria2c    the same with --file-allocation=none --auto-save-interval=0 (no preallocation and no
#             control file; aria2 1.36 still fsyncs each finished file, no option turns that off)
#   aria2c    the same again under eatmydata, which turns fsync into a no-op (aria2 without any sync)
#   prefetchd `run` with validate: header, then `run` again over the same cache (warm: nothing to
#             fetch) and `verify` of the same job over it, each round; then validate: decode once,
#             and decode again over that cache (warm). Only when $PREFETCHD names a binary whose
#             `run --help` exits 0 and whose trial run over 10 URLs exits 0; otherwise the rows
#             say "not available".
#   floor     Pillow decoding every corpus file in one process, JPEGs with draft scaling to 1/8
#             as prefetchd's decode check asks libjpeg-turbo (bench/decode/pillow_decode.py): what
#             the decode check's library work costs without any fetching or storing.
#   https     with --https, the same folder over HTTPS with HTTP/2 from the same nginx (a
#             self-signed certificate): `curl -k --parallel` (which waits to multiplex on one
#             connection) and prefetchd validate: header with `insecure_tls: true`, in every round
#             beside the HTTP/1.1 rows.
#   base      with PREFETCHD_BASE set, a second build (say, the one before a change) compared with
#             $PREFETCHD: each round then runs curl, prefetchd header (with its warm rerun and
#             verify), base header (the same), with --https the HTTPS rows of curl, prefetchd and
#             base, then prefetchd decode (and its warm rerun), base decode (and its warm rerun),
#             in that order in odd rounds and in the reverse order in even ones; the decode rows
#             move into the rounds (unless --skip decode).
# Every row also counts the connections nginx accepted while it ran (its stub_status page, read
# before and after the row on a port of its own: PORT + 2).
# Before each timed run, dirty pages are flushed (sync), the page cache is dropped (as root), the
# corpus is read into the page cache and so are the row's tool's executable and the libraries it
# links (whole files, read with cat), outside the timing. Outputs (curl's and aria2c's files,
# prefetchd's caches) go to bench/out/ or to the --outputs folder, and so do the tools' inputs (the
# URL list, the job files and curl's config are copied into its work folder, so that on a tmpfs no
# tool reads its list from the disk after a dropped page cache). They are not deleted between runs
# (deleting 20,000 files costs disk I/O that would land in the next run): each is parked in
# parked-<n>/ there and all are deleted at the end; but on a tmpfs, where deleting costs no disk
# I/O, each row's output is deleted right after its check. The outputs, nginx and a --tmpfs mount
# are cleaned up however the script ends. Results end with a table of medians per row.
#
# Usage: bench/fetch.sh [--images N] [--concurrency N] [--rounds R] [--port P] [--seed S]
#                       [--results FILE] [--outputs DIR | --tmpfs SIZE] [--https] [--skip LIST]
#                       [--keep-page-cache]
#   --images N       corpus size (default 20000; about 132 KB per image on average)
#   --concurrency N  parallel transfers for every tool (default 16)
#   --rounds R       rounds of curl and prefetchd validate: header, and with PREFETCHD_BASE of
#                    all the prefetchd rows (default 3)
#   --port P         loopback port for nginx (default 8090)
#   --seed S         corpus seed (default 1)
#   --results FILE   Markdown fragment to write (default bench/out/fetch-n<N>-c<C>.md)
#   --outputs DIR    folder for all outputs, an existing one, e.g. a tmpfs (default bench/out)
#   --tmpfs SIZE     as root: mount a tmpfs of SIZE (mount's size=, e.g. 8G) on bench/out/tmpfs
#                    for the outputs, unmounted at the end
#   --https          add the HTTPS/h2 rows (nginx's TLS port is PORT + 1)
#   --skip LIST      leave out the rows named in the comma-separated LIST: aria2c, decode, floor
#                    (the single rows), header-floor, header-floor-2 (their rows in every round;
#                    header-floor-2 with its HTTPS row)
#   --keep-page-cache  do not drop the page cache before each row (as root it is dropped by
#                    default). With outputs deleted after their rows (a tmpfs) there are no parked
#                    outputs for the drop to keep out of a row, and after a drop on a machine that
#                    gives freed memory back to its host, each row's first writes pay for pages the
#                    host took back: most of every row's system time (bench/RESULTS.md, "Where the
#                    system time comes from")
# Environment: PREFETCHD=path/to/prefetchd adds the prefetchd rows; PREFETCHD_BASE=path/to/other
# adds the base rows (needs PREFETCHD).
set -euo pipefail

images=20000 concurrency=16 rounds=3 port=8090 seed=1 results="" outputs="" tmpfs_size="" https=0 skip="" keep_cache=0
while (($#)); do
    case $1 in
        --images) images=$2; shift 2 ;;
        --concurrency) concurrency=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --results) results=$2; shift 2 ;;
        --outputs) outputs=$2; shift 2 ;;
        --tmpfs) tmpfs_size=$2; shift 2 ;;
        --https) https=1; shift ;;
        --skip) skip=",$2,"; shift 2 ;;
        --keep-page-cache) keep_cache=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "fetch.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
for number in "$images" "$concurrency" "$rounds" "$port" "$seed"; do
    [[ $number =~ ^[0-9]+$ && $number -gt 0 ]] || { echo "fetch.sh: $number is not a positive number" >&2; exit 2; }
done
if [[ -n $outputs && -n $tmpfs_size ]]; then
    echo "fetch.sh: give --outputs or --tmpfs, not both" >&2; exit 2
elif [[ -n $tmpfs_size && $(id -u) -ne 0 ]]; then
    echo "fetch.sh: --tmpfs mounts a tmpfs, which needs root; mount one and pass --outputs instead" >&2; exit 2
elif [[ -n $outputs && ! -d $outputs ]]; then
    echo "fetch.sh: --outputs $outputs is not a folder" >&2; exit 2
fi

skips() { [[ $skip == *",$1,"* ]]; }

source "$(dirname "$0")/setup.sh"
bench_setup
"$BENCH/../scripts/bootstrap" eatmydata gcc

base_url=http://127.0.0.1:$port
tls_port=$((port + 1)) status_port=$((port + 2))
corpus=$("$PYTHON" "$BENCH/corpus.py" --count "$images" --seed "$seed" --base-url "$base_url" \
    --validate header decode --per-host "$concurrency")
results=${results:-$OUT/fetch-n$images-c$concurrency.md}
mount_point=""
[[ -n $tmpfs_size ]] && outputs=$OUT/tmpfs
outputs=$(mkdir -p "${outputs:-$OUT}" && cd "${outputs:-$OUT}" && pwd)
work=$outputs/fetch-work
parked_count=0

cleanup() {
    NGINX_TLS_PORT=$tls_port "$BENCH/nginx.sh" stop "$corpus" "$port" || true
    rm -rf "$work" "$outputs"/parked-*
    if [[ -n $mount_point ]]; then umount "$mount_point" || umount -l "$mount_point"; rmdir "$mount_point"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [[ -n $tmpfs_size ]]; then
    if mountpoint -q "$outputs"; then echo "fetch.sh: $outputs is already a mount point" >&2; exit 3; fi
    mount -t tmpfs -o "size=$tmpfs_size" tmpfs "$outputs"
    mount_point=$outputs
fi
rm -rf "$work" "$outputs"/parked-*
mkdir -p "$work"
# Every tool reads its URL list from the work folder, where curl's config is written too: a list read
# from bench/out would come from the disk in every row, as `prepare` drops the page cache before each.
cp "$corpus/urls.txt" "$corpus/job-header.yaml" "$corpus/job-decode.yaml" "$work/"

# The HTTPS job: the same URLs on the TLS port, the header job's options and insecure_tls.
sed "s#^http://127.0.0.1:$port/#https://127.0.0.1:$tls_port/#" "$corpus/urls.txt" >"$work/urls-https.txt"
sed -e "s#url_file: urls.txt#url_file: urls-https.txt#" -e "s#^name: bench-header#name: bench-header-https#" \
    -e "s#^defaults:#defaults:\n  insecure_tls: true#" "$corpus/job-header.yaml" >"$work/job-header-https.yaml"

# On a tmpfs each row's output is deleted after its check; elsewhere it is parked until the end.
outputs_fs=$(stat -f -c %T "$outputs")
delete_outputs=0
[[ $outputs_fs == tmpfs ]] && delete_outputs=1

# prefetchd_missing BINARY: prints why BINARY cannot run the benchmark (nothing if it can).
prefetchd_missing() {
    local binary=$1 trial=$work/trial
    if [[ ! -x $binary ]]; then
        echo "$binary is not an executable file"
    elif ! "$binary" run --help >/dev/null 2>&1; then
        echo "\`$binary run --help\` failed"
    else
        rm -rf "$trial" && mkdir -p "$trial"
        head -n 10 "$corpus/urls.txt" >"$trial/trial-urls.txt"
        sed 's/url_file: urls.txt/url_file: trial-urls.txt/' "$corpus/job-decode.yaml" >"$trial/job.yaml"
        if ! "$binary" run "$trial/job.yaml" --cache "$trial/cache" --concurrency "$concurrency" \
            --progress never --report "$trial/report.json" >"$trial/log" 2>&1; then
            echo "its trial run over 10 URLs failed: $(tail -n 1 "$trial/log")"
        fi
        rm -rf "$trial"
    fi
}

corpus_bytes=$(find "$corpus/images" -type f -name '*.jpg' -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }')
# Full copies of the corpus written and kept until the end (curl, the two header floors and header
# each round, aria2c three times, decode once; with a base build, both builds' header and decode
# each round), or one at a time when deleted; plus some room.
if ((delete_outputs)); then copies=1; elif [[ -n ${PREFETCHD_BASE:-} ]]; then copies=$((7 * rounds + 3)); else copies=$((4 * rounds + 4)); fi
needed_kib=$(( corpus_bytes / 1024 * (copies + 1) ))
free_kib=$(df -Pk "$outputs" | awk 'NR == 2 { print $4 }')
if (( free_kib < needed_kib )); then
    echo "fetch.sh: needs about $((needed_kib / 1048576)) GiB free in $outputs for the outputs, has $((free_kib / 1048576)) GiB" >&2
    exit 3
fi

tls_env=()
((https)) && tls_env=(NGINX_TLS_PORT="$tls_port")
env "${tls_env[@]}" NGINX_STATUS_PORT="$status_port" "$BENCH/nginx.sh" start "$corpus" "$port"

has_prefetchd=0 has_base=0
if [[ -z ${PREFETCHD:-} ]]; then
    prefetchd_note="prefetchd: not available (PREFETCHD is not set)."
elif reason=$(prefetchd_missing "$PREFETCHD") && [[ -n $reason ]]; then
    prefetchd_note="prefetchd: not available ($reason)."
else
    has_prefetchd=1
    prefetchd_note="prefetchd: $PREFETCHD ($("$PREFETCHD" --version 2>&1 | head -n 1))."
fi
if [[ -n ${PREFETCHD_BASE:-} ]]; then
    ((has_prefetchd)) || { echo "fetch.sh: PREFETCHD_BASE needs a working PREFETCHD; $prefetchd_note" >&2; exit 3; }
    reason=$(prefetchd_missing "$PREFETCHD_BASE")
    [[ -z $reason ]] || { echo "fetch.sh: PREFETCHD_BASE: $reason" >&2; exit 3; }
    has_base=1
    prefetchd_note="$prefetchd_note base: $PREFETCHD_BASE ($("$PREFETCHD_BASE" --version 2>&1 | head -n 1))."
fi

header_floor=$work/header-floor
{ skips header-floor && skips header-floor-2; } ||
    gcc -O2 -o "$header_floor" "$BENCH/header-floor/floor.c" -lcurl -lsqlite3 -lxxhash -lpthread

# One TSV line per row: label, wall, cpu, rss KiB, exit status, check, connections accepted, user s,
# system s.
rows=$work/rows.tsv
: >"$rows"
row_count=0
load_start=$(cut -d ' ' -f 1-3 /proc/loadavg)

prepare() {
    sync
    # As root, the page cache is dropped too (unless --keep-page-cache), so that every run starts with
    # the same free memory instead of the kernel reclaiming earlier rows' parked outputs while it runs.
    if ((!keep_cache)) && [[ -w /proc/sys/vm/drop_caches ]]; then echo 1 >/proc/sys/vm/drop_caches; fi
    find "$corpus/images" -type f -name '*.jpg' -exec cat {} + >/dev/null
}

# dispose FOLDER: parks a row's output, or deletes it on a tmpfs.
dispose() {
    if ((delete_outputs)); then rm -rf "$1"; return; fi
    parked_count=$((parked_count + 1))
    mv "$1" "$outputs/parked-$parked_count"
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

# medians: one TSV line per row name (the label without " (round N)") over its checked runs:
# name, runs, median wall s, median CPU s, median URLs/s, each run's wall s, median connections.
medians() {
    awk -F '\t' -v n="$images" '
        function median(list,   k, v, i, j, t) {
            k = split(list, v, " ")
            for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        }
        $2 > 0 && $5 == 0 && $6 == "ok" {
            name = $1; sub(/ \(round [0-9]+\)$/, "", name)
            if (!(name in runs)) order[++names] = name
            runs[name]++; walls[name] = walls[name] " " $2; cpus[name] = cpus[name] " " $3; rates[name] = rates[name] " " n / $2
            conns[name] = conns[name] " " $7; users[name] = users[name] " " $8; syss[name] = syss[name] " " $9
        }
        END {
            for (i = 1; i <= names; i++) {
                m = order[i]
                printf "%s\t%d\t%.2f\t%.2f\t%.0f\t%s\t%s\t%.2f\t%.2f\n", m, runs[m], median(walls[m]), median(cpus[m]), median(rates[m]),
                    substr(walls[m], 2), median(conns[m]), median(users[m]), median(syss[m])
            }
        }' "$rows"
}
# median NAME FIELD: FIELD (3 wall, 4 CPU, 5 URLs/s, 8 user, 9 system) of NAME's medians line, 0 if
# none.
median() {
    medians | awk -F '\t' -v name="$1" -v field="$2" '$1 == name { value = $field } END { print value + 0 }'
}

# accepted: the connections nginx has accepted so far (its status page's own included).
accepted() {
    curl -s --max-time 5 "http://127.0.0.1:$status_port/" | awk 'NR == 3 { print $1 }'
}

# warm_executable COMMAND: reads COMMAND's file and the libraries ldd lists for it.
warm_executable() {
    local path
    path=$(command -v "$1") || return 0
    cat "$path" $(ldd "$path" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }') >/dev/null
}

# measure LABEL -- COMMAND...: prepare, time, append the row (without its check and connections;
# end_row appends them). The connections are those nginx accepted while the command ran: the
# difference of two status reads, less the second read's own.
measure() {
    local label=$1 before after
    shift 2
    prepare
    # The tool's executable and every library it links into the page cache too, as the corpus is,
    # outside the timing: a dropped page cache would otherwise time their reads from disk, most of a
    # short row. Whole files, not the pages a `--version` touches: a warm rerun runs code that
    # `--version` never does, and read it from the disk (0.23-0.32 s against 0.19 s once cached).
    warm_executable "$1"
    echo "fetch.sh: running $label" >&2
    row_count=$((row_count + 1))
    before=$(accepted)
    "$BENCH/measure.sh" "$label" "$work/time-$row_count" -- "$@" | tr -d '\n' >>"$rows"
    after=$(accepted)
    row_connections=$((after - before - 1))
}
# end_row CHECK: ends the row measure began, with its check, its connections and GNU time's user
# and system seconds (the CPU column is their sum).
end_row() {
    local user sys
    read -r _ user sys _ < <(tail -n 1 "$work/time-$row_count")
    printf '\t%s\t%s\t%s\t%s\n' "$1" "$row_connections" "$user" "$sys" >>"$rows"
}

# curl_row ROUND [https]: curl, one round, over HTTP/1.1 or HTTPS.
curl_row() {
    local folder=$work/curl-$1 urls=$work/urls.txt label="curl --parallel" tls=()
    if [[ ${2:-} == https ]]; then
        urls=$work/urls-https.txt label="curl -k --parallel, HTTPS h2" tls=(-k)
    fi
    mkdir -p "$folder"
    awk -v dir="$folder" '{ n = split($0, part, "/"); printf "url = \"%s\"\noutput = \"%s/%s\"\n", $0, dir, part[n] }' \
        "$urls" >"$work/curl.config"
    measure "$label (round $1)" -- curl --silent --show-error --fail "${tls[@]}" --parallel --parallel-max "$concurrency" \
        --config "$work/curl.config"
    end_row "$(check_files "$folder")"
    dispose "$folder"
}

# header_floor_row ROUND [THREADS [https]]: the header run's work alone (bench/header-floor/floor.c),
# one round, on one thread or THREADS, over HTTP/1.1 or HTTPS.
header_floor_row() {
    local folder=$work/floor-$1-${2:-1}${3:+-$3} label="header floor" urls=$work/urls.txt
    [[ -n ${2:-} ]] && label="header floor, $2 threads"
    if [[ ${3:-} == https ]]; then
        urls=$work/urls-https.txt label="$label, HTTPS h2"
    fi
    mkdir -p "$folder"
    measure "$label (round $1)" -- "$header_floor" "$urls" "$folder" "$concurrency" "${2:-1}"
    end_row "$(check_files "$folder")"
    dispose "$folder"
}

# aria2c, three ways
aria2_row() {
    local label=$1 folder=$2
    shift 2
    mkdir -p "$folder"
    measure "$label" -- "$@" aria2c -j "$concurrency" -d "$folder" -i "$work/urls.txt" "${aria2_options[@]}"
    end_row "$(check_files "$folder")"
    dispose "$folder"
}

# Checks that the JSON log $1 of a verify ends with a summary counting every image fresh.
check_verify() {
    python3 - "$1" "$images" <<'PY'
import json, sys
path, expected = sys.argv[1], int(sys.argv[2])
summary = {}
for line in open(path, errors="replace"):
    try:
        event = json.loads(line)
    except ValueError:
        continue
    if isinstance(event, dict) and event.get("event") == "summary":
        summary = event.get("totals", {})
if summary.get("fresh") == expected and summary.get("checked") == expected:
    print("ok")
else:
    print(f"verify: checked {summary.get('checked')}, fresh {summary.get('fresh')}")
PY
}

# prefetchd_row BINARY NAME LEVEL SUFFIX: `run` with validate: LEVEL into a new cache, then the
# warm rerun over that cache (and, for header, `verify`), each checked by its report or log; then
# the cache is disposed of. LEVEL header-https is the header job over HTTPS, without the warm rows.
# NAME starts the labels ("prefetchd" or "base"), SUFFIX ends them (" (round N)" or nothing).
prefetchd_row() {
    local binary=$1 name=$2 level=$3 suffix=$4 cache=$work/cache report=$work/report.json key=fetched label
    local job=$work/job-$level.yaml labels
    case $level in
        header) labels=("$name validate: header$suffix" "$name validate: header, warm$suffix" "$name verify$suffix") ;;
        decode) labels=("$name validate: decode$suffix" "$name validate: decode, warm$suffix") ;;
        header-https) labels=("$name validate: header, HTTPS h2$suffix"); job=$work/job-header-https.yaml ;;
    esac
    if ! ((has_prefetchd)); then
        for label in "${labels[@]}"; do printf '%s\t\t\t\t\tnot available\t\n' "$label" >>"$rows"; done
        return
    fi
    for label in "${labels[@]}"; do
        rm -f "$report"
        if [[ $label == "$name verify$suffix" ]]; then
            measure "$label" -- "$binary" verify "$job" --cache "$cache" --log-format json
            end_row "$(check_verify "$work/time-$row_count.log")"
            continue
        fi
        measure "$label" -- "$binary" run "$job" --cache "$cache" \
            --concurrency "$concurrency" --progress never --report "$report"
        end_row "$(check_report "$report" "$key")"
        key=cached
    done
    dispose "$cache"
}

# The decode check's floor: Pillow over every corpus file in one process, JPEG draft 1/8.
floor_row() {
    find "$corpus/images" -type f -name '*.jpg' | sort >"$work/floor.list"
    measure "Pillow decode, one process (JPEG draft 1/8)" -- "$PYTHON" "$BENCH/decode/pillow_decode.py" \
        --jpeg-draft "$work/floor.list"
    if grep -q "^files $images .* failed 0$" "$work/time-$row_count.log"; then end_row ok; else end_row "$(tail -n 1 "$work/time-$row_count.log")"; fi
}

# round_row KIND ROUND: one row of a round.
round_row() {
    case $1 in
        curl) curl_row "$2" ;;
        curl-https) curl_row "$2" https ;;
        header-floor) header_floor_row "$2" ;;
        header-floor-2) header_floor_row "$2" 2 ;;
        header-floor-2-https) header_floor_row "$2" 2 https ;;
        header|decode|header-https) prefetchd_row "${PREFETCHD:-}" prefetchd "$1" " (round $2)" ;;
        base-header|base-decode|base-header-https) prefetchd_row "$PREFETCHD_BASE" base "${1#base-}" " (round $2)" ;;
    esac
}
kinds=(curl header)
((has_base)) && kinds=(curl header base-header)
skips header-floor-2 || kinds=("${kinds[0]}" header-floor-2 "${kinds[@]:1}")
skips header-floor || kinds=("${kinds[0]}" header-floor "${kinds[@]:1}")
((https)) && kinds+=(curl-https header-https)
((https)) && ! skips header-floor-2 && kinds+=(header-floor-2-https)
((https && has_base)) && kinds+=(base-header-https)
((has_base)) && ! skips decode && kinds+=(decode base-decode)
for round in $(seq 1 "$rounds"); do
    order=("${kinds[@]}")
    if ((round % 2 == 0)); then
        order=()
        for ((i = ${#kinds[@]} - 1; i >= 0; i--)); do order+=("${kinds[i]}"); done
    fi
    for kind in "${order[@]}"; do round_row "$kind" "$round"; done
done
if ! skips aria2c; then
    aria2_options=()
    aria2_row "aria2c (defaults)" "$work/aria2-defaults"
    aria2_options=(--file-allocation=none --auto-save-interval=0)
    aria2_row "aria2c --file-allocation=none --auto-save-interval=0" "$work/aria2-nosave"
    aria2_row "aria2c, same options, fsync off (eatmydata)" "$work/aria2-nosync" eatmydata
fi
((has_base)) || skips decode || prefetchd_row "${PREFETCHD:-}" prefetchd decode ""
skips floor || floor_row

NGINX_TLS_PORT=$tls_port "$BENCH/nginx.sh" stop "$corpus" "$port"

if ((delete_outputs)); then outputs_note="each deleted after its row"; else outputs_note="parked until the end"; fi
if ((keep_cache)) || [[ ! -w /proc/sys/vm/drop_caches ]]; then cache_note="page cache kept"; else cache_note="page cache dropped"; fi
{
    echo "Fetch benchmark, $(date -u +%Y-%m-%dT%H:%MZ): $images images ($(awk -v b="$corpus_bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB)," \
        "concurrency $concurrency, nginx on 127.0.0.1 (sendfile, keep-alive), corpus in the page cache," \
        "outputs on $outputs_fs ($outputs_note), $cache_note before each row."
    echo
    echo "Machine: $(nproc) cores, Linux $(uname -r), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
        "load average $load_start at the start, $(cut -d ' ' -f 1-3 /proc/loadavg) at the end." \
        "$(curl --version | head -n 1 | cut -d ' ' -f 1-2), $(aria2c --version | head -n 1), $(nginx -v 2>&1 | sed 's/.*: //')."
    echo
    echo "$prefetchd_note"
    echo
    echo "| tool | wall s | URLs/s | MB/s | CPU s | user s | system s | peak RSS MiB | connections | URLs/s vs curl (median) | check |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    curl_rate=$(median "curl --parallel" 5)
    curl_tls_rate=$(median "curl -k --parallel, HTTPS h2" 5)
    awk -F '\t' -v n="$images" -v bytes="$corpus_bytes" -v curl_rate="$curl_rate" -v curl_tls_rate="$curl_tls_rate" '
        {
            if ($2 == "" || $2 + 0 == 0) { printf "| %s | | | | | | | | | | %s |\n", $1, $6; next }
            rate = n / $2
            check = ($5 == 0) ? $6 : "exit " $5 "; " $6
            against = ($1 ~ /HTTPS/) ? curl_tls_rate : curl_rate
            ratio = (against > 0) ? sprintf("%.2f", rate / against) : ""
            printf "| %s | %.2f | %.0f | %.1f | %.2f | %.2f | %.2f | %.1f | %s | %s | %s |\n",
                $1, $2, rate, bytes / 1e6 / $2, $3, $8, $9, $4 / 1024, $7, ratio, check
        }' "$rows"
    echo
    echo "URLs/s vs curl: HTTPS rows against curl's HTTPS median, the others against curl's HTTP/1.1 median." \
        "Connections: accepted by nginx while the row ran."
    echo
    echo "| row | runs | median wall s | median CPU s | median user s | median system s | median URLs/s | median connections | each run's wall s |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
    medians | awk -F '\t' '{ printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $8, $9, $5, $7, $6 }'
    echo
    # compare NAME AGAINST: one line, NAME's medians against AGAINST's (URLs/s, CPU, user and system).
    compare() {
        awk -v name="$1" -v against="$2" -v r="$(median "$1" 5)" -v ar="$(median "$2" 5)" \
            -v c="$(median "$1" 4)" -v ac="$(median "$2" 4)" -v u="$(median "$1" 8)" -v au="$(median "$2" 8)" \
            -v s="$(median "$1" 9)" -v as="$(median "$2" 9)" 'BEGIN {
                if (r == 0 || ar == 0) exit
                printf "Medians of the rounds: %s %.0f URLs/s at %.2f CPU s (user %.2f, system %.2f), %s %.0f URLs/s at %.2f CPU s (user %.2f, system %.2f): %.2fx the URLs/s at %.2fx the CPU (user %.2fx, system %.2fx).\n",
                    name, r, c, u, s, against, ar, ac, au, as, r / ar, (ac > 0 ? c / ac : 0), (au > 0 ? u / au : 0), (as > 0 ? s / as : 0) }'
    }
    compare "prefetchd validate: header" "curl --parallel"
    compare "header floor" "curl --parallel"
    compare "header floor, 2 threads" "curl --parallel"
    compare "prefetchd validate: header" "header floor"
    compare "prefetchd validate: header, HTTPS h2" "curl -k --parallel, HTTPS h2"
    compare "header floor, 2 threads, HTTPS h2" "curl -k --parallel, HTTPS h2"
    compare "prefetchd validate: header, HTTPS h2" "header floor, 2 threads, HTTPS h2"
    awk -v cold="$(median "prefetchd validate: header" 3)" -v warm="$(median "prefetchd validate: header, warm" 3)" \
        -v verify="$(median "prefetchd verify" 3)" -v n="$images" 'BEGIN {
            if (cold == 0 || warm == 0) exit
            printf "Warm: the header job over its own cache %.2f s against %.2f s cold = %.1fx (%.0f URLs/s)", warm, cold, cold / warm, n / warm
            if (verify > 0) printf "; verify %.2f s = %.0f URLs/s", verify, n / verify
            printf " (medians; the timer resolves 10 ms).\n" }'
    if ((has_base)); then
        for name in "validate: header" "validate: header, warm" "verify" "validate: header, HTTPS h2" "validate: decode" "validate: decode, warm"; do
            awk -v name="$name" -v w="$(median "prefetchd $name" 3)" -v bw="$(median "base $name" 3)" \
                -v c="$(median "prefetchd $name" 4)" -v bc="$(median "base $name" 4)" 'BEGIN {
                    if (w == 0 && bw == 0) exit
                    printf "prefetchd against base, %s: median wall %.2f s against %.2f s = %s, CPU %.2f s against %.2f s = %s.\n",
                        name, w, bw, (bw > 0 ? sprintf("%.3fx", w / bw) : "no ratio"), c, bc, (bc > 0 ? sprintf("%.3fx", c / bc) : "no ratio") }'
        done
    fi
} >"$results"
cat "$results"
echo "fetch.sh: results written to $results" >&2
