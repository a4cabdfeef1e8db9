#ifndef PREFETCHD_SHIMS_TERMINAL_H
#define PREFETCHD_SHIMS_TERMINAL_H

/* The columns of the terminal on descriptor `fd` (TIOCGWINSZ, through the variadic ioctl Swift
   cannot call), or 0 when it is not a terminal or does not say. */
int pf_terminal_columns(int fd);

#endif
