#include "CShimsVips.h"
#include "vips_library.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t started = PTHREAD_ONCE_INIT;
static const struct pf_vips *vips;
static int start_status = -1;
static char start_message[384];

static void take_error(char *message, size_t message_size) {
    snprintf(message, message_size, "%s", vips->error_buffer());
    vips->error_clear();
    // libvips ends its messages with a newline.
    size_t length = strlen(message);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == ' ')) message[--length] = 0;
    if (length == 0) snprintf(message, message_size, "libvips gave no reason");
}

/// libvips' warnings (a CRC error, a damaged tile) repeat what the failed call returns.
static void drop_log(const char *domain, int level, const char *text, void *data) {
    (void)domain; (void)level; (void)text; (void)data;
}

static void start(void) {
    char reason[sizeof start_message - 32];
    vips = pf_vips_library(reason, sizeof reason);
    if (vips == NULL) {
        snprintf(start_message, sizeof start_message, "libvips is not loadable: %s", reason);
        return;
    }
    // VIPS_INIT's ABI check is the soname's: libvips.so.42 is the ABI these calls are written for.
    if (vips->init("prefetchd") != 0) {
        take_error(start_message, sizeof start_message);
        return;
    }
    vips->g_log_set_handler("VIPS", PF_G_LOG_LEVEL_WARNING | PF_G_LOG_LEVEL_MESSAGE | PF_G_LOG_LEVEL_INFO, drop_log, NULL);
    // No orc: its generated code crashed one run in six of 2,000 variants made on two workers
    // (SIGSEGV in liborc-0.4 0.4.33, Debian 12) and never with it off.
    vips->vector_set_enabled(0);
    vips->concurrency_set(1);
    vips->cache_set_max(0);
    vips->cache_set_max_mem(0);
    vips->cache_set_max_files(0);
    start_status = 0;
}

int shim_vips_start(char *message, size_t message_size) {
    pthread_once(&started, start);
    if (start_status != 0) snprintf(message, message_size, "%s", start_message);
    return start_status;
}

/// Removes the image's EXIF (the blob and the fields libvips parsed from it, which its savers write
/// back), XMP, IPTC and ICC data: libvips 8.14's WebP saver wrote them whatever "strip" said, GPS
/// position and author included. What is left is the image's own size and resolution.
static void drop_metadata(VipsImage *image) {
    char **fields = vips->image_get_fields(image);
    for (char **field = fields; field != NULL && *field != NULL; field++) {
        if (strncmp(*field, "exif-", 5) == 0 || strcmp(*field, "xmp-data") == 0 || strcmp(*field, "iptc-data") == 0
            || strcmp(*field, PF_VIPS_META_ICC_NAME) == 0) {
            vips->image_remove(image, *field);
        }
    }
    vips->g_strfreev(fields);
}

/// Converts the thumbnail (taken over) to sRGB when it carries a colour profile, flattens its alpha
/// for JPEG, drops its metadata and encodes it.
static int encode(VipsImage *thumbnail, int format, int quality, void **out, size_t *out_length, int *out_width, int *out_height,
                  char *message, size_t message_size) {
    int failed;
    // An embedded colour profile is applied (to sRGB) before the metadata is stripped; images without
    // one are taken as sRGB and left as they are (a conversion through the default profile would
    // shift them).
    if (vips->image_get_typeof(thumbnail, PF_VIPS_META_ICC_NAME) != 0) {
        VipsImage *converted = NULL;
        failed = vips->icc_transform(thumbnail, &converted, "srgb", "embedded", 1, NULL);
        vips->g_object_unref(thumbnail);
        if (failed) {
            take_error(message, message_size);
            return -1;
        }
        thumbnail = converted;
    }
    VipsImage *flat = NULL;
    if (format == SHIM_VIPS_JPEG && vips->image_hasalpha(thumbnail)) {
        double white[] = {255, 255, 255};
        VipsArrayDouble *background = vips->array_double_new(white, 3);
        failed = vips->flatten(thumbnail, &flat, "background", background, NULL);
        vips->area_unref((VipsArea *)background);
        vips->g_object_unref(thumbnail);
        if (failed) {
            take_error(message, message_size);
            return -1;
        }
        thumbnail = flat;
    }
    drop_metadata(thumbnail);
    int status;
    switch (format) {
    case SHIM_VIPS_JPEG:
        status = vips->jpegsave_buffer(thumbnail, out, out_length, "Q", quality, "strip", 1, NULL);
        break;
    case SHIM_VIPS_PNG:
        status = vips->pngsave_buffer(thumbnail, out, out_length, "strip", 1, NULL);
        break;
    default:
        status = vips->webpsave_buffer(thumbnail, out, out_length, "Q", quality, "strip", 1, NULL);
        break;
    }
    *out_width = vips->image_get_width(thumbnail);
    *out_height = vips->image_get_height(thumbnail);
    vips->g_object_unref(thumbnail);
    if (status != 0) {
        take_error(message, message_size);
        return -1;
    }
    return 0;
}

/// Reduces the decoded image to the box (taking it over), then converts, flattens and encodes it:
/// what shim_vips_variant does once the image is loaded.
static int finish(VipsImage *decoded, int width, int height, int crop, int format, int quality,
                  void **out, size_t *out_length, int *out_width, int *out_height, char *message, size_t message_size) {
    VipsImage *thumbnail = NULL;
    int failed = vips->thumbnail_image(decoded, &thumbnail, width, "height", height, "size", PF_VIPS_SIZE_DOWN, "crop", crop, NULL);
    vips->g_object_unref(decoded);
    if (failed) {
        take_error(message, message_size);
        return -1;
    }
    return encode(thumbnail, format, quality, out, out_length, out_width, out_height, message, message_size);
}

int shim_vips_variant(const void *data, size_t length, int shrink_on_load, int width, int height, int cover, int format, int quality,
                      void **out, size_t *out_length, int *out_width, int *out_height,
                      char *message, size_t message_size) {
    if (shim_vips_start(message, message_size) != 0) return -2;
    int crop = cover ? PF_VIPS_INTERESTING_CENTRE : PF_VIPS_INTERESTING_NONE;
    if (!shrink_on_load) {
        // Decoded whole, then reduced: libvips' shrink-on-load for WebP is libwebp's own scaled decode,
        // a coarser filter than the Lanczos3 reduce.
        VipsImage *decoded = vips->image_new_from_buffer(data, length, "", "fail_on", PF_VIPS_FAIL_ON_ERROR, NULL);
        if (decoded == NULL) {
            take_error(message, message_size);
            return -1;
        }
        return finish(decoded, width, height, crop, format, quality, out, out_length, out_width, out_height, message, message_size);
    }
    VipsImage *thumbnail = NULL;
    // fail_on=error: a damaged body is a failure, not a grey half-image.
    if (vips->thumbnail_buffer((void *)data, length, &thumbnail, width, "height", height,
                               "size", PF_VIPS_SIZE_DOWN, "crop", crop, "option_string", "fail_on=error", NULL)) {
        take_error(message, message_size);
        return -1;
    }
    return encode(thumbnail, format, quality, out, out_length, out_width, out_height, message, message_size);
}

int shim_vips_variant_pixels(const void *pixels, int pixel_width, int pixel_height, int bands, const void *icc, size_t icc_length,
                             int width, int height, int cover, int format, int quality,
                             void **out, size_t *out_length, int *out_width, int *out_height,
                             char *message, size_t message_size) {
    if (shim_vips_start(message, message_size) != 0) return -2;
    size_t size = (size_t)pixel_width * (size_t)pixel_height * (size_t)bands;
    VipsImage *decoded = vips->image_new_from_memory(pixels, size, pixel_width, pixel_height, bands, PF_VIPS_FORMAT_UCHAR);
    if (decoded == NULL) {
        take_error(message, message_size);
        return -1;
    }
    if (icc != NULL && icc_length > 0) vips->image_set_blob_copy(decoded, PF_VIPS_META_ICC_NAME, icc, icc_length);
    int crop = cover ? PF_VIPS_INTERESTING_CENTRE : PF_VIPS_INTERESTING_NONE;
    return finish(decoded, width, height, crop, format, quality, out, out_length, out_width, out_height, message, message_size);
}

/// Only ever called on a buffer shim_vips_variant made, so libvips is loaded.
void shim_vips_free(void *buffer) { vips->g_free(buffer); }

/// Opens libvips (without starting it: vips_version_string returns a constant of the library, and
/// VIPS_INIT is not called) and asks its version.
const char *shim_vips_version(char *message, size_t message_size) {
    const struct pf_vips *library = pf_vips_library(message, message_size);
    return library == NULL ? NULL : library->version_string();
}
