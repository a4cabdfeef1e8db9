#include "jpeg_encode.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

/* Everything the guarded region touches after setjmp lives here, not in locals. */
typedef struct {
    struct jpeg_error_mgr error; /* first, so cinfo->err can be cast back to the job */
    struct jpeg_compress_struct cinfo;
    jmp_buf jump;
    unsigned char *buffer;
    unsigned long length;
    JSAMPROW row;
    char *message;
    size_t message_size;
} pf_encode_job;

static void pf_encode_on_error(j_common_ptr cinfo) {
    pf_encode_job *job = (pf_encode_job *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(job->message, job->message_size, "%s", text);
    longjmp(job->jump, 1);
}

/* The planes an iMCU row at a time (v_samp_factor * DCTSIZE rows of each component). */
static void pf_encode_raw(struct jpeg_compress_struct *cinfo, const pf_plane *planes) {
    JSAMPROW pointers[3][2 * DCTSIZE];
    JSAMPARRAY image[3] = {pointers[0], pointers[1], pointers[2]};
    for (JDIMENSION imcu = 0; cinfo->next_scanline < cinfo->image_height; imcu++) {
        for (int c = 0; c < cinfo->num_components; c++) {
            int rows = cinfo->comp_info[c].v_samp_factor * DCTSIZE;
            for (int r = 0; r < rows; r++) pointers[c][r] = planes[c].pixels + ((size_t)imcu * rows + r) * planes[c].stride;
        }
        jpeg_write_raw_data(cinfo, image, (JDIMENSION)(cinfo->max_v_samp_factor * DCTSIZE));
    }
}

/* R, G and B interleaved a row at a time into job->row, which libjpeg converts. */
static void pf_encode_rgb(pf_encode_job *job, const pf_plane *planes) {
    struct jpeg_compress_struct *cinfo = &job->cinfo;
    while (cinfo->next_scanline < cinfo->image_height) {
        size_t y = cinfo->next_scanline;
        for (JDIMENSION x = 0; x < cinfo->image_width; x++) {
            for (int c = 0; c < 3; c++) job->row[3 * (size_t)x + c] = planes[c].pixels[y * planes[c].stride + x];
        }
        jpeg_write_scanlines(cinfo, &job->row, 1);
    }
}

static int pf_encode(pf_encode_job *job, const pf_plane *planes, pf_kept_colour colour, uint32_t width, uint32_t height,
                     int quality) {
    struct jpeg_compress_struct *cinfo = &job->cinfo;
    if (setjmp(job->jump)) {
        return -1;
    }
    jpeg_create_compress(cinfo);
    jpeg_mem_dest(cinfo, &job->buffer, &job->length);
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = colour == PF_KEPT_GREY ? 1 : 3;
    cinfo->in_color_space = colour == PF_KEPT_GREY ? JCS_GRAYSCALE : colour == PF_KEPT_YCBCR ? JCS_YCbCr : JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    if (colour != PF_KEPT_GREY && !pf_jpeg_halves_chroma(quality)) {
        cinfo->comp_info[0].h_samp_factor = 1;
        cinfo->comp_info[0].v_samp_factor = 1;
    }
    cinfo->raw_data_in = colour != PF_KEPT_RGB;
    jpeg_start_compress(cinfo, TRUE);
    if (cinfo->raw_data_in) {
        pf_encode_raw(cinfo, planes);
    } else {
        pf_encode_rgb(job, planes);
    }
    jpeg_finish_compress(cinfo);
    return 0;
}

int pf_jpeg_encode(const pf_plane *planes, pf_kept_colour colour, uint32_t width, uint32_t height, int quality,
                   uint8_t **out, size_t *out_length, char *message, size_t message_size) {
    pf_encode_job job = {.message = message, .message_size = message_size};
    if (colour == PF_KEPT_RGB && (job.row = malloc((size_t)width * 3)) == NULL) {
        snprintf(message, message_size, "out of memory for a %ux%u variant", width, height);
        return -1;
    }
    job.cinfo.err = jpeg_std_error(&job.error);
    job.error.error_exit = pf_encode_on_error;
    int status = pf_encode(&job, planes, colour, width, height, quality);
    jpeg_destroy_compress(&job.cinfo);
    free(job.row);
    if (status != 0) {
        free(job.buffer);
        return -1;
    }
    *out = job.buffer;
    *out_length = job.length;
    return 0;
}
