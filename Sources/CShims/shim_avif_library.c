#include "../CAVIF/shim.h"
#include "library_table.h"

/* The soname of the libavif whose header this is built with (Debian 12's). */
_Static_assert(AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11, "libavif.so.15 is libavif 0.11's soname");

PF_LIBRARY_DEFINITION(pf_avif, "libavif.so.15", PF_AVIF_FUNCTIONS)
