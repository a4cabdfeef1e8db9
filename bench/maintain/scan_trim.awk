# The scan-based LRU trim: input "mtime size path" lines sorted oldest first; prints the paths to
# delete, oldest first, until the total is at or below target (awk -v target=BYTES).
{ time[NR] = $1; size[NR] = $2; path[NR] = substr($0, length($1) + length($2) + 3); total += $2 }
END { for (i = 1; i <= NR && total > target; i++) { print path[i]; total -= size[i] } }
