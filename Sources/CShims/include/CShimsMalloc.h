#ifndef PREFETCHD_SHIMS_MALLOC_H
#define PREFETCHD_SHIMS_MALLOC_H

/* glibc's mallopt lives in <malloc.h>, which the Glibc module does not bring into Swift. */
int pf_limit_malloc_arenas(int arenas);

#endif
