#ifndef PREFETCHD_JPEG_ENCODE_H
#define PREFETCHD_JPEG_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* libjpeg-turbo's encoder over rows of width * components bytes (4: RGBX, 1: grey) at quality
   1..100: baseline, Huffman tables not optimised, chroma halved both ways below quality 90 and kept
   whole from it (as libvips' jpegsave does), no metadata. Returns 0 with a buffer to free(), or -1
   with libjpeg's message. */
int pf_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality,
                   uint8_t **out, size_t *out_length, char *message, size_t message_size);

#endif
