/* `btc check` of an app's Vulkan shaders: each is compiled exactly as
 * generation compiles it (gen/shader.h) and its SPIR-V bindings and push
 * constants (gen/reflect.h) are held against its stage's YAML. */
#ifndef BTC_SHADER_CHECK_H
#define BTC_SHADER_CHECK_H

#include <stdbool.h>

#include "front/app.h"
#include "util/diag.h"

/* Compiles every shader of `app` (once per file) and checks, per stage:
 * every binding is in descriptor set 0 and is a buffer the stage declares
 * in reads or writes (error); a buffer the stage writes is not bound only
 * `readonly` (error); a buffer it only reads is bound `readonly`
 * (warning); each dispatch's push-constant block has as many members as
 * its `push` list (error; a missing block with a non-empty list: warning).
 * Errors are at the shader's file:line:col (the line that names
 * BINDING_<buffer>, `binding = N` or push_constant; line 1 col 1 when none
 * does), each followed by a note at the stage's YAML line. Returns true
 * when no error was reported. */
bool btc_gen_check_shaders(const struct btc_app *app, struct btc_diag *d);

#endif
