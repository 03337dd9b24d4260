// libFuzzer's driver, as compiler-rt declares it (FuzzerInterface.h): runs the fuzzer on
// `callback` with the command line's flags. Linked from libclang_rt.fuzzer by -sanitize=fuzzer.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
