#ifndef PREFETCHD_SHIMS_PNG_H
#define PREFETCHD_SHIMS_PNG_H

#include <stddef.h>
#include <stdint.h>

/* A full, strict libpng decode whose setjmp/longjmp never leaves C.
   Every libpng error, benign error and critical-chunk CRC mismatch counts as a failure, and so does
   every warning but the benign kinds below, which are counted in *warnings as bits and the image is
   decoded on; the message buffer then holds libpng's own words. Rows are decoded into one reused row buffer
   and discarded; the pixel limit is checked from IHDR before that buffer is allocated. */

typedef enum {
    PF_PNG_OK = 0,
    PF_PNG_CORRUPT,
    PF_PNG_TRUNCATED,
    PF_PNG_TOO_MANY_PIXELS,
    PF_PNG_UNREADABLE,
    PF_PNG_FAILED,
} pf_png_status;

/* Warnings browsers and Pillow shrug off, as bits of *warnings. */
enum {
    /* tRNS names a grey or RGB sample beyond the bit depth: no pixel matches it, nothing else changes. */
    PF_PNG_WARNING_TRNS_OUT_OF_RANGE = 1u << 0,
    /* An ancillary chunk's CRC does not match: libpng drops that chunk and decodes the image. */
    PF_PNG_WARNING_ANCILLARY_CRC = 1u << 1,
};

/* max_pixels 0 means no pixel limit. width and height are set once IHDR has been read. */
pf_png_status pf_png_check_file(const char *path, uint64_t max_pixels,
                                uint32_t *width, uint32_t *height, uint32_t *warnings,
                                char *message, size_t message_size);

pf_png_status pf_png_check_memory(const uint8_t *data, size_t size, uint64_t max_pixels,
                                  uint32_t *width, uint32_t *height, uint32_t *warnings,
                                  char *message, size_t message_size);

#endif
