#ifndef PREFETCHD_SHIMS_LIBRARY_DECLARATION_H
#define PREFETCHD_SHIMS_LIBRARY_DECLARATION_H

#include <stddef.h>

/* Declares the table `name` of a library prefetchd opens on first use (CShims/library_table.h): a
   struct with a field for each entry (field, function) of the list FUNCTIONS, of that function's own
   type, and name_library(message, message_size), which opens the library and fills the table once
   per process (thread-safe) and returns it, or NULL with the loader's reason (dlerror) in message. */
#define PF_TABLE_FIELD(field, function) __typeof__(function) *_Nonnull field;
#define PF_LIBRARY_TABLE(name, FUNCTIONS) \
    struct name {                         \
        FUNCTIONS(PF_TABLE_FIELD)         \
    };                                    \
    const struct name *_Nullable name##_library(char *_Nonnull message, size_t message_size);

#endif
