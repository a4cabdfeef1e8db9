#ifndef PREFETCHD_CAVIF_SHIM_H
#define PREFETCHD_CAVIF_SHIM_H

#include <avif/avif.h>

#include "../CShims/library_declaration.h"

/* libavif, as prefetchd calls it: opened on first use with dlopen (CShims/shim_avif_library.c), not
   linked, so that a process that decodes no AVIF does not load it, nor the AV1 codecs and the
   libraries under them (two dozen), at start. Its types and constants are its own header's; its
   functions are called through the table pf_avif_library returns (each entry of the list: the field
   and its function). */
#define PF_AVIF_FUNCTIONS(X)                                                                          \
    X(version, avifVersion) X(result_to_string, avifResultToString) X(decoder_create, avifDecoderCreate) \
    X(decoder_destroy, avifDecoderDestroy) X(decoder_set_io_memory, avifDecoderSetIOMemory)            \
    X(decoder_parse, avifDecoderParse) X(decoder_next_image, avifDecoderNextImage)                     \
    X(rgb_image_set_defaults, avifRGBImageSetDefaults) X(image_yuv_to_rgb, avifImageYUVToRGB)

PF_LIBRARY_TABLE(pf_avif, PF_AVIF_FUNCTIONS)

#endif
