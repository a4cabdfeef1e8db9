#include "CShimsPNG.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpng's own default cap on one ancillary chunk's buffer, stated explicitly. */
#define PF_PNG_CHUNK_MALLOC_MAX 8000000
/* At most this many ancillary chunks (text, sPLT, unknown) are kept. */
#define PF_PNG_CHUNK_CACHE_MAX 1000

/* Everything the guarded region touches after setjmp lives here, not in locals. */
typedef struct {
    jmp_buf jump;
    pf_png_status status;
    const uint8_t *data;
    size_t size;
    size_t offset;
    int ran_out;
    FILE *file;
    png_structp png;
    png_infop info;
    png_bytep row;
    char *message;
    size_t message_size;
    uint32_t warnings;
} pf_png_job;

static void pf_png_fail(pf_png_job *job, pf_png_status status, const char *text) {
    if (job->message_size > 0) {
        snprintf(job->message, job->message_size, "%s", text);
    }
    job->status = status;
    longjmp(job->jump, 1);
}

static void pf_png_on_error(png_structp png, png_const_charp text) {
    pf_png_fail(png_get_error_ptr(png), PF_PNG_CORRUPT, text);
}

/* The benign kind of a warning, or 0. libpng words an ancillary chunk's CRC mismatch (which, with
   PNG_CRC_WARN_DISCARD, drops that chunk only) "xxxx: CRC error", the chunk name first. */
static uint32_t pf_png_benign_kind(png_const_charp text) {
    if (strstr(text, "tRNS chunk has out-of-range samples") != NULL) {
        return PF_PNG_WARNING_TRNS_OUT_OF_RANGE;
    }
    size_t length = strlen(text);
    const char *crc = ": CRC error";
    if (length == 4 + strlen(crc) && strcmp(text + 4, crc) == 0 && text[0] >= 'a' && text[0] <= 'z') {
        return PF_PNG_WARNING_ANCILLARY_CRC;
    }
    return 0;
}

/* Judged as browsers do: a benign warning is counted and the decode goes on; any other warning
   (duplicate iCCP, bad keyword, ...) rejects the image. */
static void pf_png_on_warning(png_structp png, png_const_charp text) {
    pf_png_job *job = png_get_error_ptr(png);
    uint32_t kind = pf_png_benign_kind(text);
    if (kind == 0) {
        pf_png_fail(job, PF_PNG_CORRUPT, text);
    }
    job->warnings |= kind;
}

static void pf_png_ignore_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void pf_png_read_memory(png_structp png, png_bytep out, size_t length) {
    pf_png_job *job = png_get_io_ptr(png);
    if (job->size - job->offset < length) {
        job->ran_out = 1;
        png_error(png, "Read Error: unexpected end of data");
    }
    memcpy(out, job->data + job->offset, length);
    job->offset += length;
}

/* libpng itself refuses a zero width or height in IHDR (a warning, then "Invalid IHDR data"). */
static void pf_png_limit_pixels(pf_png_job *job, uint64_t max_pixels, uint32_t width, uint32_t height) {
    if (max_pixels > 0 && (uint64_t)width * (uint64_t)height > max_pixels) {
        char text[160];
        snprintf(text, sizeof text, "IHDR declares %ux%u pixels, over the limit of %llu",
                 width, height, (unsigned long long)max_pixels);
        pf_png_fail(job, PF_PNG_TOO_MANY_PIXELS, text);
    }
}

/* libpng 1.6.39 lets pixels whose palette index has no PLTE entry through without a word (the
   corpus badpal files decode cleanly), so every decoded row of a palette image is checked here. */
static void pf_png_check_palette_row(pf_png_job *job, png_const_bytep row, uint32_t width, int depth, int entries) {
    if (entries >= (1 << depth)) {
        return;
    }
    for (uint32_t x = 0; x < width; x++) {
        size_t bit = (size_t)x * (size_t)depth;
        int index = (row[bit / 8] >> (8 - depth - (int)(bit % 8))) & ((1 << depth) - 1);
        if (index >= entries) {
            char text[96];
            snprintf(text, sizeof text, "palette index %d is beyond the %d PLTE entries", index, entries);
            pf_png_fail(job, PF_PNG_CORRUPT, text);
        }
    }
}

/* The setjmp-guarded decode. job->png is created; the source is set up by the caller's hook. */
static pf_png_status pf_png_decode(pf_png_job *job, uint64_t max_pixels, uint32_t *width, uint32_t *height) {
    if (setjmp(job->jump)) {
        if (job->status == PF_PNG_CORRUPT && (job->ran_out || (job->file != NULL && feof(job->file)))) {
            job->status = PF_PNG_TRUNCATED;
        }
        return job->status;
    }
    png_structp png = job->png;
    /* Only now that the jump is armed may an error or a warning longjmp to it. */
    png_set_error_fn(png, job, pf_png_on_error, pf_png_on_warning);
    png_uint_32 side = max_pixels > 0 && max_pixels < PNG_UINT_31_MAX ? (png_uint_32)max_pixels : PNG_UINT_31_MAX;
    png_set_user_limits(png, side, side);
    png_set_chunk_malloc_max(png, PF_PNG_CHUNK_MALLOC_MAX);
    png_set_chunk_cache_max(png, PF_PNG_CHUNK_CACHE_MAX);
    png_set_benign_errors(png, 0);
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_WARN_DISCARD);
    png_set_check_for_invalid_index(png, 1);
    /* Many web PNGs carry a well-known but slightly wrong sRGB profile; that is not damage. */
    png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);

    job->info = png_create_info_struct(png);
    if (job->info == NULL) {
        pf_png_fail(job, PF_PNG_FAILED, "libpng could not allocate its info struct");
    }
    png_read_info(png, job->info);
    *width = png_get_image_width(png, job->info);
    *height = png_get_image_height(png, job->info);
    pf_png_limit_pixels(job, max_pixels, *width, *height);

    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, job->info);
    /* Zeroed: with interlacing, a pass leaves the pixels of later passes as they were. */
    job->row = calloc(1, png_get_rowbytes(png, job->info));
    if (job->row == NULL) {
        pf_png_fail(job, PF_PNG_FAILED, "out of memory for one PNG row");
    }
    png_colorp palette = NULL;
    int entries = 0;
    int is_palette = png_get_color_type(png, job->info) == PNG_COLOR_TYPE_PALETTE;
    if (is_palette) {
        png_get_PLTE(png, job->info, &palette, &entries);
    }
    int depth = png_get_bit_depth(png, job->info);
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < *height; y++) {
            png_read_row(png, job->row, NULL);
            if (is_palette) {
                pf_png_check_palette_row(job, job->row, *width, depth, entries);
            }
        }
    }
    /* Reads the chunks after the image data through IEND, checking their CRCs. */
    png_read_end(png, job->info);
    return PF_PNG_OK;
}

static pf_png_status pf_png_run(pf_png_job *job, uint64_t max_pixels, uint32_t *width, uint32_t *height,
                                uint32_t *warnings) {
    *width = 0;
    *height = 0;
    if (job->message_size > 0) {
        job->message[0] = '\0';
    }
    /* No handlers of ours yet: nothing is armed to jump to. libpng's default error handler returns
       NULL from here through its own jump; a warning (a header and library version mismatch) is
       not a verdict on the image and is let pass. */
    job->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, job, NULL, pf_png_ignore_warning);
    if (job->png == NULL) {
        snprintf(job->message, job->message_size, "libpng could not allocate its read struct");
        return PF_PNG_FAILED;
    }
    if (job->file != NULL) {
        png_init_io(job->png, job->file);
    } else {
        png_set_read_fn(job->png, job, pf_png_read_memory);
    }
    pf_png_status status = pf_png_decode(job, max_pixels, width, height);
    *warnings = job->warnings;
    free(job->row);
    png_destroy_read_struct(&job->png, job->info != NULL ? &job->info : NULL, NULL);
    return status;
}

pf_png_status pf_png_check_file(const char *path, uint64_t max_pixels,
                                uint32_t *width, uint32_t *height, uint32_t *warnings,
                                char *message, size_t message_size) {
    pf_png_job job = {.message = message, .message_size = message_size};
    job.file = fopen(path, "rb");
    if (job.file == NULL) {
        snprintf(message, message_size, "%s", strerror(errno));
        *width = 0;
        *height = 0;
        *warnings = 0;
        return PF_PNG_UNREADABLE;
    }
    pf_png_status status = pf_png_run(&job, max_pixels, width, height, warnings);
    fclose(job.file);
    return status;
}

pf_png_status pf_png_check_memory(const uint8_t *data, size_t size, uint64_t max_pixels,
                                  uint32_t *width, uint32_t *height, uint32_t *warnings,
                                  char *message, size_t message_size) {
    pf_png_job job = {.data = data, .size = size, .message = message, .message_size = message_size};
    return pf_png_run(&job, max_pixels, width, height, warnings);
}
