#include "CShimsJPEG.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "exif_orientation.h"

/* Everything the guarded region touches after setjmp lives here, not in locals. */
typedef struct {
    struct jpeg_error_mgr error;      /* first, so cinfo->err can be cast back to the job */
    struct jpeg_progress_mgr progress;
    struct jpeg_decompress_struct cinfo;
    jmp_buf jump;
    pf_jpeg_status status;
    int max_scans;
    JSAMPROW row;
    pf_jpeg_keep *keep;
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

void pf_jpeg_fit(uint32_t width, uint32_t height, int orientation, uint32_t box_width, uint32_t box_height,
                 uint32_t *fit_width, uint32_t *fit_height) {
    uint32_t upright_width = orientation >= 5 ? height : width, upright_height = orientation >= 5 ? width : height;
    double ratio = (double)box_width / upright_width;
    if ((double)box_height / upright_height < ratio) ratio = (double)box_height / upright_height;
    if (ratio >= 1) {
        *fit_width = upright_width;
        *fit_height = upright_height;
        return;
    }
    double fitted_width = upright_width * ratio + 0.5, fitted_height = upright_height * ratio + 0.5;
    *fit_width = fitted_width < 1 ? 1 : fitted_width > box_width ? box_width : (uint32_t)fitted_width;
    *fit_height = fitted_height < 1 ? 1 : fitted_height > box_height ? box_height : (uint32_t)fitted_height;
}

/* At most 48 MiB of planes (three whole ones): a larger decode is left to libvips, which streams it. */
#define PF_JPEG_KEEP_MAX_PIXELS (16u << 20)

/* Why the image cannot be kept for the fast path, or NULL; sets what its planes hold. */
static const char *pf_jpeg_keep_colour(struct jpeg_decompress_struct *cinfo, pf_jpeg_keep *keep) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 2 && marker->data_length >= 12 && memcmp(marker->data, "ICC_PROFILE", 12) == 0) {
            return "an embedded ICC profile";
        }
    }
    switch (cinfo->jpeg_color_space) {
    case JCS_YCbCr: keep->colour = PF_KEPT_YCBCR; break;
    case JCS_RGB: keep->colour = PF_KEPT_RGB; break;
    case JCS_GRAYSCALE: keep->colour = PF_KEPT_GREY; break;
    default: return "CMYK or YCCK";
    }
    /* The upsampler refuses sampling factors that do not divide the largest; raw data would not. */
    for (int c = 0; c < cinfo->num_components; c++) {
        jpeg_component_info *component = &cinfo->comp_info[c];
        if (cinfo->max_h_samp_factor % component->h_samp_factor != 0 || cinfo->max_v_samp_factor % component->v_samp_factor != 0) {
            return "fractional sampling";
        }
    }
    return NULL;
}

/* The smallest of the scales 1/8, 1/4, 1/2 and 1 whose output is at least twice the variant's size
   in the stored orientation, or the image whole. Twice, as libvips' shrink-on-load leaves its reducer:
   from just above the size, libjpeg-turbo's reduced IDCTs leave the result blurred (29-32 dB against
   ImageMagick's Lanczos thumbnail of a 227 px JPEG, where twice gives 40-42 dB). Powers of two: those
   IDCTs have SIMD code, the 3/8, 5/8, 6/8 and 7/8 ones are plain C and cost more than a full decode. */
static unsigned int pf_jpeg_keep_scale(struct jpeg_decompress_struct *cinfo, pf_jpeg_keep *keep) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1) {
            keep->orientation = pf_exif_orientation(marker->data, marker->data_length);
            break;
        }
    }
    uint32_t fit_width, fit_height;
    pf_jpeg_fit(cinfo->image_width, cinfo->image_height, keep->orientation, keep->box_width, keep->box_height, &fit_width, &fit_height);
    if (keep->orientation >= 5) {
        uint32_t turned = fit_width;
        fit_width = fit_height;
        fit_height = turned;
    }
    unsigned int scale = 1;
    while (scale < 8 && (((uint64_t)cinfo->image_width * scale + 7) / 8 < 2 * (uint64_t)fit_width
                         || ((uint64_t)cinfo->image_height * scale + 7) / 8 < 2 * (uint64_t)fit_height)) {
        scale *= 2;
    }
    return scale;
}

/* The check's output goes into the kept planes, an iMCU row (libjpeg's unit of raw data) a call,
   instead of one reused scanline. A plane's rows run to whole blocks and iMCU rows, as the IDCT
   writes them; width and height are the samples the image has. */
static void pf_jpeg_read_kept(pf_jpeg_job *job) {
    struct jpeg_decompress_struct *cinfo = &job->cinfo;
    pf_jpeg_keep *keep = job->keep;
    int count = cinfo->num_components, rows[3];
    size_t offset[3], total = 0;
    for (int c = 0; c < count; c++) {
        jpeg_component_info *component = &cinfo->comp_info[c];
        rows[c] = component->v_samp_factor * component->DCT_scaled_size;
        keep->plane[c].width = component->downsampled_width;
        keep->plane[c].height = component->downsampled_height;
        keep->plane[c].stride = (size_t)component->width_in_blocks * (size_t)component->DCT_scaled_size;
        keep->plane[c].across = (double)(component->h_samp_factor * component->DCT_scaled_size)
                                / (cinfo->max_h_samp_factor * cinfo->min_DCT_scaled_size);
        keep->plane[c].down = (double)(component->v_samp_factor * component->DCT_scaled_size)
                              / (cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size);
        offset[c] = total;
        total += keep->plane[c].stride * (size_t)rows[c] * cinfo->total_iMCU_rows;
    }
    uint8_t *block = malloc(total);
    if (block == NULL) {
        pf_jpeg_fail(job, PF_JPEG_FAILED, "out of memory for the decoded JPEG");
    }
    for (int c = 0; c < count; c++) keep->plane[c].pixels = block + offset[c];
    keep->width = cinfo->output_width;
    keep->height = cinfo->output_height;
    /* At most MAX_SAMP_FACTOR (4) blocks of DCTSIZE (8) rows a component an iMCU row. */
    JSAMPROW pointers[3][4 * DCTSIZE];
    JSAMPARRAY image[3] = {pointers[0], pointers[1], pointers[2]};
    for (JDIMENSION imcu = 0; cinfo->output_scanline < cinfo->output_height; imcu++) {
        for (int c = 0; c < count; c++) {
            for (int r = 0; r < rows[c]; r++) {
                pointers[c][r] = keep->plane[c].pixels + ((size_t)imcu * rows[c] + r) * keep->plane[c].stride;
            }
        }
        jpeg_read_raw_data(cinfo, image, (JDIMENSION)(cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size));
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
    if (job->keep != NULL) {
        jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xffff);
        jpeg_save_markers(cinfo, JPEG_APP0 + 2, 12);
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
    int keeping = 0;
    if (job->keep != NULL) {
        job->keep->orientation = 1;
        job->keep->declined = pf_jpeg_keep_colour(cinfo, job->keep);
        unsigned int scale = pf_jpeg_keep_scale(cinfo, job->keep);
        uint64_t kept = ((uint64_t)cinfo->image_width * scale + 7) / 8 * (((uint64_t)cinfo->image_height * scale + 7) / 8);
        if (job->keep->declined == NULL && kept > PF_JPEG_KEEP_MAX_PIXELS) {
            job->keep->declined = "too large to keep whole";
        }
        keeping = job->keep->declined == NULL;
        if (keeping) {
            cinfo->scale_num = scale;
            /* At full size the accurate IDCT (the scaled ones have no fast kind). */
            cinfo->dct_method = JDCT_ISLOW;
            cinfo->out_color_space = cinfo->jpeg_color_space;
            cinfo->raw_data_out = TRUE;
        }
    }
    jpeg_start_decompress(cinfo);
    if (keeping) {
        pf_jpeg_read_kept(job);
    } else {
        job->row = malloc((size_t)cinfo->output_width * (size_t)cinfo->output_components);
        if (job->row == NULL) {
            pf_jpeg_fail(job, PF_JPEG_FAILED, "out of memory for one JPEG scanline");
        }
        while (cinfo->output_scanline < cinfo->output_height) {
            jpeg_read_scanlines(cinfo, &job->row, 1);
        }
    }
    /* Reads on to EOI, so damage after the last scanline is seen too. */
    jpeg_finish_decompress(cinfo);
    return PF_JPEG_OK;
}

static pf_jpeg_status pf_jpeg_run(pf_jpeg_job *job, FILE *file, const uint8_t *data, size_t size,
                                  uint64_t max_pixels, uint32_t *width, uint32_t *height) {
    *width = 0;
    *height = 0;
    /* The caller's keep holds no planes (zeroed, or freed by pf_jpeg_keep_free): a failure frees only this decode's. */
    if (job->keep != NULL) {
        for (int c = 0; c < 3; c++) job->keep->plane[c].pixels = NULL;
    }
    if (job->message_size > 0) {
        job->message[0] = '\0';
    }
    job->cinfo.err = jpeg_std_error(&job->error);
    job->error.error_exit = pf_jpeg_on_error;
    job->error.emit_message = pf_jpeg_on_message;
    pf_jpeg_status status = pf_jpeg_decode(job, file, data, size, max_pixels, width, height);
    free(job->row);
    if (status != PF_JPEG_OK && job->keep != NULL) pf_jpeg_keep_free(job->keep);
    jpeg_destroy_decompress(&job->cinfo);
    return status;
}

void pf_jpeg_keep_free(pf_jpeg_keep *keep) {
    free(keep->plane[0].pixels);
    for (int c = 0; c < 3; c++) keep->plane[c].pixels = NULL;
}

pf_jpeg_status pf_jpeg_check_file(const char *path, uint64_t max_pixels, int max_scans, pf_jpeg_keep *keep,
                                  uint32_t *width, uint32_t *height,
                                  char *message, size_t message_size) {
    pf_jpeg_job job = {.max_scans = max_scans, .keep = keep, .message = message, .message_size = message_size};
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

pf_jpeg_status pf_jpeg_check_memory(const uint8_t *data, size_t size, uint64_t max_pixels, int max_scans, pf_jpeg_keep *keep,
                                    uint32_t *width, uint32_t *height,
                                    char *message, size_t message_size) {
    pf_jpeg_job job = {.max_scans = max_scans, .keep = keep, .message = message, .message_size = message_size};
    return pf_jpeg_run(&job, NULL, data, size, max_pixels, width, height);
}

#define PF_STRING(token) #token
#define PF_EXPANDED_STRING(token) PF_STRING(token)

const char *pf_jpeg_turbo_version(void) {
    return PF_EXPANDED_STRING(LIBJPEG_TURBO_VERSION);
}
