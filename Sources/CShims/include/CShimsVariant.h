#ifndef PREFETCHD_SHIMS_VARIANT_H
#define PREFETCHD_SHIMS_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "CShimsJPEG.h"

typedef enum {
    PF_VARIANT_OK = 0,
    /* The kept pixels are smaller than the variant: they were kept for a smaller box. */
    PF_VARIANT_TOO_SMALL,
    PF_VARIANT_FAILED,
} pf_variant_status;

/* A JPEG variant, inside box_width x box_height (upright), of an image_width x image_height JPEG
   whose check kept its planes: each component area-averaged from its kept plane straight to its
   size in the variant (pf_jpeg_fit's size, the chroma of a YCbCr variant at half of it each way
   when pf_jpeg_halves_chroma says so, its grid starting at the upright image's edge), on the
   values as decoded (sRGB, or YCbCr, a linear mix of them); the EXIF orientation applied to the
   small planes; encoded by libjpeg-turbo at quality, a YCbCr or grey variant from the planes as
   they are (raw data), an RGB one converted by the encoder. On PF_VARIANT_OK, *out is a buffer to
   free with pf_variant_free; on PF_VARIANT_FAILED, message says why. */
pf_variant_status pf_variant_jpeg(const pf_jpeg_keep *kept, uint32_t image_width, uint32_t image_height,
                                  uint32_t box_width, uint32_t box_height, int quality,
                                  uint8_t **out, size_t *out_length, uint32_t *out_width, uint32_t *out_height,
                                  char *message, size_t message_size);

void pf_variant_free(uint8_t *buffer);

#endif
