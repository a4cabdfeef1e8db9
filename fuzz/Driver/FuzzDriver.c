#include "FuzzDriver.h"

#include <stdio.h>

/* libFuzzer's entry point for a program with its own main; weak, so the replayer build (without
   -sanitize=fuzzer) links without it. */
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size))
    __attribute__((weak));

int pf_fuzz_run_driver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size)) {
    if (LLVMFuzzerRunDriver == NULL) {
        fprintf(stderr, "not built with -sanitize=fuzzer: libFuzzer is not linked in\n");
        return -1;
    }
    return LLVMFuzzerRunDriver(argc, argv, test_one_input);
}
