#include "CShimsJPEG.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/* Everything the guarded region touches after setjmp lives here, not in locals. */
typedef struct {
    struct jpeg_error_mgr error;      /* first, so cinfo->err can be cast back to the job */
    struct jpeg_progress_mgr progress;
    struct jpeg_decompress_struct cinfo;
    jmp_buf jump;
    pf_jpeg_status status;
    int max_scans;
    JSAMPROW row;
    char *message;
    size_t message_size;
} pf_jpeg_job;

static void pf_jpeg_fail(pf_jpeg_job *job, pf_jpeg_status status, const char *text) {
    if (job->message_size > 0) {
        snprintf(job->message, job->message_size, "%s", text);
    }
    job->status = status;
    longjmp(job->jump, 1);
}

static pf_jpeg_status pf_jpeg_classify_error(int code) {
    switch (code) {
    case JERR_INPUT_EMPTY:
        return PF_JPEG_TRUNCATED;
    case JERR_EMPTY_IMAGE:
        return PF_JPEG_ZERO_PIXELS;
    case JERR_IMAGE_TOO_BIG:
        return PF_JPEG_TOO_MANY_PIXELS;
    case JERR_BAD_PRECISION:
    case JERR_NOT_COMPILED:
    case JERR_ARITH_NOTIMPL:
    case JERR_SOF_UNSUPPORTED:
    case JERR_CONVERSION_NOTIMPL:
        return PF_JPEG_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY:
        return PF_JPEG_FAILED;
    default:
        return PF_JPEG_CORRUPT;
    }
}

static void pf_jpeg_on_error(j_common_ptr cinfo) {
    pf_jpeg_job *job = (pf_jpeg_job *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    pf_jpeg_fail(job, pf_jpeg_classify_error(cinfo->err->msg_code), text);
}

/* Level -1 is a warning: libjpeg would carry on (filling grey after a truncation); we stop. */
static void pf_jpeg_on_message(j_common_ptr cinfo, int level) {
    if (level >= 0) {
        return;
    }
    pf_jpeg_job *job = (pf_jpeg_job *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    pf_jpeg_fail(job, cinfo->err->msg_code == JWRN_JPEG_EOF ? PF_JPEG_TRUNCATED : PF_JPEG_CORRUPT, text);
}

/* As djpeg -maxscans: a progressive file with thousands of tiny scans is a CPU bomb. */
static void pf_jpeg_on_progress(j_common_ptr cinfo) {
    pf_jpeg_job *job = (pf_jpeg_job *)cinfo->err;
    int scan = ((j_decompress_ptr)cinfo)->input_scan_number;
    if (job->max_scans > 0 && scan > job->max_scans) {
        char text[96];
        snprintf(text, sizeof text, "JPEG has more than %d scans", job->max_scans);
        pf_jpeg_fail(job, PF_JPEG_TOO_MANY_SCANS, text);
    }
}

/* The setjmp-guarded decode; the source is attached by the caller's setup. */
static pf_jpeg_status pf_jpeg_decode(pf_jpeg_job *job, FILE *file, const uint8_t *data, size_t size,
                                     uint64_t max_pixels, uint32_t *width, uint32_t *height) {
    struct jpeg_decompress_struct *cinfo = &job->cinfo;
    if (setjmp(job->jump)) {
        return job->status;
    }
    jpeg_create_decompress(cinfo);
    job->progress.progress_monitor = pf_jpeg_on_progress;
    cinfo->progress = &job->progress;
    if (file != NULL) {
        jpeg_stdio_src(cinfo, file);
    } else {
        jpeg_mem_src(cinfo, data, (unsigned long)size);
    }
    jpeg_read_header(cinfo, TRUE);
    *width = cinfo->image_width;
    *height = cinfo->image_height;
    if (max_pixels > 0 && (uint64_t)*width * (uint64_t)*height > max_pixels) {
        char text[160];
        snprintf(text, sizeof text, "frame header declares %ux%u pixels, over the limit of %llu",
                 *width, *height, (unsigned long long)max_pixels);
        pf_jpeg_fail(job, PF_JPEG_TOO_MANY_PIXELS, text);
    }

    /* Cheapest output that still entropy-decodes every scan. */
    cinfo->scale_num = 1;
    cinfo->scale_denom = 8;
    cinfo->dct_method = JDCT_IFAST;
    cinfo->do_fancy_upsampling = FALSE;
    cinfo->do_block_smoothing = FALSE;
    jpeg_start_decompress(cinfo);
    job->row = malloc((size_t)cinfo->output_width * (size_t)cinfo->output_components);
    if (job->row == NULL) {
        pf_jpeg_fail(job, PF_JPEG_FAILED, "out of memory for one JPEG scanline");
    }
    while (cinfo->output_scanline < cinfo->output_height) {
        jpeg_read_scanlines(cinfo, &job->row, 1);
    }
    /* Reads on to EOI, so damage after the last scanline is seen too. */
    jpeg_finish_decompress(cinfo);
    return PF_JPEG_OK;
}

static pf_jpeg_status pf_jpeg_run(pf_jpeg_job *job, FILE *file, const uint8_t *data, size_t size,
                                  uint64_t max_pixels, uint32_t *width, uint32_t *height) {
    *width = 0;
    *height = 0;
    if (job->message_size > 0) {
        job->message[0] = '\0';
    }
    job->cinfo.err = jpeg_std_error(&job->error);
    job->error.error_exit = pf_jpeg_on_error;
    job->error.emit_message = pf_jpeg_on_message;
    pf_jpeg_status status = pf_jpeg_decode(job, file, data, size, max_pixels, width, height);
    free(job->row);
    jpeg_destroy_decompress(&job->cinfo);
    return status;
}

pf_jpeg_status pf_jpeg_check_file(const char *path, uint64_t max_pixels, int max_scans,
                                  uint32_t *width, uint32_t *height,
                                  char *message, size_t message_size) {
    pf_jpeg_job job = {.max_scans = max_scans, .message = message, .message_size = message_size};
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        snprintf(message, message_size, "%s", strerror(errno));
        *width = 0;
        *height = 0;
        return PF_JPEG_UNREADABLE;
    }
    pf_jpeg_status status = pf_jpeg_run(&job, file, NULL, 0, max_pixels, width, height);
    fclose(file);
    return status;
}

pf_jpeg_status pf_jpeg_check_memory(const uint8_t *data, size_t size, uint64_t max_pixels, int max_scans,
                                    uint32_t *width, uint32_t *height,
                                    char *message, size_t message_size) {
    pf_jpeg_job job = {.max_scans = max_scans, .message = message, .message_size = message_size};
    return pf_jpeg_run(&job, NULL, data, size, max_pixels, width, height);
}

#define PF_STRING(token) #token
#define PF_EXPANDED_STRING(token) PF_STRING(token)

const char *pf_jpeg_turbo_version(void) {
    return PF_EXPANDED_STRING(LIBJPEG_TURBO_VERSION);
}
