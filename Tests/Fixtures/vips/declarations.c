/* Sources/CVips/shim.h against libvips' and GLib's own headers (libvips-dev): every constant it
   declares has libvips' value, and every function's real type can be stored in the table's field
   with no conversion. Compiled, not run, by VipsLoadingTests: clang -fsyntax-only -Wall -Werror
   $(pkg-config --cflags vips) -I Sources/CVips Tests/Fixtures/vips/declarations.c */
#include <vips/vips.h>
#include <vips/vector.h>

#include "shim.h"

_Static_assert(PF_VIPS_SIZE_DOWN == (int)VIPS_SIZE_DOWN, "VIPS_SIZE_DOWN");
_Static_assert(PF_VIPS_INTERESTING_NONE == (int)VIPS_INTERESTING_NONE, "VIPS_INTERESTING_NONE");
_Static_assert(PF_VIPS_INTERESTING_CENTRE == (int)VIPS_INTERESTING_CENTRE, "VIPS_INTERESTING_CENTRE");
_Static_assert(PF_VIPS_FAIL_ON_ERROR == (int)VIPS_FAIL_ON_ERROR, "VIPS_FAIL_ON_ERROR");
_Static_assert(PF_VIPS_FORMAT_UCHAR == (int)VIPS_FORMAT_UCHAR, "VIPS_FORMAT_UCHAR");
_Static_assert(PF_G_LOG_LEVEL_WARNING == (int)G_LOG_LEVEL_WARNING, "G_LOG_LEVEL_WARNING");
_Static_assert(PF_G_LOG_LEVEL_MESSAGE == (int)G_LOG_LEVEL_MESSAGE, "G_LOG_LEVEL_MESSAGE");
_Static_assert(PF_G_LOG_LEVEL_INFO == (int)G_LOG_LEVEL_INFO, "G_LOG_LEVEL_INFO");
void check(struct pf_vips *t) {
    t->init = vips_init; t->version_string = vips_version_string; t->error_buffer = vips_error_buffer;
    t->error_clear = vips_error_clear; t->vector_set_enabled = vips_vector_set_enabled;
    t->concurrency_set = vips_concurrency_set; t->cache_set_max = vips_cache_set_max;
    t->cache_set_max_mem = vips_cache_set_max_mem; t->cache_set_max_files = vips_cache_set_max_files;
    t->thumbnail_buffer = vips_thumbnail_buffer; t->thumbnail_image = vips_thumbnail_image;
    t->image_new_from_buffer = vips_image_new_from_buffer; t->image_get_typeof = vips_image_get_typeof;
    t->image_new_from_memory = vips_image_new_from_memory; t->image_set_blob_copy = vips_image_set_blob_copy;
    t->image_get_fields = vips_image_get_fields; t->image_remove = vips_image_remove;
    t->icc_transform = vips_icc_transform; t->image_hasalpha = vips_image_hasalpha;
    t->array_double_new = vips_array_double_new; t->area_unref = vips_area_unref; t->flatten = vips_flatten;
    t->jpegsave_buffer = vips_jpegsave_buffer; t->pngsave_buffer = vips_pngsave_buffer; t->webpsave_buffer = vips_webpsave_buffer;
    t->image_get_width = vips_image_get_width; t->image_get_height = vips_image_get_height;
    t->g_log_set_handler = g_log_set_handler; t->g_object_unref = g_object_unref; t->g_free = g_free; t->g_strfreev = g_strfreev;
}
