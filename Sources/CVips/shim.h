#ifndef PREFETCHD_CVIPS_SHIM_H
#define PREFETCHD_CVIPS_SHIM_H

#include <stddef.h>

/* libvips, as prefetchd calls it: opened on first use with dlopen (CShims/shim_vips_library.c), not
   linked. The prototypes are libvips 8's, of its soname libvips.so.42 (the ABI they are written
   for), declared here as a table of function pointers, so that building needs no libvips or GLib
   header and puts no libvips on the binary's list of needed libraries. */

/* Opaque here; libvips' own when its headers come first (Tests/Fixtures/vips/declarations.c checks
   these declarations against them). */
#ifndef VIPS_IMAGE_H
typedef struct VipsImage VipsImage;
#endif
#ifndef VIPS_TYPE_H
typedef struct VipsArea VipsArea;
typedef struct VipsArrayDouble VipsArrayDouble;
#endif

/* The enum values used, as libvips 8 and GLib 2 define them. */
enum { PF_VIPS_SIZE_DOWN = 2 };
enum { PF_VIPS_INTERESTING_NONE = 0, PF_VIPS_INTERESTING_CENTRE = 1 };
enum { PF_VIPS_FAIL_ON_ERROR = 2 };
enum { PF_VIPS_FORMAT_UCHAR = 0 };
enum { PF_G_LOG_LEVEL_WARNING = 1 << 4, PF_G_LOG_LEVEL_MESSAGE = 1 << 5, PF_G_LOG_LEVEL_INFO = 1 << 6 };
#define PF_VIPS_META_ICC_NAME "icc-profile-data"

typedef void (*PFLogFunc)(const char *domain, int level, const char *text, void *data);

/* The functions shim_vips.c calls: libvips' own and the GLib ones it needs (found through
   libvips' handle, which reaches the libraries it needs). */
struct pf_vips {
    int (*init)(const char *argv0);
    const char *(*version_string)(void);
    const char *(*error_buffer)(void);
    void (*error_clear)(void);
    void (*vector_set_enabled)(int enabled);
    void (*concurrency_set)(int concurrency);
    void (*cache_set_max)(int max);
    void (*cache_set_max_mem)(size_t max_mem);
    void (*cache_set_max_files)(int max_files);
    int (*thumbnail_buffer)(void *buf, size_t len, VipsImage **out, int width, ...);
    int (*thumbnail_image)(VipsImage *in, VipsImage **out, int width, ...);
    VipsImage *(*image_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
    VipsImage *(*image_new_from_memory)(const void *data, size_t size, int width, int height, int bands, int format);
    void (*image_set_blob_copy)(VipsImage *image, const char *name, const void *data, size_t length);
    char **(*image_get_fields)(VipsImage *image);
    int (*image_remove)(VipsImage *image, const char *name);
    unsigned long (*image_get_typeof)(const VipsImage *image, const char *name);
    int (*icc_transform)(VipsImage *in, VipsImage **out, const char *output_profile, ...);
    int (*image_hasalpha)(VipsImage *image);
    VipsArrayDouble *(*array_double_new)(const double *array, int n);
    void (*area_unref)(VipsArea *area);
    int (*flatten)(VipsImage *in, VipsImage **out, ...);
    int (*jpegsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*pngsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*webpsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*image_get_width)(const VipsImage *image);
    int (*image_get_height)(const VipsImage *image);
    unsigned (*g_log_set_handler)(const char *domain, int levels, PFLogFunc handler, void *data);
    void (*g_object_unref)(void *object);
    void (*g_free)(void *memory);
    void (*g_strfreev)(char **strings);
};

#endif
