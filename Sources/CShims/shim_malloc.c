#include <malloc.h>
#include "CShimsMalloc.h"

int pf_limit_malloc_arenas(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}

int pf_keep_freed_heap(size_t trim_threshold, size_t mmap_threshold) {
    return mallopt(M_TRIM_THRESHOLD, (int)trim_threshold) && mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold);
}
