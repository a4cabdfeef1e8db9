#include "vips_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t opened = PTHREAD_ONCE_INIT;
static struct pf_vips library;
static const struct pf_vips *loaded;
static char failure[384];

/* Each field of the table with the symbol it is filled from. */
#define PF_VIPS_SYMBOLS(X)                                                                          \
    X(init, "vips_init") X(version_string, "vips_version_string") X(error_buffer, "vips_error_buffer") \
    X(error_clear, "vips_error_clear") X(vector_set_enabled, "vips_vector_set_enabled")              \
    X(concurrency_set, "vips_concurrency_set") X(cache_set_max, "vips_cache_set_max")                \
    X(cache_set_max_mem, "vips_cache_set_max_mem") X(cache_set_max_files, "vips_cache_set_max_files") \
    X(thumbnail_buffer, "vips_thumbnail_buffer") X(thumbnail_image, "vips_thumbnail_image")          \
    X(image_new_from_buffer, "vips_image_new_from_buffer") X(image_get_typeof, "vips_image_get_typeof") \
    X(icc_transform, "vips_icc_transform") X(image_hasalpha, "vips_image_hasalpha")                  \
    X(array_double_new, "vips_array_double_new") X(area_unref, "vips_area_unref")                    \
    X(flatten, "vips_flatten") X(jpegsave_buffer, "vips_jpegsave_buffer")                            \
    X(pngsave_buffer, "vips_pngsave_buffer") X(webpsave_buffer, "vips_webpsave_buffer")              \
    X(image_get_width, "vips_image_get_width") X(image_get_height, "vips_image_get_height")          \
    X(g_log_set_handler, "g_log_set_handler") X(g_object_unref, "g_object_unref") X(g_free, "g_free")

static void open_library(void) {
    // RTLD_LOCAL: libvips' symbols (and GLib's) stay out of the process's global scope.
    void *handle = dlopen("libvips.so.42", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
    void *symbol;
#define PF_VIPS_FIND(field, name)                                                           \
    if ((symbol = dlsym(handle, name)) == NULL) {                                           \
        snprintf(failure, sizeof failure, "%s", dlerror());           \
        return;                                                                             \
    }                                                                                       \
    *(void **)&library.field = symbol;
    PF_VIPS_SYMBOLS(PF_VIPS_FIND)
#undef PF_VIPS_FIND
    loaded = &library;
}

const struct pf_vips *pf_vips_library(char *message, size_t message_size) {
    pthread_once(&opened, open_library);
    if (loaded == NULL) snprintf(message, message_size, "%s", failure);
    return loaded;
}
