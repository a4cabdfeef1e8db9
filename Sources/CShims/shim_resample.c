#include "resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The vertical and horizontal passes also in an AVX2 build, picked at load time where the CPU has it. */
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

/* Output o covers [o - offset, o + 1 - offset) target units, scale source units each, within
   [0, extent); a source sample weighs its overlap with that over the length covered. */
static int pf_axis_make(pf_axis *axis, uint32_t source, uint32_t target, pf_span span) {
    int taps = (int)ceil(span.scale) + 1;
    if ((uint32_t)taps > source) taps = (int)source;
    axis->taps = taps;
    axis->start = malloc(sizeof *axis->start * target);
    axis->weights = calloc((size_t)target * (size_t)taps, sizeof *axis->weights);
    if (axis->start == NULL || axis->weights == NULL) return -1;
    for (uint32_t o = 0; o < target; o++) {
        double low = fmax(0, o - span.offset) * span.scale, high = fmin((o + 1 - span.offset) * span.scale, span.extent);
        uint32_t first = (uint32_t)low;
        if (first > source - (uint32_t)taps) first = source - (uint32_t)taps;
        axis->start[o] = first;
        for (int k = 0; k < taps; k++) {
            double from = first + k, to = from + 1;
            double overlap = (to < high ? to : high) - (from > low ? from : low);
            axis->weights[(size_t)o * taps + k] = overlap > 0 ? (float)(overlap / (high - low)) : 0;
        }
    }
    return 0;
}

/* A row of floats to bytes, rounded and clamped (vectorised by the compiler). */
PF_WIDE static void pf_bytes(const float *row, size_t count, uint8_t *out) {
    for (size_t i = 0; i < count; i++) out[i] = (uint8_t)(int)(fminf(fmaxf(row[i], 0.0f), 255.0f) + 0.5f);
}

/* Eight output rows' values of one source or output column: the horizontal pass runs on eight
   rows at once, a vector a column, instead of on one row's scattered floats. */
#define PF_LANES 8
typedef float pf_lanes __attribute__((vector_size(PF_LANES * sizeof(float))));

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

/* An 8 x 8 block of floats transposed: out[i][j] = in[j][i] (unpacks, shuffles and a swap of
   halves, as an AVX transpose is written). */
static inline __attribute__((always_inline)) void pf_transpose(const pf_lanes *in, pf_lanes *out) {
    pf_lanes t[8], u[8];
    for (int j = 0; j < 8; j += 2) {
        t[j] = __builtin_shufflevector(in[j], in[j + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[j + 1] = __builtin_shufflevector(in[j], in[j + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int j = 0; j < 8; j += 4) {
        u[j] = __builtin_shufflevector(t[j], t[j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[j + 1] = __builtin_shufflevector(t[j], t[j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        u[j + 2] = __builtin_shufflevector(t[j + 1], t[j + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        u[j + 3] = __builtin_shufflevector(t[j + 1], t[j + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    for (int j = 0; j < 4; j++) {
        out[j] = __builtin_shufflevector(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        out[j + 4] = __builtin_shufflevector(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* Eight rows of count vectors (rows[j] row j, row_vectors apart) to count * 8 columns, or back. */
PF_WIDE static void pf_transpose_rows(pf_lanes *rows, size_t row_vectors, size_t count, pf_lanes *columns, int back) {
    for (size_t block = 0; block < count; block++) {
        pf_lanes in[8], out[8];
        for (int j = 0; j < 8; j++) in[j] = back ? columns[block * 8 + j] : rows[j * row_vectors + block];
        pf_transpose(in, out);
        for (int j = 0; j < 8; j++) {
            if (back) rows[j * row_vectors + block] = out[j];
            else columns[block * 8 + j] = out[j];
        }
    }
}

/* The output columns across, eight rows at once. taps is the axis's own, passed so that the common
   counts get loops of a fixed length. */
static inline __attribute__((always_inline)) void pf_across(const pf_lanes *columns, const pf_axis *axis, int taps, uint32_t width,
                                                            pf_lanes *sums) {
    for (uint32_t x = 0; x < width; x++) {
        const float *weights = axis->weights + (size_t)x * taps;
        const pf_lanes *from = columns + axis->start[x];
        pf_lanes sum = from[0] * weights[0];
        for (int k = 1; k < taps; k++) sum += from[k] * weights[k];
        sums[x] = sum;
    }
}

PF_WIDE static void pf_horizontal(const pf_lanes *columns, const pf_axis *axis, uint32_t width, pf_lanes *sums) {
    switch (axis->taps) {
    case 2: pf_across(columns, axis, 2, width, sums); break;
    case 3: pf_across(columns, axis, 3, width, sums); break;
    case 4: pf_across(columns, axis, 4, width, sums); break;
    case 5: pf_across(columns, axis, 5, width, sums); break;
    default: pf_across(columns, axis, axis->taps, width, sums); break;
    }
}

/* count vectors of lanes, or NULL. Left as they come: a lane or column no row fills (past the
   width, or past the last row) is carried through the sums but never stored. */
static pf_lanes *pf_lanes_make(size_t count) { return aligned_alloc(sizeof(pf_lanes), count * sizeof(pf_lanes)); }

/* Vectors of PF_LANES floats that hold count of them. */
static size_t pf_vectors(uint32_t count) { return ((size_t)count + PF_LANES - 1) / PF_LANES; }

int pf_resample(const uint8_t *source, size_t source_stride, uint32_t source_width, uint32_t source_height,
                uint8_t *target, size_t target_stride, uint32_t target_width, uint32_t target_height,
                pf_span across_span, pf_span down_span) {
    pf_axis across = {0}, down = {0};
    size_t source_vectors = pf_vectors(source_width), target_vectors = pf_vectors(target_width);
    /* Eight rows of the vertical pass, their columns, the columns' sums across and their rows. */
    pf_lanes *rows = pf_lanes_make(PF_LANES * source_vectors), *columns = pf_lanes_make(source_vectors * PF_LANES);
    pf_lanes *sums = pf_lanes_make(target_vectors * PF_LANES), *sum_rows = pf_lanes_make(PF_LANES * target_vectors);
    int status = -1;
    if (rows != NULL && columns != NULL && sums != NULL && sum_rows != NULL && pf_axis_make(&across, source_width, target_width, across_span) == 0
        && pf_axis_make(&down, source_height, target_height, down_span) == 0) {
        for (uint32_t y = 0; y < target_height; y += PF_LANES) {
            int lanes = target_height - y < PF_LANES ? (int)(target_height - y) : PF_LANES;
            /* Rows no output takes, zeroed so that no stray bits (a denormal, say) slow the sums. */
            if (lanes < PF_LANES) memset(rows + lanes * source_vectors, 0, (PF_LANES - lanes) * source_vectors * sizeof(pf_lanes));
            for (int lane = 0; lane < lanes; lane++) {
                pf_vertical(source, source_stride, source_width, &down, y + lane, (float *)(rows + lane * source_vectors));
            }
            pf_transpose_rows(rows, source_vectors, source_vectors, columns, 0);
            pf_horizontal(columns, &across, target_width, sums);
            pf_transpose_rows(sum_rows, target_vectors, target_vectors, sums, 1);
            for (int lane = 0; lane < lanes; lane++) {
                pf_bytes((const float *)(sum_rows + lane * target_vectors), target_width, target + (size_t)(y + lane) * target_stride);
            }
        }
        status = 0;
    }
    pf_axis_free(&across);
    pf_axis_free(&down);
    free(rows);
    free(columns);
    free(sums);
    free(sum_rows);
    return status;
}
