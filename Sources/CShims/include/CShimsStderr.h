#ifndef PREFETCHD_SHIMS_STDERR_H
#define PREFETCHD_SHIMS_STDERR_H

#include <stddef.h>

/* libjxl 0.7 and dav1d write their failure traces straight to stderr (fortified fprintf), with no
   API to read them. While a thread has a capture open, what those libraries print to stderr from
   that thread goes into its buffer instead, so the trace becomes the rejection's detail and never
   reaches the terminal; every other write to stderr, and other threads', pass through untouched.
   The buffer always ends in a NUL; text beyond it is dropped. */
void pf_stderr_capture_begin(char *buffer, size_t size);
/* Closes the thread's capture; returns how many bytes it holds. */
size_t pf_stderr_capture_end(void);

#endif
