#include "resample.h"

#include <math.h>
#include <stdlib.h>

/* The two loops over whole rows also in an AVX2 build, picked at load time where the CPU has it. */
#if defined(__x86_64__)
#define PF_WIDE __attribute__((target_clones("avx2", "default")))
#else
#define PF_WIDE
#endif

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
PF_WIDE static void pf_vertical(const uint8_t *source, size_t stride, uint32_t width, const pf_axis *axis, uint32_t y, float *row) {
    const float *weights = axis->weights + (size_t)y * axis->taps;
    const uint8_t *first = source + (size_t)axis->start[y] * stride;
    for (uint32_t i = 0; i < width; i++) row[i] = weights[0] * first[i];
    for (int k = 1; k < axis->taps; k++) {
        const uint8_t *line = first + (size_t)k * stride;
        float weight = weights[k];
        if (weight == 0) continue;
        for (uint32_t i = 0; i < width; i++) row[i] += weight * line[i];
    }
}

/* Output row y's samples across. taps is the axis's own, passed so that the common counts get
   loops of a fixed length. */
static inline __attribute__((always_inline)) void pf_across(const float *row, const pf_axis *axis, int taps, uint32_t width,
                                                            float *sums) {
    for (uint32_t x = 0; x < width; x++) {
        const float *weights = axis->weights + (size_t)x * taps;
        const float *from = row + axis->start[x];
        float sum = from[0] * weights[0];
        for (int k = 1; k < taps; k++) sum += from[k] * weights[k];
        sums[x] = sum;
    }
}

static void pf_horizontal(const float *row, const pf_axis *axis, uint32_t width, float *out) {
    switch (axis->taps) {
    case 2: pf_across(row, axis, 2, width, out); break;
    case 3: pf_across(row, axis, 3, width, out); break;
    case 4: pf_across(row, axis, 4, width, out); break;
    case 5: pf_across(row, axis, 5, width, out); break;
    default: pf_across(row, axis, axis->taps, width, out); break;
    }
}

/* count floats, 32-byte aligned for the wide loops (aligned_alloc wants a multiple of it). */
static float *pf_floats(size_t count) {
    return aligned_alloc(32, (count * sizeof(float) + 31) / 32 * 32);
}

int pf_resample(const uint8_t *source, size_t source_stride, uint32_t source_width, uint32_t source_height,
                uint8_t *target, size_t target_stride, uint32_t target_width, uint32_t target_height) {
    pf_axis across = {0}, down = {0};
    float *row = pf_floats(source_width), *sums = pf_floats(target_width);
    int status = -1;
    if (row != NULL && sums != NULL && pf_axis_make(&across, source_width, target_width) == 0
        && pf_axis_make(&down, source_height, target_height) == 0) {
        for (uint32_t y = 0; y < target_height; y++) {
            pf_vertical(source, source_stride, source_width, &down, y, row);
            pf_horizontal(row, &across, target_width, sums);
            pf_bytes(sums, target_width, target + (size_t)y * target_stride);
        }
        status = 0;
    }
    pf_axis_free(&across);
    pf_axis_free(&down);
    free(row);
    free(sums);
    return status;
}
