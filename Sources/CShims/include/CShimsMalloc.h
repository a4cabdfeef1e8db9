#ifndef PREFETCHD_SHIMS_MALLOC_H
#define PREFETCHD_SHIMS_MALLOC_H

#include <stddef.h>

/* glibc's mallopt lives in <malloc.h>, which the Glibc module does not bring into Swift. */
int pf_limit_malloc_arenas(int arenas);
/* Frees at the top of a heap beyond trim_threshold bytes go back to the system, and allocations of
   mmap_threshold bytes or more are mapped on their own (M_TRIM_THRESHOLD, M_MMAP_THRESHOLD; setting
   them turns glibc's own adjustment of both off). 1 when both were set. */
int pf_keep_freed_heap(size_t trim_threshold, size_t mmap_threshold);

#endif
