/* The joint plan in a workload project (gen.h; docs/codegen.md,
 * "Workload projects"): the service cores of each joint candidate's
 * streams, and workload.c's tables of streams and candidates. */
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/gen_joint.h"

/* Whether stream s of candidate k runs a chunk on PU u. */
static bool runs_on(const struct btc_joint_plan *j, int k, int s, int u)
{
	const int *v = j->result.c[k].a + btc_multi_offset(&j->m, s);
	for (int i = 0; i < j->streams[s].p->n_stages; i++)
		if (v[i] == u)
			return true;
	return false;
}

static bool has_gpu_chunk(const struct btc_joint_plan *j, int k, int s)
{
	for (int u = 0; u < j->dev->n_pus; u++)
		if (j->dev->pus[u].kind != BTC_BACKEND_CPU && runs_on(j, k, s, u))
			return true;
	return false;
}

void btc_gen_joint_service(const struct btc_joint_plan *j, int k, int *cores)
{
	int S = j->n_streams;
	for (int i = 0; i < 3 * S; i++)
		cores[i] = -1;
	/* a workload stream runs one loader and one check worker (its
	 * on_task_done keeps the io farms off: docs/runtime.md) */
	struct btc_gen_service sv = btc_gen_service_cores(j->dev, 1, 1);
	if (sv.pu < 0)
		return;
	/* the free cores: the single-app service cores, then every idle
	 * CPU PU's pinnable cores, highest first */
	int n_free = 0, cap = 3;
	for (int u = 0; u < j->dev->n_pus; u++) {
		const int *pin;
		cap += btc_pu_pinnable(&j->dev->pus[u], &pin);
	}
	int *free_cores = btc_xcalloc((size_t)cap, sizeof(int));
	free_cores[n_free++] = sv.io_core;
	free_cores[n_free++] = sv.io_sink_core;
	free_cores[n_free++] = sv.gpu_core;
	for (int u = j->dev->n_pus - 1; u >= 0; u--) {
		const struct btc_pu *pu = &j->dev->pus[u];
		if (pu->kind != BTC_BACKEND_CPU)
			continue;
		bool busy = false;
		for (int s = 0; s < S && !busy; s++)
			busy = runs_on(j, k, s, u);
		if (busy)
			continue;
		const int *pin;
		int n = btc_pu_pinnable(pu, &pin);
		for (int c = n - 1; c >= 0; c--) {
			bool dup = false;
			for (int f = 0; f < n_free && !dup; f++)
				dup = free_cores[f] == pin[c];
			if (!dup)
				free_cores[n_free++] = pin[c];
		}
	}
	int next = 0;
	for (int s = 0; s < S; s++) {
		cores[3 * s] = free_cores[next++ % n_free];
		cores[3 * s + 1] = free_cores[next++ % n_free];
		if (has_gpu_chunk(j, k, s))
			cores[3 * s + 2] = free_cores[next++ % n_free];
	}
	free(free_cores);
}

void btc_gen_joint_tables(struct btc_out *o, const struct btc_joint_plan *j)
{
	int S = j->n_streams;
	int *cores = btc_xcalloc((size_t)S * 3, sizeof(int));
	for (int k = 0; k < j->result.n; k++) {
		btc_gen_joint_service(j, k, cores);
		const struct btc_multi_eval *e = &j->evals[k];
		btc_outl(o, "/* joint candidate %d: predicted max-min normalised throughput %.4f */", k,
			 btc_joint_min_normalised(j, e));
		btc_outl(o, "static const struct btrt_workload_joint_stream joint_%d[] = {", k);
		for (int s = 0; s < S; s++)
			btc_outl(o, "\t{ .schedule = %d, .service_cores = { %d, %d, %d }, .rate = %.6g "
				 "}, /* %s */", j->schedule[k * S + s], cores[3 * s], cores[3 * s + 1],
				 cores[3 * s + 2], 1000.0 * e->rate[s], j->names[s]);
		btc_outl(o, "};");
	}
	free(cores);
	btc_outl(o, "static const struct btrt_workload_joint joint[] = {");
	for (int k = 0; k < j->result.n; k++)
		btc_outl(o, "\t{ .predicted = %.6g, .streams = joint_%d },",
			 btc_joint_min_normalised(j, &j->evals[k]), k);
	btc_outl(o, "};");
	btc_out_nl(o);
}

void btc_gen_joint_streams(struct btc_out *o, const struct btc_gen_ctx *ctxs,
			   const struct btc_joint_plan *j)
{
	for (int s = 0; s < j->n_streams; s++) {
		int a = j->streams[s].app;
		btc_outl(o, "\t\t{ .prog = %s_workload_program, .schedule = %d, .solo_schedule = %d "
			 "}, /* %s */", ctxs[a].app->name, j->schedule[s],
			 j->apps[a].solo_vector, j->names[s]);
	}
}
