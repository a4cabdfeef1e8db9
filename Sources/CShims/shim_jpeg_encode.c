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

static int pf_encode(pf_encode_job *job, const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality) {
    struct jpeg_compress_struct *cinfo = &job->cinfo;
    if (setjmp(job->jump)) {
        return -1;
    }
    jpeg_create_compress(cinfo);
    jpeg_mem_dest(cinfo, &job->buffer, &job->length);
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = components;
    cinfo->in_color_space = components == 4 ? JCS_EXT_RGBX : JCS_GRAYSCALE;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    if (components == 4 && quality >= 90) {
        cinfo->comp_info[0].h_samp_factor = 1;
        cinfo->comp_info[0].v_samp_factor = 1;
    }
    jpeg_start_compress(cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo->next_scanline < height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo->next_scanline * stride);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo);
    return 0;
}

int pf_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality,
                   uint8_t **out, size_t *out_length, char *message, size_t message_size) {
    pf_encode_job job = {.message = message, .message_size = message_size};
    job.cinfo.err = jpeg_std_error(&job.error);
    job.error.error_exit = pf_encode_on_error;
    int status = pf_encode(&job, pixels, width, height, components, quality);
    jpeg_destroy_compress(&job.cinfo);
    if (status != 0) {
        free(job.buffer);
        return -1;
    }
    *out = job.buffer;
    *out_length = job.length;
    return 0;
}
