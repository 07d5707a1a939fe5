/* libFuzzer targets of btc's input readers (docs/fuzzing.md). Each file
 * defines LLVMFuzzerTestOneInput; built with -fsanitize=fuzzer it is a
 * fuzzer, linked with replay.c it replays a corpus (a meson test). */
#ifndef BTC_TEST_FUZZ_H
#define BTC_TEST_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (caller frees); text readers stop at
 * the first NUL byte, as they would reading a file. */
char *fuzz_text(const uint8_t *data, size_t size);

/* The path of a memory file holding exactly `data` (for readers that
 * take a path); valid until the next call. */
const char *fuzz_file(const uint8_t *data, size_t size);

#endif
