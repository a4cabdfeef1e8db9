#!/usr/bin/env bash
# Runs a command under GNU time and prints one TSV line:
#   LABEL <tab> wall_s <tab> cpu_s (user + sys) <tab> peak_rss_kib <tab> exit_status
# Usage: bench/measure.sh LABEL TIMEFILE -- COMMAND [ARG ...]
# GNU time's raw figures (%e %U %S %M %x) are kept in TIMEFILE. The command's standard
# output and error go to TIMEFILE.log. This script exits 0 whatever the command's status;
# the status is in the TSV line.
set -euo pipefail

if (($# < 4)) || [[ $3 != -- ]]; then
    echo "usage: $0 LABEL TIMEFILE -- COMMAND [ARG ...]" >&2
    exit 2
fi
label=$1 timefile=$2
shift 3

/usr/bin/time -f '%e %U %S %M %x' -o "$timefile" "$@" >"$timefile.log" 2>&1 || true
# GNU time writes "Command exited with non-zero status N" before the figures on failure.
read -r wall user sys rss status < <(tail -n 1 "$timefile")
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$wall" "$cpu" "$rss" "$status"
