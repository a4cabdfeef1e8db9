#ifndef PREFETCHD_SHIMS_SQLITE_H
#define PREFETCHD_SHIMS_SQLITE_H

/* sqlite3_config is variadic, which Swift cannot call. Turns SQLite's memory statistics off
   (SQLITE_CONFIG_MEMSTATUS): with them on, every allocation of every connection takes one global
   mutex, and connections used on different threads wait on each other there. Must run before
   SQLite initializes; SQLITE_OK (0) when it took effect. */
int pf_sqlite_without_memory_statistics(void);

#endif
