// CPU of the variants' fast path, one thread, against the decode check alone (bench/RESULTS.md,
// "Variants: one decode for the check and the variant"): for each JPEG given, three times over,
//   check    the decode check as validate: decode runs it (DCT scaling 1/8, rows dropped);
//   variant  the same check keeping its planes for a 256 px box (pf_jpeg_keep), then the 256 px
//            JPEG variant at quality 80 made from them (pf_variant_jpeg: area averaging, EXIF
//            orientation, libjpeg-turbo's encoder).
// CPU is the thread's (CLOCK_THREAD_CPUTIME_ID), the files read into memory outside the timing.
// Build, from the repository's root, with S=Sources/CShims, by clang -O2 as a release build compiles
// CShims (GCC 12 at -O2 leaves the resampler's loops scalar: 2.0-2.4 ms a variant against 0.33-0.38):
//   clang -O2 -I $S/include -I $S -o fastpath bench/variants/fastpath.c $S/shim_jpeg.c $S/shim_exif.c
//      $S/shim_resample.c $S/shim_variant.c $S/shim_jpeg_encode.c -ljpeg -lm
// Run:   ./fastpath check|variant FILE.jpg ...
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "CShimsVariant.h"

static double cpu(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    *size = (size_t)ftell(file);
    rewind(file);
    unsigned char *bytes = malloc(*size);
    if (bytes != NULL && fread(bytes, 1, *size, file) != *size) {
        free(bytes);
        bytes = NULL;
    }
    fclose(file);
    return bytes;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "variant") != 0)) {
        fprintf(stderr, "usage: fastpath check|variant FILE.jpg ...\n");
        return 2;
    }
    int keeping = strcmp(argv[1], "variant") == 0, files = argc - 2, rounds = 3;
    double checking = 0, making = 0;
    size_t bytes = 0;
    char message[256];
    for (int round = 0; round < rounds; round++) {
        for (int i = 2; i < argc; i++) {
            size_t size;
            unsigned char *data = slurp(argv[i], &size);
            if (data == NULL) {
                fprintf(stderr, "%s: cannot read\n", argv[i]);
                return 1;
            }
            uint32_t width, height;
            pf_jpeg_keep keep = {.box_width = 256, .box_height = 256};
            double start = cpu();
            pf_jpeg_status status = pf_jpeg_check_memory(data, size, 0, 0, keeping ? &keep : NULL, &width, &height, message, sizeof message);
            double checked = cpu();
            checking += checked - start;
            if (status != PF_JPEG_OK) {
                fprintf(stderr, "%s: %s\n", argv[i], message);
            } else if (keeping && keep.plane[0].pixels == NULL) {
                fprintf(stderr, "%s: not kept (%s)\n", argv[i], keep.declined);
            } else if (keeping) {
                uint8_t *out;
                size_t length;
                uint32_t out_width, out_height;
                if (pf_variant_jpeg(&keep, width, height, 256, 256, 80, &out, &length, &out_width, &out_height, message, sizeof message) == PF_VARIANT_OK) {
                    bytes += length;
                    pf_variant_free(out);
                } else {
                    fprintf(stderr, "%s: no variant: %s\n", argv[i], message);
                }
                making += cpu() - checked;
            }
            pf_jpeg_keep_free(&keep);
            free(data);
        }
    }
    double per = 1e3 / files / rounds;
    printf("%-8s files=%d check=%.3f ms variant=%.3f ms per file, variant %zu B on average\n", argv[1], files, checking * per,
           making * per, bytes / (size_t)files / (size_t)rounds);
    return 0;
}
