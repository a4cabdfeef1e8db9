#include <malloc.h>
#include "CShimsMalloc.h"

int pf_limit_malloc_arenas(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}
