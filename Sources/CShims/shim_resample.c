#include "resample.h"

#include <math.h>
#include <stdlib.h>

/* The two loops over whole rows also in an AVX2 build, picked at load time where the CPU has it. */
#if defined(__x86_64__)
#define PF_WIDE __attribute__((target_clones("avx2", "default")))
#else
#define PF_WIDE
#endif

typedef float pf_pixel __attribute__((vector_size(16)));

/* One axis's weights: output o reads taps source pixels from start[o]. */
typedef struct {
    int taps;
    uint32_t *start;
    float *weights;
} pf_axis;

static void pf_axis_free(pf_axis *axis) {
    free(axis->start);
    free(axis->weights);
}

/* Output o covers source [o * scale, (o + 1) * scale); a pixel weighs its overlap over scale. */
static int pf_axis_make(pf_axis *axis, uint32_t source, uint32_t target) {
    double scale = (double)source / target;
    int taps = (int)ceil(scale) + 1;
    if ((uint32_t)taps > source) taps = (int)source;
    axis->taps = taps;
    axis->start = malloc(sizeof *axis->start * target);
    axis->weights = calloc((size_t)target * (size_t)taps, sizeof *axis->weights);
    if (axis->start == NULL || axis->weights == NULL) return -1;
    for (uint32_t o = 0; o < target; o++) {
        double low = o * scale, high = (o + 1) * scale;
        uint32_t first = (uint32_t)low;
        if (first > source - (uint32_t)taps) first = source - (uint32_t)taps;
        axis->start[o] = first;
        for (int k = 0; k < taps; k++) {
            double from = first + k, to = from + 1;
            double overlap = (to < high ? to : high) - (from > low ? from : low);
            axis->weights[(size_t)o * taps + k] = overlap > 0 ? (float)(overlap / scale) : 0;
        }
    }
    return 0;
}

/* A row of floats to bytes, rounded and clamped (vectorised by the compiler). */
PF_WIDE static void pf_bytes(const float *row, size_t count, uint8_t *out) {
    for (size_t i = 0; i < count; i++) out[i] = (uint8_t)(int)(fminf(fmaxf(row[i], 0.0f), 255.0f) + 0.5f);
}

/* The source rows output row y covers, weighted, summed into row (vectorised by the compiler). */
PF_WIDE static void pf_vertical(const uint8_t *source, size_t stride, const pf_axis *axis, uint32_t y, float *row) {
    const float *weights = axis->weights + (size_t)y * axis->taps;
    const uint8_t *first = source + (size_t)axis->start[y] * stride;
    for (size_t i = 0; i < stride; i++) row[i] = weights[0] * first[i];
    for (int k = 1; k < axis->taps; k++) {
        const uint8_t *line = first + (size_t)k * stride;
        float weight = weights[k];
        if (weight == 0) continue;
        for (size_t i = 0; i < stride; i++) row[i] += weight * line[i];
    }
}

/* Output row y's pixels across, as floats; RGBX moves one pixel (four floats) a step. taps is
   the axis's own, passed so that the common counts get loops of a fixed length. */
static inline __attribute__((always_inline)) void pf_across(const pf_pixel *pixels, const pf_axis *axis, int taps, uint32_t width,
                                                            pf_pixel *sums) {
    for (uint32_t x = 0; x < width; x++) {
        const float *weights = axis->weights + (size_t)x * taps;
        const pf_pixel *from = pixels + axis->start[x];
        pf_pixel sum = from[0] * weights[0];
        for (int k = 1; k < taps; k++) sum += from[k] * weights[k];
        sums[x] = sum;
    }
}

static void pf_horizontal_rgbx(const float *row, const pf_axis *axis, uint32_t width, float *out) {
    const pf_pixel *pixels = (const pf_pixel *)row;
    pf_pixel *sums = (pf_pixel *)out;
    switch (axis->taps) {
    case 2: pf_across(pixels, axis, 2, width, sums); break;
    case 3: pf_across(pixels, axis, 3, width, sums); break;
    case 4: pf_across(pixels, axis, 4, width, sums); break;
    default: pf_across(pixels, axis, axis->taps, width, sums); break;
    }
}

static void pf_horizontal_grey(const float *row, const pf_axis *axis, uint32_t width, float *out) {
    for (uint32_t x = 0; x < width; x++) {
        const float *weights = axis->weights + (size_t)x * axis->taps;
        const float *from = row + axis->start[x];
        float sum = 0;
        for (int k = 0; k < axis->taps; k++) sum += from[k] * weights[k];
        out[x] = sum;
    }
}

static float *pf_floats(size_t count) {
    size_t unit = sizeof(pf_pixel) / sizeof(float);
    return aligned_alloc(sizeof(pf_pixel), (count + unit - 1) / unit * sizeof(pf_pixel));
}

int pf_resample(const uint8_t *source, uint32_t source_width, uint32_t source_height, int components,
                uint8_t *target, uint32_t target_width, uint32_t target_height) {
    pf_axis across = {0}, down = {0};
    size_t stride = (size_t)source_width * (size_t)components, target_stride = (size_t)target_width * (size_t)components;
    float *row = pf_floats(stride), *sums = pf_floats(target_stride);
    int status = -1;
    if (row != NULL && sums != NULL && pf_axis_make(&across, source_width, target_width) == 0
        && pf_axis_make(&down, source_height, target_height) == 0) {
        for (uint32_t y = 0; y < target_height; y++) {
            pf_vertical(source, stride, &down, y, row);
            if (components == 4) pf_horizontal_rgbx(row, &across, target_width, sums);
            else pf_horizontal_grey(row, &across, target_width, sums);
            pf_bytes(sums, target_stride, target + (size_t)y * target_stride);
        }
        status = 0;
    }
    pf_axis_free(&across);
    pf_axis_free(&down);
    free(row);
    free(sums);
    return status;
}
