#ifndef PREFETCHD_CJXL_SHIM_H
#define PREFETCHD_CJXL_SHIM_H

#include <jxl/decode.h>

#include "../CShims/library_declaration.h"

/* libjxl's decoder, as prefetchd calls it: opened on first use with dlopen (CShims/shim_jxl_library.c),
   not linked, so that a process that decodes no JPEG XL does not load it, nor Highway (whose start
   measures the clock's resolution, a tenth of a start's time) and brotli's encoder, at start. Its
   types and constants are its own header's; its functions are called through the table
   pf_jxl_library returns (each entry of the list: the field and its function). */
#define PF_JXL_FUNCTIONS(X)                                                                           \
    X(version, JxlDecoderVersion) X(create, JxlDecoderCreate) X(destroy, JxlDecoderDestroy)           \
    X(subscribe_events, JxlDecoderSubscribeEvents) X(set_input, JxlDecoderSetInput)                   \
    X(process_input, JxlDecoderProcessInput) X(get_basic_info, JxlDecoderGetBasicInfo)                \
    X(set_image_out_callback, JxlDecoderSetImageOutCallback)

PF_LIBRARY_TABLE(pf_jxl, PF_JXL_FUNCTIONS)

#endif
