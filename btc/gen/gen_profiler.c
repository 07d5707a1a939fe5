/* Generates profiler.c from templates/profiler.c.in: the tables of
 * BT-Profiler for one device (the PUs and core-count variants to measure)
 * over btrt_profiler_main (runtime/include/btrt_profiler.h). */
#include <stdio.h>
#include <stdlib.h>

#include "gen/gen.h"
#include "gen/sections.h"
#include "gen/template.h"
#include "util/escape.h"

static void emit_list(struct btc_out *o, const char *name, const int *v, int n)
{
	btc_outf(o, "static const int %s[] = {", name);
	for (int i = 0; i < n; i++)
		btc_outf(o, "%s%d", i ? ", " : " ", v[i]);
	btc_outl(o, " };");
}

/* The core-count variants of PU pu: its pinnable cores into *pin and *n
 * (btc_pu_pinnable), the counts into ks (room for 32,
 * btc_gen_core_counts); returns how many, 0 for a PU that is not a CPU. */
static int cpu_variants(const struct btc_pu *pu, const int **pin, int *n, int *ks)
{
	*n = btc_pu_pinnable(pu, pin);
	return pu->kind == BTC_BACKEND_CPU ? btc_gen_core_counts(*n, ks) : 0;
}

/* Core-count variants (issue 16): for every CPU PU of n >= 2 pinnable
 * cores and every k of btc_gen_core_counts(n), the first k pinnable cores
 * (the cores the first chunk with a count of k gets in the generated
 * pipeline) and the rest, which runs the same stage during the variant's
 * interference measurements as another chunk on the PU would (placed
 * mode: without the service core). Emits the core lists. */
static void emit_variant_cores(struct btc_out *o, const struct btc_device *dev)
{
	int owner = btc_gen_service_owner(dev);
	for (int u = 0; u < dev->n_pus; u++) {
		const struct btc_pu *pu = &dev->pus[u];
		const int *pin;
		int n, ks[32], m = cpu_variants(pu, &pin, &n, ks);
		for (int j = 0; j < m; j++) {
			char name[96];
			snprintf(name, sizeof(name), "pu_%s_k%d_cores", pu->name, ks[j]);
			emit_list(o, name, pin, ks[j]);
			snprintf(name, sizeof(name), "pu_%s_k%d_rest_cores", pu->name, ks[j]);
			emit_list(o, name, pin + ks[j], n - ks[j]);
			if (u == owner && n - ks[j] > 1) {
				snprintf(name, sizeof(name), "pu_%s_k%d_rest_placed_cores", pu->name,
					 ks[j]);
				emit_list(o, name, pin + ks[j], n - ks[j] - 1);
			}
		}
	}
}

/* The entries of the variants, after the device's PUs: "NAME[k]" (index
 * n_pus + 2i) and its rest (n_pus + 2i + 1). */
static void emit_variants(struct btc_out *o, const struct btc_device *dev)
{
	int owner = btc_gen_service_owner(dev), e = dev->n_pus;
	for (int u = 0; u < dev->n_pus; u++) {
		const struct btc_pu *pu = &dev->pus[u];
		const int *pin;
		int n, ks[32], m = cpu_variants(pu, &pin, &n, ks);
		for (int j = 0; j < m; j++, e += 2) {
			int k = ks[j];
			char *name = btc_xasprintf("%s[%d]", pu->name, k);
			char *lit = btc_c_string_literal(name);
			btc_outl(o, "\t{ %s, BTRT_PU_CPU, pu_%s_k%d_cores, %d, pu_%s_k%d_cores, %d, %d, %d, 1 },",
				 lit, pu->name, k, k, pu->name, k, k, u, e + 1);
			free(lit);
			free(name);
			name = btc_xasprintf("%s[rest of %d]", pu->name, k);
			lit = btc_c_string_literal(name);
			bool placed = u == owner && n - k > 1;
			/* placed mode on the service core's PU: the rest without the
			 * service core (none left: the rest idles) */
			btc_outl(o, "\t{ %s, BTRT_PU_CPU, pu_%s_k%d_rest_cores, %d, pu_%s_k%d_rest%s, %d, %d, -1, 0 },",
				 lit, pu->name, k, n - k, pu->name, k,
				 placed ? "_placed_cores" : "_cores",
				 placed ? n - k - 1 : u == owner ? 0 : n - k, u);
			free(lit);
			free(name);
		}
	}
}

/* The PUs the profiler measures (struct btrt_profiler_pu): the device's,
 * then the core-count variants. */
static void emit_profiler_pus(struct btc_out *o, const void *p)
{
	const struct btc_gen_ctx *ctx = p;
	const struct btc_device *dev = ctx->dev;
	btc_gen_emit_pu_cores(o, dev, 1, 1); /* placed mode: one loader, one checker */
	emit_variant_cores(o, dev);
	btc_out_nl(o);
	btc_outl(o, "/* name, kind, cores as the device declares them (interference), cores");
	btc_outl(o, " * as the pipeline pins them (isolated, placed), the variant's PU (-1:");
	btc_outl(o, " * none), its rest, measured */");
	btc_outl(o, "static const struct btrt_profiler_pu profiler_pus[] = {");
	for (int u = 0; u < dev->n_pus; u++) {
		const struct btc_pu *pu = &dev->pus[u];
		char cores[64] = "NULL", placed[64];
		const int *pin;
		int n_pin = btc_pu_pinnable(pu, &pin);
		if (n_pin)
			snprintf(cores, sizeof(cores), "pu_%s_cores", pu->name);
		int n_placed = btc_gen_placed_cores(dev, u, 1, 1, placed, sizeof(placed));
		char *name = btc_c_string_literal(pu->name);
		btc_outl(o, "\t{ %s, %s, %s, %d, %s, %d, -1, -1, 1 },", name,
			 btc_gen_pu_kind_enum(pu->kind), cores, n_pin, placed, n_placed);
		free(name);
	}
	emit_variants(o, dev);
	btc_outl(o, "};");
	btc_outl(o, "#define N_DEVICE_PUS %d /* the rest: core-count variants (--core-counts) */",
		 dev->n_pus);
}

bool btc_gen_profiler_c(struct btc_out *o, const struct btc_gen_ctx *ctx, struct btc_diag *d)
{
	static const struct btc_section sections[] = {
		BTC_GEN_PROGRAM_SECTIONS,
		{"profiler_pus", emit_profiler_pus},
	};
	return btc_template_expand(o, "profiler.c.in", sections,
				   (int)(sizeof(sections) / sizeof(sections[0])), ctx, d);
}
