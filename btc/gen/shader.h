/* GLSL compute shaders to SPIR-V with the shaderc C library, so that
 * generated projects embed SPIR-V and need no shader compiler. */
#ifndef BTC_SHADER_H
#define BTC_SHADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

/* Compiles the compute shader at `path` (Vulkan 1.1 target, optimised for
 * performance, no debug info so the bytes do not depend on paths).
 * `#include "X"` is resolved next to the including file, except that
 * `virtual_name` (e.g. "octree_layout.glsl"), when not NULL, is served
 * from `virtual_text` (the generated layout). On success stores a new
 * array of SPIR-V words (caller frees) and its length in words. Shader
 * errors are reported as `file:line: error: message`, one per line of the
 * compiler's log; returns false then. */
bool btc_shader_compile(const char *path, const char *virtual_name, const char *virtual_text,
			uint32_t **words, size_t *n_words, struct btc_diag *d);

#endif
