#ifndef PREFETCHD_FUZZ_DRIVER_H
#define PREFETCHD_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/* Runs libFuzzer's driver (LLVMFuzzerRunDriver) over `test_one_input` with the process's arguments.
   The fuzz executables have a main of their own (SwiftPM links each executable's entry point as
   `main`), so libFuzzer's main is never linked and the driver is started from here. Returns -1 when
   the executable was not built with -sanitize=fuzzer. */
int pf_fuzz_run_driver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));

#endif
