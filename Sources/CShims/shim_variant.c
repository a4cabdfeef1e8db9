#include "CShimsVariant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_encode.h"
#include "resample.h"

/* EXIF orientation 2..8 undone: target (width x height, upright) pixel (x, y) is source pixel
   (sx, sy) of the source as stored. */
static void pf_orient(const uint8_t *source, uint32_t source_width, uint32_t source_height, int components, int orientation,
                      uint8_t *target, uint32_t width, uint32_t height) {
    for (uint32_t y = 0; y < height; y++) {
        for (uint32_t x = 0; x < width; x++) {
            uint32_t sx, sy;
            switch (orientation) {
            case 2: sx = source_width - 1 - x; sy = y; break;
            case 3: sx = source_width - 1 - x; sy = source_height - 1 - y; break;
            case 4: sx = x; sy = source_height - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = source_height - 1 - x; break;
            case 7: sx = source_width - 1 - y; sy = source_height - 1 - x; break;
            default: sx = source_width - 1 - y; sy = x; break;
            }
            memcpy(target + ((size_t)y * width + x) * components, source + ((size_t)sy * source_width + sx) * components, (size_t)components);
        }
    }
}

pf_variant_status pf_variant_jpeg(const pf_jpeg_keep *kept, uint32_t image_width, uint32_t image_height,
                                  uint32_t box_width, uint32_t box_height, int quality,
                                  uint8_t **out, size_t *out_length, uint32_t *out_width, uint32_t *out_height,
                                  char *message, size_t message_size) {
    uint32_t width, height;
    pf_jpeg_fit(image_width, image_height, kept->orientation, box_width, box_height, &width, &height);
    int turned = kept->orientation >= 5;
    uint32_t stored_width = turned ? height : width, stored_height = turned ? width : height;
    if (stored_width > kept->width || stored_height > kept->height) return PF_VARIANT_TOO_SMALL;
    int components = kept->components;
    size_t size = (size_t)width * height * (size_t)components;
    uint8_t *resampled = NULL, *oriented = NULL;
    const uint8_t *pixels = kept->pixels;
    pf_variant_status status = PF_VARIANT_FAILED;
    if (stored_width != kept->width || stored_height != kept->height) {
        resampled = malloc(size);
        if (resampled == NULL || pf_resample(kept->pixels, kept->width, kept->height, components, resampled, stored_width, stored_height) != 0) {
            snprintf(message, message_size, "out of memory for a %ux%u variant", width, height);
            goto done;
        }
        pixels = resampled;
    }
    if (kept->orientation != 1) {
        oriented = malloc(size);
        if (oriented == NULL) {
            snprintf(message, message_size, "out of memory for a %ux%u variant", width, height);
            goto done;
        }
        pf_orient(pixels, stored_width, stored_height, components, kept->orientation, oriented, width, height);
        pixels = oriented;
    }
    if (pf_jpeg_encode(pixels, width, height, components, quality, out, out_length, message, message_size) == 0) {
        *out_width = width;
        *out_height = height;
        status = PF_VARIANT_OK;
    }
done:
    free(resampled);
    free(oriented);
    return status;
}

void pf_variant_free(uint8_t *buffer) { free(buffer); }
