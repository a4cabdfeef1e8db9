#include <sqlite3.h>
#include "CShimsSQLite.h"

int pf_sqlite_without_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
