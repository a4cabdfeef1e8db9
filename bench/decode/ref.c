/*
 * decode-ref: the decode benchmark's reference, one process doing the full decode prefetchd's
 * validate: decode does, with the same Debian libraries and the same calls, and nothing else
 * (no index, no checksum, no header pass, no Swift).
 *
 *   decode-ref [--threads N] [--webp-scale eighth|full|yuv] [--avif-rgb] LIST
 *
 * LIST names one file per line. Each file is mapped read-only (as prefetchd maps a stored file),
 * its format told by its magic bytes, and decoded:
 *   WebP  libwebp's demuxer over the container; an animation's every frame composited by
 *         WebPAnimDecoder (RGBA, no threads); a still decoded by WebPDecode into RGBA, at 1/8 of its
 *         size (--webp-scale eighth, the default: what prefetchd does; the whole bitstream is
 *         decoded, only the output is scaled) or at full size (--webp-scale full: what dwebp does);
 *         --webp-scale yuv decodes a lossy (VP8) still into YUV at full size, no RGB conversion and
 *         no rescaling (a lossless or alpha still as with eighth): a cheaper output prefetchd
 *         could ask for
 *   AVIF  libavif (dav1d) with one thread and no image-count limit: the container parsed, then
 *         avifDecoderNextImage for every frame (YUV out, as prefetchd and avifdec --info do);
 *         --avif-rgb also converts each frame to RGBA with avifImageYUVToRGB (what an app that
 *         shows the image, or avifdec writing a PNG, adds)
 *   GIF   giflib from memory: every record, every frame's LZW data read row by row into one row
 *         buffer, extensions skipped (prefetchd's walk)
 *   JXL   libjxl without a parallel runner: basic info, frame and full-image events, pixels
 *         delivered as 8-bit RGBA to a callback that drops them (prefetchd's settings)
 * --threads N runs N threads taking files from the list in turn (default 1).
 * Prints one line: files, frames, pixels decoded (frames x canvas), failures; exits 1 if any file
 * failed (and names it on stderr).
 *
 * Build: gcc -O2 -o decode-ref ref.c $(pkg-config --cflags --libs libwebp libwebpdemux libavif
 *        libjxl) -lgif -lpthread
 */
#define _GNU_SOURCE
#include <avif/avif.h>
#include <errno.h>
#include <fcntl.h>
#include <gif_lib.h>
#include <jxl/decode.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <webp/decode.h>
#include <webp/demux.h>

enum webp_output { WEBP_EIGHTH, WEBP_FULL, WEBP_YUV };
static enum webp_output webp_output = WEBP_EIGHTH;
static int avif_rgb = 0;
static char **paths;
static size_t path_count;
static atomic_size_t next_path;
static atomic_ullong total_frames, total_pixels, total_failed;

/* --- WebP --- */
static int decode_webp(const uint8_t *data, size_t size, uint64_t *frames, uint64_t *pixels) {
    WebPData webp = {data, size};
    WebPDemuxState state;
    WebPDemuxer *demux = WebPDemuxPartial(&webp, &state);
    if (demux == NULL || state != WEBP_DEMUX_DONE) {
        if (demux) WebPDemuxDelete(demux);
        return -1;
    }
    int width = (int)WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
    int height = (int)WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    int count = (int)WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
    int animated = (WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) & ANIMATION_FLAG) != 0;
    WebPDemuxDelete(demux);
    if (count <= 0) return -1;
    if (animated) {
        WebPAnimDecoderOptions options;
        if (!WebPAnimDecoderOptionsInit(&options)) return -1;
        options.color_mode = MODE_RGBA;
        options.use_threads = 0;
        WebPAnimDecoder *decoder = WebPAnimDecoderNew(&webp, &options);
        if (decoder == NULL) return -1;
        int decoded = 0;
        while (WebPAnimDecoderHasMoreFrames(decoder)) {
            uint8_t *buffer;
            int timestamp;
            if (!WebPAnimDecoderGetNext(decoder, &buffer, &timestamp)) {
                WebPAnimDecoderDelete(decoder);
                return -1;
            }
            decoded++;
        }
        WebPAnimDecoderDelete(decoder);
        *frames += (uint64_t)decoded;
        *pixels += (uint64_t)decoded * (uint64_t)width * (uint64_t)height;
        return 0;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return -1;
    config.output.colorspace = MODE_RGBA;
    enum webp_output output = webp_output;
    if (output == WEBP_YUV) {
        /* YUV output only for lossy stills without alpha; the others as with eighth. */
        if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) return -1;
        if (config.input.format == 1 && !config.input.has_alpha) {
            config.output.colorspace = MODE_YUV;
        } else {
            output = WEBP_EIGHTH;
        }
    }
    if (output == WEBP_EIGHTH) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width / 8 > 1 ? width / 8 : 1;
        config.options.scaled_height = height / 8 > 1 ? height / 8 : 1;
    }
    VP8StatusCode status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) return -1;
    *frames += 1;
    *pixels += (uint64_t)width * (uint64_t)height;
    return 0;
}

/* --- AVIF --- */
static int decode_avif(const uint8_t *data, size_t size, uint64_t *frames, uint64_t *pixels) {
    avifDecoder *decoder = avifDecoderCreate();
    if (decoder == NULL) return -1;
    decoder->maxThreads = 1;
    decoder->imageCountLimit = 0;
    int result = -1;
    if (avifDecoderSetIOMemory(decoder, data, size) != AVIF_RESULT_OK) goto done;
    if (avifDecoderParse(decoder) != AVIF_RESULT_OK) goto done;
    int count = decoder->imageCount > 0 ? decoder->imageCount : 1;
    for (int frame = 0; frame < count; frame++) {
        if (avifDecoderNextImage(decoder) != AVIF_RESULT_OK) goto done;
        if (avif_rgb) {
            avifRGBImage rgb;
            avifRGBImageSetDefaults(&rgb, decoder->image);
            rgb.format = AVIF_RGB_FORMAT_RGBA;
            rgb.depth = 8;
            avifRGBImageAllocatePixels(&rgb);
            avifResult converted = avifImageYUVToRGB(decoder->image, &rgb);
            avifRGBImageFreePixels(&rgb);
            if (converted != AVIF_RESULT_OK) goto done;
        }
        *frames += 1;
        *pixels += (uint64_t)decoder->image->width * decoder->image->height;
    }
    result = 0;
done:
    avifDecoderDestroy(decoder);
    return result;
}

/* --- GIF --- */
struct gif_source {
    const uint8_t *data;
    size_t size, offset;
};

static int gif_read(GifFileType *gif, GifByteType *buffer, int count) {
    struct gif_source *source = gif->UserData;
    size_t left = source->size - source->offset;
    size_t length = (size_t)count < left ? (size_t)count : left;
    memcpy(buffer, source->data + source->offset, length);
    source->offset += length;
    return (int)length;
}

static int decode_gif(const uint8_t *data, size_t size, uint64_t *frames, uint64_t *pixels) {
    struct gif_source source = {data, size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&source, gif_read, &error);
    if (gif == NULL) return -1;
    int result = -1, count = 0;
    uint64_t canvas_w = (uint64_t)gif->SWidth, canvas_h = (uint64_t)gif->SHeight;
    GifPixelType *row = NULL;
    int row_size = 0;
    for (;;) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) != GIF_OK) goto done;
        if (record == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) != GIF_OK) goto done;
            int width = gif->Image.Width, height = gif->Image.Height;
            if (width <= 0 || height <= 0) goto done;
            if ((uint64_t)(gif->Image.Left + width) > canvas_w) canvas_w = (uint64_t)(gif->Image.Left + width);
            if ((uint64_t)(gif->Image.Top + height) > canvas_h) canvas_h = (uint64_t)(gif->Image.Top + height);
            if (row_size < width) {
                free(row);
                row = malloc((size_t)width);
                row_size = width;
            }
            for (int y = 0; y < height; y++) {
                if (DGifGetLine(gif, row, width) != GIF_OK) goto done;
            }
            count++;
        } else if (record == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *block;
            if (DGifGetExtension(gif, &code, &block) != GIF_OK) goto done;
            while (block != NULL) {
                if (DGifGetExtensionNext(gif, &block) != GIF_OK) goto done;
            }
        } else if (record == TERMINATE_RECORD_TYPE) {
            break;
        } else {
            goto done;
        }
    }
    if (count > 0) {
        result = 0;
        *frames += (uint64_t)count;
        *pixels += (uint64_t)count * canvas_w * canvas_h;
    }
done:
    free(row);
    DGifCloseFile(gif, NULL);
    return result;
}

/* --- JPEG XL --- */
static void drop_pixels(void *opaque, size_t x, size_t y, size_t count, const void *pixels) {
    (void)opaque, (void)x, (void)y, (void)count, (void)pixels;
}

static int decode_jxl(const uint8_t *data, size_t size, uint64_t *frames, uint64_t *pixels) {
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    if (decoder == NULL) return -1;
    int result = -1, count = 0;
    uint64_t width = 0, height = 0;
    if (JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_FRAME | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(decoder, data, size) != JXL_DEC_SUCCESS)
        goto done;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo info;
            JxlDecoderGetBasicInfo(decoder, &info);
            width = info.xsize;
            height = info.ysize;
        } else if (status == JXL_DEC_FRAME) {
            count++;
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
            if (JxlDecoderSetImageOutCallback(decoder, &format, drop_pixels, NULL) != JXL_DEC_SUCCESS) goto done;
        } else if (status == JXL_DEC_FULL_IMAGE) {
            continue;
        } else if (status == JXL_DEC_SUCCESS) {
            break;
        } else {
            goto done;
        }
    }
    if (count > 0) {
        result = 0;
        *frames += (uint64_t)count;
        *pixels += (uint64_t)count * width * height;
    }
done:
    JxlDecoderDestroy(decoder);
    return result;
}

/* --- driver --- */
static int decode_file(const char *path, uint64_t *frames, uint64_t *pixels) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat info;
    if (fstat(fd, &info) != 0 || info.st_size < 12) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)info.st_size;
    const uint8_t *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (data == MAP_FAILED) return -1;
    int result;
    if (memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        result = decode_webp(data, size, frames, pixels);
    } else if (memcmp(data + 4, "ftyp", 4) == 0) {
        result = decode_avif(data, size, frames, pixels);
    } else if (memcmp(data, "GIF8", 4) == 0) {
        result = decode_gif(data, size, frames, pixels);
    } else if ((data[0] == 0xFF && data[1] == 0x0A) || memcmp(data, "\0\0\0\x0CJXL \r\n\x87\n", 12) == 0) {
        result = decode_jxl(data, size, frames, pixels);
    } else {
        result = -1;
    }
    munmap((void *)data, size);
    return result;
}

static void *worker(void *unused) {
    (void)unused;
    uint64_t frames = 0, pixels = 0, failed = 0;
    for (;;) {
        size_t index = atomic_fetch_add(&next_path, 1);
        if (index >= path_count) break;
        if (decode_file(paths[index], &frames, &pixels) != 0) {
            fprintf(stderr, "decode-ref: %s: does not decode\n", paths[index]);
            failed++;
        }
    }
    atomic_fetch_add(&total_frames, frames);
    atomic_fetch_add(&total_pixels, pixels);
    atomic_fetch_add(&total_failed, failed);
    return NULL;
}

static void usage(void) {
    fprintf(stderr, "usage: decode-ref [--threads N] [--webp-scale eighth|full|yuv] [--avif-rgb] LIST\n");
    exit(2);
}

int main(int argc, char **argv) {
    int threads = 1;
    const char *list = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--webp-scale") == 0 && i + 1 < argc) {
            const char *scale = argv[++i];
            if (strcmp(scale, "full") == 0) webp_output = WEBP_FULL;
            else if (strcmp(scale, "eighth") == 0) webp_output = WEBP_EIGHTH;
            else if (strcmp(scale, "yuv") == 0) webp_output = WEBP_YUV;
            else usage();
        } else if (strcmp(argv[i], "--avif-rgb") == 0) {
            avif_rgb = 1;
        } else if (list == NULL && argv[i][0] != '-') {
            list = argv[i];
        } else {
            usage();
        }
    }
    if (list == NULL || threads < 1) usage();
    FILE *file = fopen(list, "r");
    if (file == NULL) {
        fprintf(stderr, "decode-ref: %s: %s\n", list, strerror(errno));
        return 2;
    }
    size_t capacity = 1024;
    paths = malloc(capacity * sizeof *paths);
    char *line = NULL;
    size_t line_size = 0;
    ssize_t length;
    while ((length = getline(&line, &line_size, file)) > 0) {
        if (line[length - 1] == '\n') line[--length] = '\0';
        if (length == 0) continue;
        if (path_count == capacity) paths = realloc(paths, (capacity *= 2) * sizeof *paths);
        paths[path_count++] = strdup(line);
    }
    free(line);
    fclose(file);
    pthread_t ids[64];
    if (threads > 64) threads = 64;
    for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
    printf("files %zu frames %llu pixels %llu failed %llu\n", path_count, (unsigned long long)total_frames,
           (unsigned long long)total_pixels, (unsigned long long)total_failed);
    return total_failed ? 1 : 0;
}
