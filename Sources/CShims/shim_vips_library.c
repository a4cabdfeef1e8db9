#include "vips_library.h"
#include "library_table.h"

/* Each field of the table with the symbol it is filled from. */
#define PF_VIPS_SYMBOLS(X)                                                                           \
    X(init, vips_init) X(version_string, vips_version_string) X(error_buffer, vips_error_buffer)     \
    X(error_clear, vips_error_clear) X(vector_set_enabled, vips_vector_set_enabled)                  \
    X(concurrency_set, vips_concurrency_set) X(cache_set_max, vips_cache_set_max)                    \
    X(cache_set_max_mem, vips_cache_set_max_mem) X(cache_set_max_files, vips_cache_set_max_files)    \
    X(thumbnail_buffer, vips_thumbnail_buffer) X(thumbnail_image, vips_thumbnail_image)              \
    X(image_new_from_buffer, vips_image_new_from_buffer) X(image_get_typeof, vips_image_get_typeof)  \
    X(image_new_from_memory, vips_image_new_from_memory)                                             \
    X(image_set_blob_copy, vips_image_set_blob_copy)                                                 \
    X(image_get_fields, vips_image_get_fields) X(image_remove, vips_image_remove)                    \
    X(icc_transform, vips_icc_transform) X(image_hasalpha, vips_image_hasalpha)                      \
    X(array_double_new, vips_array_double_new) X(area_unref, vips_area_unref)                        \
    X(flatten, vips_flatten) X(jpegsave_buffer, vips_jpegsave_buffer)                                \
    X(pngsave_buffer, vips_pngsave_buffer) X(webpsave_buffer, vips_webpsave_buffer)                  \
    X(image_get_width, vips_image_get_width) X(image_get_height, vips_image_get_height)              \
    X(g_log_set_handler, g_log_set_handler) X(g_object_unref, g_object_unref) X(g_free, g_free)  \
    X(g_strfreev, g_strfreev)

/* GLib's functions are found through libvips' handle, which reaches the libraries it needs. */
PF_LIBRARY_DEFINITION(pf_vips, "libvips.so.42", PF_VIPS_SYMBOLS)
