#ifndef CSHIMS_VIPS_H
#define CSHIMS_VIPS_H
#include <stddef.h>

/// Output formats of shim_vips_variant.
enum { SHIM_VIPS_JPEG = 0, SHIM_VIPS_PNG = 1, SHIM_VIPS_WEBP = 2 };

/// Opens libvips (libvips.so.42, with dlopen: prefetchd does not link it) and starts it, once per
/// process: one worker thread per pipeline (the caller's pool bounds how many run), no operation
/// cache. Returns 0, or -1 with libvips' message or, when it cannot be opened, "libvips is not
/// loadable: " and the loader's.
int shim_vips_start(char *message, size_t message_size);

/// Makes one variant of an encoded image: libvips' thumbnail (with shrink_on_load, the loader's own
/// reduction while decoding: a JPEG's DCT scaling; else the image decoded whole; EXIF orientation
/// applied, Lanczos3 reduce, never larger than the original), fitting inside width x height or, with
/// cover, filling it and cropping the centre; alpha flattened onto white for JPEG; encoded at quality
/// (JPEG, WebP) with metadata stripped. On success returns 0 and a buffer to free with shim_vips_free;
/// -1 when the image could not be made into the variant, -2 when libvips could not be started (the
/// message says why, as shim_vips_start's).
int shim_vips_variant(const void *data, size_t length, int shrink_on_load, int width, int height, int cover, int format, int quality,
                      void **out, size_t *out_length, int *out_width, int *out_height,
                      char *message, size_t message_size);

/// The same, of an image already decoded: pixel_width x pixel_height pixels of bands 8-bit samples
/// each (1 grey, 2 grey and alpha, 3 sRGB, 4 sRGB and alpha), rows packed, read in place for the
/// call; icc, when not NULL, the image's colour profile (converted to sRGB as an embedded one is).
int shim_vips_variant_pixels(const void *pixels, int pixel_width, int pixel_height, int bands, const void *icc, size_t icc_length,
                             int width, int height, int cover, int format, int quality,
                             void **out, size_t *out_length, int *out_width, int *out_height,
                             char *message, size_t message_size);

void shim_vips_free(void *buffer);

/// libvips' version string (vips_version_string), opening libvips without starting it; NULL, with
/// the loader's reason in message, when it cannot be opened.
const char *shim_vips_version(char *message, size_t message_size);

#endif
