#ifndef PREFETCHD_SHIMS_JPEG_H
#define PREFETCHD_SHIMS_JPEG_H

#include <stddef.h>
#include <stdint.h>

/* A full libjpeg-turbo decode whose setjmp/longjmp never leaves C.
   Output is scaled 1/8 (entropy decoding still reads the whole stream) into one reused scanline.
   Every libjpeg warning counts as a failure: "Premature end of JPEG file" is PF_JPEG_TRUNCATED,
   the others PF_JPEG_CORRUPT. The message buffer holds libjpeg's own words. */

typedef enum {
    PF_JPEG_OK = 0,
    PF_JPEG_CORRUPT,
    PF_JPEG_TRUNCATED,
    PF_JPEG_TOO_MANY_PIXELS,
    PF_JPEG_ZERO_PIXELS,
    PF_JPEG_TOO_MANY_SCANS,
    PF_JPEG_UNSUPPORTED,
    PF_JPEG_UNREADABLE,
    PF_JPEG_FAILED,
} pf_jpeg_status;

/* max_pixels 0 means no pixel limit; max_scans 0 means no scan limit.
   width and height are set once the frame header has been read. */
pf_jpeg_status pf_jpeg_check_file(const char *path, uint64_t max_pixels, int max_scans,
                                  uint32_t *width, uint32_t *height,
                                  char *message, size_t message_size);

pf_jpeg_status pf_jpeg_check_memory(const uint8_t *data, size_t size, uint64_t max_pixels, int max_scans,
                                    uint32_t *width, uint32_t *height,
                                    char *message, size_t message_size);

/* The libjpeg-turbo version prefetchd was built against (LIBJPEG_TURBO_VERSION, a bare token in
   jconfig.h, as a string): the library has no call that tells its version at run time. */
const char *pf_jpeg_turbo_version(void);

#endif
