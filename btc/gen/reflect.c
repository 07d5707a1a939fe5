/* SPIR-V reflection of bindings and push constants (gen/reflect.h). One
 * pass collects the decorations, types and variables by id; a second
 * resolves each interface variable. */
#include "gen/reflect.h"

#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

/* The few opcodes, decorations and storage classes read here (SPIR-V
 * 1.0-1.6 unified spec, sections 3.20, 3.7 and 3.42). */
enum {
	OP_TYPE_STRUCT = 30,
	OP_TYPE_POINTER = 32,
	OP_VARIABLE = 59,
	OP_DECORATE = 71,
	OP_MEMBER_DECORATE = 72,
	DEC_NON_WRITABLE = 24,
	DEC_BINDING = 33,
	DEC_DESCRIPTOR_SET = 34,
	SC_PUSH_CONSTANT = 9,
	SPIRV_MAGIC = 0x07230203,
};

/* What is known about one id. */
struct id_info {
	int has_binding;
	uint32_t binding, set;
	bool non_writable; /* on the id itself */
	int n_members;     /* OpTypeStruct: member count, else -1 */
	int n_nw_members;  /* members decorated NonWritable */
	uint32_t pointee;  /* OpTypePointer: pointed-to type */
	bool is_var;
	uint32_t var_type, var_class;
};

bool btc_spirv_reflect(const uint32_t *w, size_t n, struct btc_spirv_info *out)
{
	memset(out, 0, sizeof(*out));
	out->push_members = -1;
	if (n < 5 || w[0] != SPIRV_MAGIC || w[3] == 0 || w[3] > (1u << 24))
		return false;
	uint32_t bound = w[3];
	struct id_info *ids = btc_xcalloc(bound, sizeof(*ids));
	for (uint32_t i = 0; i < bound; i++)
		ids[i].n_members = -1;
	bool ok = true;
	for (size_t p = 5; p < n;) {
		uint32_t wc = w[p] >> 16, op = w[p] & 0xffff;
		if (wc == 0 || p + wc > n) {
			ok = false;
			break;
		}
		const uint32_t *a = &w[p + 1];
		uint32_t na = wc - 1;
		if (op == OP_DECORATE && na >= 2 && a[0] < bound) {
			struct id_info *t = &ids[a[0]];
			if (a[1] == DEC_BINDING && na >= 3)
				t->has_binding = 1, t->binding = a[2];
			else if (a[1] == DEC_DESCRIPTOR_SET && na >= 3)
				t->set = a[2];
			else if (a[1] == DEC_NON_WRITABLE)
				t->non_writable = true;
		} else if (op == OP_MEMBER_DECORATE && na >= 3 && a[0] < bound) {
			if (a[2] == DEC_NON_WRITABLE)
				ids[a[0]].n_nw_members++;
		} else if (op == OP_TYPE_STRUCT && na >= 1 && a[0] < bound) {
			ids[a[0]].n_members = (int)na - 1;
		} else if (op == OP_TYPE_POINTER && na >= 3 && a[0] < bound) {
			ids[a[0]].pointee = a[2];
		} else if (op == OP_VARIABLE && na >= 3 && a[1] < bound) {
			ids[a[1]].is_var = true;
			ids[a[1]].var_type = a[0];
			ids[a[1]].var_class = a[2];
		}
		p += wc;
	}
	for (uint32_t i = 0; ok && i < bound; i++) {
		const struct id_info *v = &ids[i];
		if (!v->is_var || v->var_type >= bound)
			continue;
		uint32_t st = ids[v->var_type].pointee;
		const struct id_info *s = st < bound ? &ids[st] : NULL;
		if (v->var_class == SC_PUSH_CONSTANT) {
			out->push_members = s && s->n_members >= 0 ? s->n_members : 0;
			continue;
		}
		if (!v->has_binding)
			continue;
		out->bindings = btc_xrealloc(out->bindings, (size_t)(out->n_bindings + 1) *
								    sizeof(*out->bindings));
		bool ro = v->non_writable ||
			  (s && (s->non_writable ||
				 (s->n_members > 0 && s->n_nw_members >= s->n_members)));
		out->bindings[out->n_bindings++] = (struct btc_spirv_binding){v->set, v->binding,
									      !ro};
	}
	free(ids);
	if (!ok)
		btc_spirv_info_free(out);
	return ok;
}

void btc_spirv_info_free(struct btc_spirv_info *info)
{
	free(info->bindings);
	memset(info, 0, sizeof(*info));
	info->push_members = -1;
}
