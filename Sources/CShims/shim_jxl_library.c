#include "../CJXL/shim.h"
#include "library_table.h"

#include <jxl/version.h>

/* The soname of the libjxl whose header this is built with (Debian 12's). */
_Static_assert(JPEGXL_MAJOR_VERSION == 0 && JPEGXL_MINOR_VERSION == 7, "libjxl.so.0.7 is libjxl 0.7's soname");

PF_LIBRARY_DEFINITION(pf_jxl, "libjxl.so.0.7", PF_JXL_FUNCTIONS)
