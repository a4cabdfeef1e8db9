#include "CShimsVariant.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_encode.h"
#include "resample.h"

/* Padded sizes: the encoder reads whole blocks and iMCU rows (at most 16 samples either way). */
static uint32_t pf_padded(uint32_t side) { return (side + 15) / 16 * 16; }

/* EXIF orientation 2..8 undone: target (width x height, upright) sample (x, y) is source sample
   (sx, sy) of the plane as stored. */
static void pf_orient(const pf_plane *source, int orientation, pf_plane *target) {
    uint32_t width = target->width, height = target->height;
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = target->pixels + (size_t)y * target->stride;
        for (uint32_t x = 0; x < width; x++) {
            uint32_t sx, sy;
            switch (orientation) {
            case 2: sx = source->width - 1 - x; sy = y; break;
            case 3: sx = source->width - 1 - x; sy = source->height - 1 - y; break;
            case 4: sx = x; sy = source->height - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = source->height - 1 - x; break;
            case 7: sx = source->width - 1 - y; sy = source->height - 1 - x; break;
            default: sx = source->width - 1 - y; sy = x; break;
            }
            row[x] = source->pixels[(size_t)sy * source->stride + sx];
        }
    }
}

/* The padding of a plane (stride x pf_padded(height)) filled with copies of its last column and row. */
static void pf_fill_edges(pf_plane *plane) {
    for (uint32_t y = 0; y < plane->height; y++) {
        uint8_t *row = plane->pixels + (size_t)y * plane->stride;
        memset(row + plane->width, row[plane->width - 1], plane->stride - plane->width);
    }
    const uint8_t *last = plane->pixels + (size_t)(plane->height - 1) * plane->stride;
    for (uint32_t y = plane->height; y < pf_padded(plane->height); y++) memcpy(plane->pixels + (size_t)y * plane->stride, last, plane->stride);
}

/* Whether the EXIF orientation reverses the stored image's x axis, and its y axis. */
static int pf_reverses_across(int orientation) { return orientation == 2 || orientation == 3 || orientation == 7 || orientation == 8; }
static int pf_reverses_down(int orientation) { return orientation == 3 || orientation == 4 || orientation == 6 || orientation == 7; }

/* One axis of a plane's resampling, in the stored orientation: the kept image is kept samples long
   (its full-size component's), of which the source plane has source_share samples each, and the
   variant variant samples long, of which the target plane has target_share (1, or 1/2 for halved
   chroma). Both grids start at the image's edge, the target's at the far one when the orientation
   reverses the axis, so that it starts at the upright image's edge. */
static pf_span pf_variant_span(uint32_t kept, double source_share, uint32_t variant, double target_share, int reversed) {
    double target_extent = variant * target_share;
    return (pf_span){
        .scale = (double)kept / variant * source_share / target_share,
        .offset = reversed ? ceil(target_extent) - target_extent : 0,
        .extent = kept * source_share,
    };
}

/* The variant's planes, each width x height of its own, padded, in one block. */
typedef struct {
    pf_plane plane[3];
    uint8_t *block;
} pf_planes;

static int pf_planes_make(pf_planes *planes, int count, const uint32_t *widths, const uint32_t *heights) {
    size_t offset[3], total = 0;
    for (int c = 0; c < count; c++) {
        planes->plane[c] = (pf_plane){.width = widths[c], .height = heights[c], .stride = pf_padded(widths[c])};
        offset[c] = total;
        total += planes->plane[c].stride * pf_padded(heights[c]);
    }
    planes->block = malloc(total);
    if (planes->block == NULL) return -1;
    for (int c = 0; c < count; c++) planes->plane[c].pixels = planes->block + offset[c];
    return 0;
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
    int count = kept->colour == PF_KEPT_GREY ? 1 : 3;
    int halved = kept->colour == PF_KEPT_YCBCR && pf_jpeg_halves_chroma(quality);
    uint32_t widths[3], heights[3], upright_widths[3], upright_heights[3];
    double share[3];
    for (int c = 0; c < count; c++) {
        int half = halved && c > 0;
        share[c] = half ? 0.5 : 1;
        widths[c] = half ? (stored_width + 1) / 2 : stored_width;
        heights[c] = half ? (stored_height + 1) / 2 : stored_height;
        upright_widths[c] = turned ? heights[c] : widths[c];
        upright_heights[c] = turned ? widths[c] : heights[c];
    }
    pf_planes stored = {0}, upright = {0};
    pf_variant_status status = PF_VARIANT_FAILED;
    if (pf_planes_make(&stored, count, widths, heights) != 0
        || (kept->orientation != 1 && pf_planes_make(&upright, count, upright_widths, upright_heights) != 0)) {
        snprintf(message, message_size, "out of memory for a %ux%u variant", width, height);
        goto done;
    }
    for (int c = 0; c < count; c++) {
        const pf_plane *from = &kept->plane[c];
        pf_plane *to = &stored.plane[c];
        pf_span across = pf_variant_span(kept->width, from->across, stored_width, share[c], pf_reverses_across(kept->orientation));
        pf_span down = pf_variant_span(kept->height, from->down, stored_height, share[c], pf_reverses_down(kept->orientation));
        if (pf_resample(from->pixels, from->stride, from->width, from->height, to->pixels, to->stride, to->width, to->height, across, down) != 0) {
            snprintf(message, message_size, "out of memory for a %ux%u variant", width, height);
            goto done;
        }
        if (kept->orientation != 1) {
            pf_orient(to, kept->orientation, &upright.plane[c]);
            to = &upright.plane[c];
        }
        pf_fill_edges(to);
    }
    const pf_plane *planes = kept->orientation != 1 ? upright.plane : stored.plane;
    if (pf_jpeg_encode(planes, kept->colour, width, height, quality, out, out_length, message, message_size) == 0) {
        *out_width = width;
        *out_height = height;
        status = PF_VARIANT_OK;
    }
done:
    free(stored.block);
    free(upright.block);
    return status;
}

void pf_variant_free(uint8_t *buffer) { free(buffer); }
