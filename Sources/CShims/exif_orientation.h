#ifndef PREFETCHD_EXIF_ORIENTATION_H
#define PREFETCHD_EXIF_ORIENTATION_H

#include <stddef.h>
#include <stdint.h>

/* The Orientation tag (0x0112) of IFD0 in a JPEG's APP1 segment (its data, from "Exif\0\0"):
   1 to 8, or 1 when the segment is not EXIF, has no such tag, or is damaged. */
int pf_exif_orientation(const uint8_t *data, size_t length);

#endif
