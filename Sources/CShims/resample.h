#ifndef PREFETCHD_RESAMPLE_H
#define PREFETCHD_RESAMPLE_H

#include <stdint.h>

/* Area averaging of 8-bit pixels of components 1 or 4 (RGBX: the fourth is averaged like the others) from
   source_width x source_height to a size no larger either way: each output pixel is the mean of the
   source area it covers, source pixels weighted by their overlap with it. Separable: a vertical
   pass into a row of floats, then a horizontal one, weights computed once per axis. Returns 0, or
   -1 when memory runs out. */
int pf_resample(const uint8_t *source, uint32_t source_width, uint32_t source_height, int components,
                uint8_t *target, uint32_t target_width, uint32_t target_height);

#endif
