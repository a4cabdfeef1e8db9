#ifndef PREFETCHD_SHIMS_LIBRARY_TABLE_H
#define PREFETCHD_SHIMS_LIBRARY_TABLE_H

#include <pthread.h>
#include <stddef.h>

/* A shared library prefetchd opens with dlopen on first use instead of linking it, so that a process
   that never calls it does not load it, nor the libraries under it, at start; and the functions
   taken from it into a table of pointers. */

/* One function: its name in the library and the table field it goes into. */
struct pf_library_symbol {
    const char *name;
    void **slot;
};

struct pf_library {
    const char *soname;
    const struct pf_library_symbol *symbols;
    size_t count;
    pthread_mutex_t lock;
    /* 0 not opened yet, 1 opened with every slot filled, -1 failed (for good: failure says why). */
    int state;
    char failure[384];
};

/* Opens the library (RTLD_NOW | RTLD_LOCAL: its symbols stay out of the process's global scope) and
   fills every slot, once per process (thread-safe). Returns 0, or -1 with the loader's reason
   (dlerror) in message. */
int pf_library_open(struct pf_library *library, char *message, size_t message_size);

/* Defines the table `name` (declared by PF_LIBRARY_TABLE, library_declaration.h) of the library
   `soname`, the list FUNCTIONS naming each field's function, and name_library, which opens it. */
#define PF_TABLE_SLOT(field, function) {#function, (void **)&table.field},
#define PF_LIBRARY_DEFINITION(name, soname, FUNCTIONS)                                                      \
    static struct name table;                                                                              \
    static const struct pf_library_symbol symbols[] = {FUNCTIONS(PF_TABLE_SLOT)};                          \
    static struct pf_library library = {(soname), symbols, sizeof symbols / sizeof symbols[0],              \
                                        PTHREAD_MUTEX_INITIALIZER, 0, ""};                                   \
    const struct name *name##_library(char *message, size_t message_size) {                                \
        return pf_library_open(&library, message, message_size) == 0 ? &table : NULL;                      \
    }

#endif
