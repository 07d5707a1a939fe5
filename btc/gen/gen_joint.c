/* The joint plan in a workload project (gen.h; docs/codegen.md,
 * "Workload projects"): the service cores of each joint candidate's
 * streams, the core sets of co-located CPU chunks, and workload.c's
 * tables of streams and candidates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "front/table.h"
#include "gen/gen.h"
#include "gen/gen_joint.h"
#include "gen/sections.h"
#include "sched/model.h"

/* One entry of a stream's generated chunk table (gen_pipeline.c): a
 * chunk, or one member of a farm (members in PU order), with its load on
 * its PU per task (ms, with sigma): all cores t, k of n cores k / n x
 * t_k, an admitted farm member farm_ms, a member left out 0. */
struct entry {
	int pu;
	double load;
};

/* Stream s's entries in candidate k (at most n_stages x n_pus); their
 * count. */
static int entries(const struct btc_joint_plan *j, int k, int s, struct entry *out)
{
	const struct btc_sched_problem *p = j->streams[s].p;
	const struct btc_multi_eval *e = &j->evals[k];
	int np = j->m.n_pus, n = 0;
	struct btc_sched_chunk *ch = btc_xcalloc((size_t)p->n_stages, sizeof(*ch));
	int nc = btc_multi_stream_schedule(&j->m, s, j->result.c[k].a + btc_multi_offset(&j->m, s),
					   ch);
	for (int c = 0; c < nc; c++) {
		uint32_t adm = 0;
		int extra;
		if (ch[c].farm)
			adm = btc_model_farm_admitted(p, &ch[c], &extra);
		for (int u = 0; u < np; u++) {
			if (!((ch[c].farm ? ch[c].farm : 1u << ch[c].pu) & (1u << u)))
				continue;
			double t = ch[c].time_ms;
			if (ch[c].farm && !(adm & (1u << u)))
				t = 0;
			else if (ch[c].cores)
				t *= (double)ch[c].cores / p->cores[u].size;
			out[n++] = (struct entry){u, t * (e->sigma ? e->sigma[s * np + u] : 1)};
		}
	}
	free(ch);
	return n;
}

/* Whether stream s of candidate k runs a chunk (or a farm member) on PU u. */
static bool runs_on(const struct btc_joint_plan *j, int k, int s, int u)
{
	struct entry *en = btc_xcalloc((size_t)j->streams[s].p->n_stages * (size_t)j->m.n_pus,
				       sizeof(*en));
	int n = entries(j, k, s, en);
	bool on = false;
	for (int i = 0; i < n && !on; i++)
		on = en[i].pu == u;
	free(en);
	return on;
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
	/* Each service thread's CPU load at the candidate's rates (cores):
	 * source r_s T_load, sink r_s T_check, GPU dispatchers r_s x its
	 * GPU chunks' time (they wait for their streams, spinning by
	 * default: docs/runtime.md "CUDA"). Heaviest first, each to the
	 * least loaded free core (ties: fewer threads, then the free cores'
	 * order): no two threads share a core while one is free, and where
	 * they must, the io checks and dispatchers of several streams are
	 * spread instead of piled by role (round robin by role put every
	 * stream's sink on one core and every dispatcher on another). */
	const struct btc_multi_eval *e = &j->evals[k];
	int n_th = 0;
	struct th {
		double load;
		int slot;
	} *th = btc_xcalloc((size_t)(3 * S), sizeof(*th));
	for (int s = 0; s < S; s++) {
		const struct btc_joint_app *x = &j->apps[j->streams[s].app];
		double ld = NAN, ck = NAN;
		double io = btc_table_io_ms(x->table, j->plan.mode, 1, 1, &ld, &ck);
		double r = isfinite(e->rate[s]) ? e->rate[s] : 0, gpu = 0;
		for (int u = 0; u < j->dev->n_pus; u++)
			if (j->dev->pus[u].kind != BTC_BACKEND_CPU)
				gpu += e->t[s * j->dev->n_pus + u];
		th[n_th++] = (struct th){r * (isnan(ld) ? io : ld), 3 * s};
		th[n_th++] = (struct th){r * (isnan(ck) ? io : ck), 3 * s + 1};
		if (has_gpu_chunk(j, k, s))
			th[n_th++] = (struct th){r * gpu, 3 * s + 2};
	}
	for (int a = 1; a < n_th; a++) /* insertion sort: load down, slot up */
		for (int b = a; b > 0 && (th[b].load > th[b - 1].load ||
					  (th[b].load == th[b - 1].load && th[b].slot < th[b - 1].slot));
		     b--) {
			struct th t = th[b];
			th[b] = th[b - 1];
			th[b - 1] = t;
		}
	double *load = btc_xcalloc((size_t)n_free, sizeof(double));
	int *count = btc_xcalloc((size_t)n_free, sizeof(int));
	for (int i = 0; i < n_th; i++) {
		int best = 0;
		for (int f = 1; f < n_free; f++)
			if (load[f] < load[best] || (load[f] == load[best] && count[f] < count[best]))
				best = f;
		load[best] += th[i].load;
		count[best]++;
		cores[th[i].slot] = free_cores[best];
	}
	free(load);
	free(count);
	free(th);
	free(free_cores);
}


/* Whether quotas a and b are equal to a relative 1e-9 (the entries of
 * identical streams: one load at one rate). */
static bool same_quota(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* The number of quotas in q[0..m) equal to q[i] (i's tie group). */
static int group_size(const double *q, int m, int i)
{
	int g = 0;
	for (int x = 0; x < m; x++)
		g += same_quota(q[x], q[i]);
	return g;
}

void btc_gen_apportion(const double *q, int m, int n, int *c)
{
	int total = 0;
	for (int i = 0; i < m; i++) {
		double f = floor(q[i]);
		c[i] = f < 1 ? 1 : (int)f;
		total += c[i];
	}
	/* the cores left, to whole tie groups by largest remainder: a group
	 * larger than what is left takes it and the units of single entries
	 * raised before it (first the one whose count over quota stays the
	 * largest without it), or is passed over */
	bool *seen = btc_xcalloc((size_t)m + 1, sizeof(bool));
	bool *raised = btc_xcalloc((size_t)m + 1, sizeof(bool));
	int left = n - total;
	while (left > 0) {
		int best = -1;
		for (int i = 0; i < m; i++)
			if (!seen[i] && q[i] - c[i] > 0 &&
			    (best < 0 || q[i] - c[i] > q[best] - c[best]))
				best = i;
		if (best < 0)
			break;
		int g = 0, donors = 0;
		for (int i = 0; i < m; i++) {
			bool mine = same_quota(q[i], q[best]);
			g += mine;
			donors += !mine && raised[i] && group_size(q, m, i) == 1;
		}
		if (g > left + donors) {
			for (int i = 0; i < m; i++)
				seen[i] |= same_quota(q[i], q[best]);
			continue;
		}
		for (; left < g; left++) {
			int d = -1;
			for (int i = 0; i < m; i++)
				if (!same_quota(q[i], q[best]) && raised[i] &&
				    group_size(q, m, i) == 1 &&
				    (d < 0 || (c[i] - 1) / q[i] > (c[d] - 1) / q[d]))
					d = i;
			c[d]--;
			raised[d] = false;
		}
		for (int i = 0; i < m; i++)
			if (same_quota(q[i], q[best])) {
				c[i]++;
				seen[i] = raised[i] = true;
				left--;
			}
	}
	free(seen);
	free(raised);
	/* what no whole group could take: one at a time (ties: the lower
	 * entry) */
	for (; left > 0; left--) {
		int best = 0;
		for (int i = 1; i < m; i++)
			if (q[i] - c[i] > q[best] - c[best])
				best = i;
		c[best]++;
	}
	/* the minimum of 1 put the sum above n */
	for (; left < 0; left++) {
		int best = -1;
		for (int i = 0; i < m; i++)
			if (c[i] > 1 && (best < 0 || c[i] - q[i] > c[best] - q[best]))
				best = i;
		c[best]--;
	}
}

int btc_gen_joint_chunk_cores(const struct btc_joint_plan *j, const struct btc_gen_ctx *ctxs,
			      int k, int s, int entry, int *out)
{
	int S = j->n_streams, np = j->m.n_pus, cap = 0;
	for (int x = 0; x < S; x++)
		cap += j->streams[x].p->n_stages * np;
	struct entry *en = btc_xcalloc((size_t)cap, sizeof(*en));
	int *from = btc_xcalloc((size_t)S + 1, sizeof(int));
	for (int x = 0; x < S; x++)
		from[x + 1] = from[x] + entries(j, k, x, en + from[x]);
	int got = -1;
	if (entry < 0 || entry >= from[s + 1] - from[s])
		goto out;
	int u = en[from[s] + entry].pu;
	const struct btc_pu *pu = &j->dev->pus[u];
	if (pu->kind != BTC_BACKEND_CPU)
		goto out;
	/* the entries on u, stream by stream; the streams with one there */
	int m = 0, me = -1, n = 0, streams = 0;
	int *who = btc_xcalloc((size_t)cap, sizeof(int));
	for (int x = 0; x < S; x++) {
		bool any = false;
		for (int i = from[x]; i < from[x + 1]; i++) {
			if (en[i].pu != u)
				continue;
			if (i == from[s] + entry)
				me = m;
			who[m++] = i;
			any = true;
		}
		if (!any)
			continue;
		/* the chunk cores every sharing stream's tables have: the PU's
		 * pinnable cores less the service cores of its app's io farms
		 * (a prefix of them; the shortest) */
		uint32_t kl, kc;
		char name[64];
		btc_gen_io_threads(&ctxs[j->streams[x].app], &kl, &kc);
		int nx = btc_gen_placed_cores(j->dev, u, kl, kc, name, sizeof(name));
		n = streams++ == 0 || nx < n ? nx : n;
	}
	got = 0;
	if (streams >= 2 && m <= n) {
		/* entry x's quota of the n cores: n r_x load_x / util_u */
		const struct btc_multi_eval *e = &j->evals[k];
		double *q = btc_xcalloc((size_t)m, sizeof(double)), util = 0;
		int *c = btc_xcalloc((size_t)m, sizeof(int));
		for (int i = 0; i < m; i++) {
			int x = 0;
			while (who[i] >= from[x + 1])
				x++;
			util += q[i] = e->rate[x] * en[who[i]].load;
		}
		for (int i = 0; i < m; i++)
			q[i] = util > 0 && isfinite(util) ? n * q[i] / util : (double)n / m;
		btc_gen_apportion(q, m, n, c);
		const int *pin;
		btc_pu_pinnable(pu, &pin);
		int first = 0;
		for (int i = 0; i < me; i++)
			first += c[i];
		for (int i = 0; i < c[me]; i++)
			out[i] = pin[first + i];
		got = c[me];
		free(q);
		free(c);
	}
	free(who);
out:
	free(en);
	free(from);
	return got;
}

/* Candidate k's stream s: the core sets of its CPU entries that share
 * their PU with other streams (joint_K_S_cE[] and the joint_K_S_cores[]
 * of its entries, entry by entry of its chunk table: a farm one per
 * member). Returns the entry count when some entry has a set, else 0
 * (nothing emitted). */
static int emit_chunk_cores(struct btc_out *o, const struct btc_gen_ctx *ctxs,
			    const struct btc_joint_plan *j, int k, int s)
{
	int n_entries = 0, split = 0, cap = 0;
	for (int u = 0; u < j->dev->n_pus; u++) {
		const int *pin;
		cap += btc_pu_pinnable(&j->dev->pus[u], &pin);
	}
	struct entry *en = btc_xcalloc((size_t)j->streams[s].p->n_stages * (size_t)j->m.n_pus,
				       sizeof(*en));
	n_entries = entries(j, k, s, en);
	free(en);
	int *n_of = btc_xcalloc((size_t)n_entries + 1, sizeof(int));
	int *cores = btc_xcalloc((size_t)cap + 1, sizeof(int));
	for (int c = 0; c < n_entries; c++) {
		int n = btc_gen_joint_chunk_cores(j, ctxs, k, s, c, cores);
		n_of[c] = n > 0 ? n : 0;
		if (n <= 0)
			continue;
		split = 1;
		btc_outf(o, "static const int joint_%d_%d_c%d[] = {", k, s, c);
		for (int x = 0; x < n; x++)
			btc_outf(o, "%s%d", x ? ", " : " ", cores[x]);
		btc_outl(o, " };");
	}
	if (split) {
		btc_outf(o, "static const struct btrt_workload_cores joint_%d_%d_cores[] = {", k, s);
		for (int c = 0; c < n_entries; c++)
			if (n_of[c])
				btc_outf(o, "%s{ joint_%d_%d_c%d, %d }", c ? ", " : " ", k, s, c,
					 n_of[c]);
			else
				btc_outf(o, "%s{ 0, 0 }", c ? ", " : " ");
		btc_outl(o, " };");
	}
	free(n_of);
	free(cores);
	return split ? n_entries : 0;
}

void btc_gen_joint_tables(struct btc_out *o, const struct btc_gen_ctx *ctxs,
			  const struct btc_joint_plan *j)
{
	int S = j->n_streams;
	int *cores = btc_xcalloc((size_t)S * 3, sizeof(int));
	int *n_split = btc_xcalloc((size_t)S, sizeof(int));
	for (int k = 0; k < j->result.n; k++) {
		btc_gen_joint_service(j, k, cores);
		const struct btc_multi_eval *e = &j->evals[k];
		btc_outl(o, "/* joint candidate %d: predicted max-min normalised throughput %.4f */", k,
			 btc_joint_min_normalised(j, e));
		for (int s = 0; s < S; s++)
			n_split[s] = emit_chunk_cores(o, ctxs, j, k, s);
		btc_outl(o, "static const struct btrt_workload_joint_stream joint_%d[] = {", k);
		for (int s = 0; s < S; s++) {
			btc_outf(o, "\t{ .schedule = %d, .service_cores = { %d, %d, %d }, .rate = %.6g",
				 j->schedule[k * S + s], cores[3 * s], cores[3 * s + 1],
				 cores[3 * s + 2], 1000.0 * e->rate[s]);
			if (n_split[s])
				btc_outf(o, ",\n\t  .chunk_cores = joint_%d_%d_cores, .n_chunk_cores = %d",
					 k, s, n_split[s]);
			btc_outl(o, " }, /* %s */", j->names[s]);
		}
		btc_outl(o, "};");
	}
	free(cores);
	free(n_split);
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
