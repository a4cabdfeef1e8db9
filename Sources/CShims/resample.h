#ifndef PREFETCHD_RESAMPLE_H
#define PREFETCHD_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* How one axis of a resampling maps: target sample o covers [o - offset, o + 1 - offset) in target
   units, scale source units each, clipped to the source's own extent [0, extent) (its last sample
   partial when extent is not whole, as a 4:2:0 chroma plane of an odd width has it). offset is 0,
   or 1/2 for a halved chroma plane whose grid is anchored at the far end (an axis the EXIF
   orientation reverses, of an odd length). */
typedef struct {
    double scale, offset, extent;
} pf_span;

/* Area averaging of one component of 8-bit samples from source_width x source_height (rows
   source_stride bytes apart) to target_width x target_height (rows target_stride apart), each axis
   mapped by its span: each output sample is the mean of the source area it covers, source samples
   weighted by their overlap with it. To a larger size (a chroma plane kept at half size, wanted
   whole) the same rule gives each output sample the source sample under it, blended with its
   neighbour where it straddles two. Separable: a vertical pass into rows of floats, then a
   horizontal one eight rows at once (8 x 8 transposes in and out), weights computed once per axis;
   only the source's own width x height samples are read. Returns 0, or -1 when memory runs out. */
int pf_resample(const uint8_t *source, size_t source_stride, uint32_t source_width, uint32_t source_height,
                uint8_t *target, size_t target_stride, uint32_t target_width, uint32_t target_height,
                pf_span across, pf_span down);

#endif
