#!/usr/bin/env bash
# Peak RSS of `prefetchd run` as the job grows: url_pattern jobs of N URLs (default 100,000 and
# 1,000,000), every URL a distinct cache key (a query number) served by nginx as one small PNG,
# fetched and stored for real with validate: decode. The figures go to bench/out/memory.md.
#
#   bench/memory.sh [N ...]
set -euo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
sizes=("$@")
(( ${#sizes[@]} )) || sizes=(100000 1000000)
port=8091

"$ROOT/scripts/bootstrap" nginx time >&2
(cd "$ROOT" && swift build -c release --static-swift-stdlib --product prefetchd >&2)
prefetchd="$(cd "$ROOT" && swift build -c release --show-bin-path)/prefetchd"
out="$BENCH/out/memory"
rm -rf "$out"
mkdir -p "$out/site"
cp "$ROOT/jobs/samples/basn2c08.png" "$out/site/one.png"
"$BENCH/nginx.sh" start "$out/site" "$port" >&2
trap '"$BENCH/nginx.sh" stop "$out/site" "$port" >/dev/null 2>&1 || true' EXIT

{
    echo "Memory benchmark, $(date -u +%Y-%m-%dT%H:%MZ): $(nproc) cores, Linux $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "| URLs in the pattern | wall s | URLs/s | CPU s | peak RSS MiB | fetched | failed |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
} > "$out/table.md"
for n in "${sizes[@]}"; do
    cat > "$out/job-$n.yaml" <<JOB
version: 1
name: memory-$n
cache: { path: $out/cache-$n, max_age: 0 }
defaults: { validate: decode, formats: [png], per_host: 16 }
sets:
  - name: pattern
    url_pattern: "http://127.0.0.1:$port/one.png?n=[1-$n]"
JOB
    /usr/bin/time -f '%e %U %S %M' -o "$out/time-$n" \
        "$prefetchd" run "$out/job-$n.yaml" --concurrency 16 --progress never --quiet --report "$out/report-$n.json" >&2
    read -r wall user system rss < "$out/time-$n"
    fetched=$(python3 -c "import json; print(json.load(open('$out/report-$n.json'))['totals']['fetched'])")
    failed=$(python3 -c "import json; print(json.load(open('$out/report-$n.json'))['totals']['failed'])")
    awk -v n="$n" -v w="$wall" -v u="$user" -v s="$system" -v r="$rss" -v f="$fetched" -v x="$failed" \
        'BEGIN { printf "| %d | %.1f | %d | %.1f | %.1f | %d | %d |\n", n, w, n / w, u + s, r / 1024, f, x }' >> "$out/table.md"
done
cp "$out/table.md" "$BENCH/out/memory.md"
cat "$BENCH/out/memory.md"
