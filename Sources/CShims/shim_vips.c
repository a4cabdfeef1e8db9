#include "CShimsVips.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vips/vips.h>
#include <vips/vector.h>

static pthread_once_t started = PTHREAD_ONCE_INIT;
static int start_status = -1;
static char start_message[256];

static void take_error(char *message, size_t message_size) {
    snprintf(message, message_size, "%s", vips_error_buffer());
    vips_error_clear();
    // libvips ends its messages with a newline.
    size_t length = strlen(message);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == ' ')) message[--length] = 0;
    if (length == 0) snprintf(message, message_size, "libvips gave no reason");
}

/// libvips' warnings (a CRC error, a damaged tile) repeat what the failed call returns.
static void drop_log(const gchar *domain, GLogLevelFlags level, const gchar *text, gpointer data) {
    (void)domain; (void)level; (void)text; (void)data;
}

static void start(void) {
    if (VIPS_INIT("prefetchd") != 0) {
        take_error(start_message, sizeof start_message);
        return;
    }
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, drop_log, NULL);
    // No orc: its generated code crashed one run in six of 2,000 variants made on two workers
    // (SIGSEGV in liborc-0.4 0.4.33, Debian 12) and never with it off.
    vips_vector_set_enabled(FALSE);
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    start_status = 0;
}

int shim_vips_start(char *message, size_t message_size) {
    pthread_once(&started, start);
    if (start_status != 0) snprintf(message, message_size, "%s", start_message);
    return start_status;
}

int shim_vips_variant(const void *data, size_t length, int shrink_on_load, int width, int height, int cover, int format, int quality,
                      void **out, size_t *out_length, int *out_width, int *out_height,
                      char *message, size_t message_size) {
    if (shim_vips_start(message, message_size) != 0) return -1;
    VipsImage *thumbnail = NULL;
    int failed;
    // fail_on=error: a damaged body is a failure, not a grey half-image.
    if (shrink_on_load) {
        failed = vips_thumbnail_buffer((void *)data, length, &thumbnail, width, "height", height,
                                       "size", VIPS_SIZE_DOWN, "crop", cover ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
                                       "option_string", "fail_on=error", NULL);
    } else {
        // Decoded whole, then reduced: libvips' shrink-on-load for WebP is libwebp's own scaled decode,
        // a coarser filter than the Lanczos3 reduce.
        VipsImage *decoded = vips_image_new_from_buffer(data, length, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
        if (decoded == NULL) {
            take_error(message, message_size);
            return -1;
        }
        failed = vips_thumbnail_image(decoded, &thumbnail, width, "height", height, "size", VIPS_SIZE_DOWN,
                                      "crop", cover ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
        g_object_unref(decoded);
    }
    if (failed) {
        take_error(message, message_size);
        return -1;
    }
    // An embedded colour profile is applied (to sRGB) before the metadata is stripped; images without
    // one are taken as sRGB and left as they are (a conversion through the default profile would
    // shift them).
    if (vips_image_get_typeof(thumbnail, VIPS_META_ICC_NAME) != 0) {
        VipsImage *converted = NULL;
        failed = vips_icc_transform(thumbnail, &converted, "srgb", "embedded", TRUE, NULL);
        g_object_unref(thumbnail);
        if (failed) {
            take_error(message, message_size);
            return -1;
        }
        thumbnail = converted;
    }
    VipsImage *flat = NULL;
    if (format == SHIM_VIPS_JPEG && vips_image_hasalpha(thumbnail)) {
        double white[] = {255, 255, 255};
        VipsArrayDouble *background = vips_array_double_new(white, 3);
        failed = vips_flatten(thumbnail, &flat, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
        g_object_unref(thumbnail);
        if (failed) {
            take_error(message, message_size);
            return -1;
        }
        thumbnail = flat;
    }
    int status;
    switch (format) {
    case SHIM_VIPS_JPEG:
        status = vips_jpegsave_buffer(thumbnail, out, out_length, "Q", quality, "strip", TRUE, NULL);
        break;
    case SHIM_VIPS_PNG:
        status = vips_pngsave_buffer(thumbnail, out, out_length, "strip", TRUE, NULL);
        break;
    default:
        status = vips_webpsave_buffer(thumbnail, out, out_length, "Q", quality, "strip", TRUE, NULL);
        break;
    }
    *out_width = vips_image_get_width(thumbnail);
    *out_height = vips_image_get_height(thumbnail);
    g_object_unref(thumbnail);
    if (status != 0) {
        take_error(message, message_size);
        return -1;
    }
    return 0;
}

void shim_vips_free(void *buffer) { g_free(buffer); }

/// The version of the libvips linked, without starting it (vips_version_string returns a constant
/// of the library; VIPS_INIT is not called).
const char *shim_vips_version(void) {
    return vips_version_string();
}
