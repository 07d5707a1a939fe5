/* `btc check` of an app's kernel symbols: each `cpu:` kernel and the `io:`
 * symbol must be defined by the app's C sources, each `cuda:` launcher
 * named in its CUDA sources, so a misspelling is an error at its YAML
 * line:col instead of a linker error at build time (issue 26). */
#ifndef BTC_SYMBOL_CHECK_H
#define BTC_SYMBOL_CHECK_H

#include <stdbool.h>

#include "front/app.h"
#include "util/diag.h"

/* Compiles each of app->cpu_sources alone with the system C compiler ($CC,
 * else cc; -fopenmp, the app's include folders, the runtime's headers and
 * the TaskObject header btc generates, into a temporary folder that is
 * removed afterwards) and reads the symbols each object defines with
 * `nm -g --defined-only`. A stage's `cpu:` symbol or the app's `io:`
 * symbol that no object defines is an error at its YAML value. When a
 * source does not compile on its own, or cc or nm is missing, a note says
 * the C symbols were not checked (the build reports the real error).
 * CUDA launchers are looked for as whole words in app->cuda_sources (no
 * nvcc run: it may be absent and is slow); one found nowhere is an error.
 * Returns true when no error was reported. */
bool btc_gen_check_symbols(const struct btc_app *app, struct btc_diag *d);

#endif
