#include "exif_orientation.h"

#include <string.h>

static uint32_t read16(const uint8_t *p, int little) {
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | (uint32_t)p[1];
}

static uint32_t read32(const uint8_t *p, int little) {
    return little ? read16(p, 1) | read16(p + 2, 1) << 16 : read16(p, 0) << 16 | read16(p + 2, 0);
}

int pf_exif_orientation(const uint8_t *data, size_t length) {
    if (length < 6 + 8 || memcmp(data, "Exif\0\0", 6) != 0) return 1;
    const uint8_t *tiff = data + 6;
    size_t size = length - 6;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
    else return 1;
    uint32_t ifd = read32(tiff + 4, little);
    if (ifd > size - 2) return 1;
    uint32_t count = read16(tiff + ifd, little);
    for (uint32_t i = 0; i < count; i++) {
        size_t entry = (size_t)ifd + 2 + (size_t)i * 12;
        if (entry + 12 > size) return 1;
        if (read16(tiff + entry, little) != 0x0112) continue;
        /* SHORT, count 1: the value is in the entry's first two bytes. */
        if (read16(tiff + entry + 2, little) != 3) return 1;
        uint32_t value = read16(tiff + entry + 8, little);
        return value >= 1 && value <= 8 ? (int)value : 1;
    }
    return 1;
}
