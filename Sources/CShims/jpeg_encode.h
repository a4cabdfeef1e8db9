#ifndef PREFETCHD_JPEG_ENCODE_H
#define PREFETCHD_JPEG_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "CShimsJPEG.h"

/* Whether a JPEG variant at quality has its chroma halved both ways (4:2:0): below quality 90, as
   libvips' jpegsave does; from 90 it is kept whole. */
static inline int pf_jpeg_halves_chroma(int quality) { return quality < 90; }

/* libjpeg-turbo's encoder at quality 1..100 over planes of a width x height image: grey (one
   plane) or Y, Cb and Cr (three, the chroma at half size each way when pf_jpeg_halves_chroma
   says so), given to it as raw data, each plane's rows and columns filled with edge copies up to
   the next multiple of 16; or R, G and B (three whole planes), which it converts. Baseline,
   Huffman tables not optimised, no metadata. Returns 0 with a buffer to free(), or -1 with
   libjpeg's message. */
int pf_jpeg_encode(const pf_plane *planes, pf_kept_colour colour, uint32_t width, uint32_t height, int quality,
                   uint8_t **out, size_t *out_length, char *message, size_t message_size);

#endif
