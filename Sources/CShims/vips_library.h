#ifndef PREFETCHD_SHIMS_VIPS_LIBRARY_H
#define PREFETCHD_SHIMS_VIPS_LIBRARY_H

#include <stddef.h>

#include "../CVips/shim.h"

/* Opens libvips.so.42 and finds every function of the table, once per process (thread-safe).
   Returns the table, or NULL with the loader's reason (dlerror) in message. */
const struct pf_vips *pf_vips_library(char *message, size_t message_size);

#endif
