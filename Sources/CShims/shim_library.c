#include "library_table.h"

#include <dlfcn.h>
#include <stdio.h>

static int open_once(struct pf_library *library) {
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(library->failure, sizeof library->failure, "%s", dlerror());
        return -1;
    }
    for (size_t index = 0; index < library->count; index++) {
        void *symbol = dlsym(handle, library->symbols[index].name);
        if (symbol == NULL) {
            snprintf(library->failure, sizeof library->failure, "%s", dlerror());
            return -1;
        }
        *library->symbols[index].slot = symbol;
    }
    return 1;
}

int pf_library_open(struct pf_library *library, char *message, size_t message_size) {
    pthread_mutex_lock(&library->lock);
    if (library->state == 0) library->state = open_once(library);
    int state = library->state;
    pthread_mutex_unlock(&library->lock);
    if (state == 1) return 0;
    snprintf(message, message_size, "%s", library->failure);
    return -1;
}
