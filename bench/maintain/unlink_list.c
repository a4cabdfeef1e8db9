/* The unlink floor: unlinks the files named in a list (one path a line, relative to the current
 * folder), one unlink(2) each, on one thread, and nothing else: no directory walk, no stat, no index.
 * Usage: unlink_list LIST   (exit 1 when a file could not be unlinked) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: unlink_list LIST\n"); return 2; }
    FILE *list = fopen(argv[1], "r");
    if (!list) { perror(argv[1]); return 2; }
    char line[4096];
    long removed = 0, failed = 0;
    while (fgets(line, sizeof line, list)) {
        size_t length = strcspn(line, "\n");
        line[length] = 0;
        if (length == 0) continue;
        if (unlink(line) == 0) removed++;
        else { failed++; fprintf(stderr, "unlink %s: %s\n", line, strerror(errno)); }
    }
    fclose(list);
    printf("unlinked %ld files\n", removed);
    return failed ? 1 : 0;
}
