#ifndef PREFETCHD_SHIMS_JPEG_H
#define PREFETCHD_SHIMS_JPEG_H

#include <stddef.h>
#include <stdint.h>

/* A full libjpeg-turbo decode whose setjmp/longjmp never leaves C.
   Output is scaled 1/8 (entropy decoding still reads the whole stream) into one reused scanline,
   or, for the variants, kept at a larger scale (pf_jpeg_keep).
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

/* One component of an image, 8-bit samples: height rows of width samples, stride bytes apart;
   across and down are its samples per sample of the image's full-size component each way (1, or
   1/2 for a 4:2:0 JPEG's chroma), so that its exact extent is the image's size times them (a last
   sample partial where that is not whole). */
typedef struct {
    uint8_t *pixels;
    uint32_t width, height;
    size_t stride;
    double across, down;
} pf_plane;

/* What the planes of a kept image hold. */
typedef enum {
    PF_KEPT_GREY = 1, /* one plane */
    PF_KEPT_YCBCR,    /* Y, Cb and Cr, each at its own sampling */
    PF_KEPT_RGB,      /* R, G and B */
} pf_kept_colour;

/* What the check keeps of the decoded image for the variants' fast path (shim_variant.c), when
   the caller passes one: the decode runs at the smallest DCT scale of 1/8, 1/4, 1/2 and 1 whose
   output is at least twice the size the box asks of the image (or the image whole), and the
   components are kept as the IDCT leaves them (libjpeg's raw data, no colour conversion; the
   chroma at its own sampling, which at a reduced scale libjpeg-turbo's IDCT itself enlarges to
   the luma's size) instead of dropped. The entropy decoding, and so the verdict, is the same at
   every scale. Only 8-bit YCbCr, RGB and grey images without an embedded ICC profile or
   fractional sampling (which libjpeg-turbo's upsampler refuses), and no more than 16 Mi pixels at
   that scale, are kept; for the others plane[0].pixels stays NULL and declined says why (a
   constant string), and the check runs as without. */
typedef struct {
    /* In: the upright box (EXIF orientation applied) of the largest variant asked; sides >= 1. */
    uint32_t box_width, box_height;
    /* Out, on PF_JPEG_OK: the image at the decode's scale, width x height, as one plane (grey) or
       three (Y, Cb and Cr, or R, G and B), each component at its own size; one block, freed with
       pf_jpeg_keep_free. */
    pf_kept_colour colour;
    pf_plane plane[3];
    uint32_t width, height;
    /* The EXIF orientation, 1 (as stored) to 8. */
    int orientation;
    const char *declined;
} pf_jpeg_keep;

/* max_pixels 0 means no pixel limit; max_scans 0 means no scan limit; keep may be NULL.
   width and height are set once the frame header has been read. */
pf_jpeg_status pf_jpeg_check_file(const char *path, uint64_t max_pixels, int max_scans, pf_jpeg_keep *keep,
                                  uint32_t *width, uint32_t *height,
                                  char *message, size_t message_size);

pf_jpeg_status pf_jpeg_check_memory(const uint8_t *data, size_t size, uint64_t max_pixels, int max_scans, pf_jpeg_keep *keep,
                                    uint32_t *width, uint32_t *height,
                                    char *message, size_t message_size);

void pf_jpeg_keep_free(pf_jpeg_keep *keep);

/* The upright size a variant inside box_width x box_height has, for an image of width x height
   stored with EXIF orientation: the aspect kept (sides rounded, at least 1), never enlarged. */
void pf_jpeg_fit(uint32_t width, uint32_t height, int orientation, uint32_t box_width, uint32_t box_height,
                 uint32_t *fit_width, uint32_t *fit_height);

/* The libjpeg-turbo version prefetchd was built against (LIBJPEG_TURBO_VERSION, a bare token in
   jconfig.h, as a string): the library has no call that tells its version at run time. */
const char *pf_jpeg_turbo_version(void);

#endif
