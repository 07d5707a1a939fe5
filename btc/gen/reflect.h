/* A minimal SPIR-V reader: the descriptor bindings of a compute shader
 * (set, binding, whether it may be written) and its push-constant block,
 * from the decorations shaderc emits (SPIR-V spec, 2.16 "Validation
 * Rules" and 3.20 "Decoration"). Enough for `btc check` to hold a shader
 * against its stage's declared reads, writes and push list. */
#ifndef BTC_REFLECT_H
#define BTC_REFLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btc_spirv_binding {
	uint32_t set, binding;
	bool writable; /* no NonWritable on the variable nor on every member */
};

struct btc_spirv_info {
	struct btc_spirv_binding *bindings; /* in declaration order (owned) */
	int n_bindings;
	int push_members; /* members of the push-constant block, -1: none */
};

/* Reads `words[n_words]` (a SPIR-V module). Returns false on a malformed
 * module (bad magic, an instruction past the end), with nothing to free;
 * else fills `out` (free with btc_spirv_info_free). */
bool btc_spirv_reflect(const uint32_t *words, size_t n_words, struct btc_spirv_info *out);
/* Frees what the reader allocated in *info (not info itself). */
void btc_spirv_info_free(struct btc_spirv_info *info);

#endif
