#define _GNU_SOURCE
#include "CShimsStderr.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static __thread char *pf_capture_buffer;
static __thread size_t pf_capture_size;
static __thread size_t pf_capture_length;

typedef int (*pf_vfprintf_chk)(FILE *, int, const char *, va_list);
static pf_vfprintf_chk pf_real_vfprintf_chk;
static pthread_once_t pf_real_once = PTHREAD_ONCE_INIT;

static void pf_find_real(void) {
    pf_real_vfprintf_chk = (pf_vfprintf_chk)dlsym(RTLD_NEXT, "__vfprintf_chk");
}

void pf_stderr_capture_begin(char *buffer, size_t size) {
    if (size > 0) {
        buffer[0] = '\0';
    }
    pf_capture_buffer = buffer;
    pf_capture_size = size;
    pf_capture_length = 0;
}

size_t pf_stderr_capture_end(void) {
    pf_capture_buffer = NULL;
    return pf_capture_length;
}

/* The fortified entry points the libraries call (glibc's own; our definitions interpose them). */
int __vfprintf_chk(FILE *stream, int flag, const char *format, va_list args) {
    if (stream == stderr && pf_capture_buffer != NULL) {
        size_t room = pf_capture_size - pf_capture_length;
        if (room <= 1) {
            return 0;
        }
        int written = vsnprintf(pf_capture_buffer + pf_capture_length, room, format, args);
        if (written > 0) {
            pf_capture_length += (size_t)written < room ? (size_t)written : room - 1;
        }
        return written;
    }
    pthread_once(&pf_real_once, pf_find_real);
    return pf_real_vfprintf_chk(stream, flag, format, args);
}

int __fprintf_chk(FILE *stream, int flag, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int written = __vfprintf_chk(stream, flag, format, args);
    va_end(args);
    return written;
}
