/* btrt_profiler_main (btrt_profiler.h): BT-Profiler's measuring loop over
 * the generated tables, and the profiling table it writes (docs/app-format.md,
 * "Profiling table"). */
#include "btrt_fsafe.h"
#include "btrt_profiler_internal.h"
#include "btrt_watchdog.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Another PU looping the measured stage during an interference measurement. */
struct interferer {
	struct btrt_profiler_rig rig;
	pthread_t thread;
	struct btrt_error err;
	int rc;
};

/* The state of one profiler run. */
struct profiling_run {
	struct btrt_profiling ctx;
	struct btrt_profiler_options o;
	const char *argv0;
	int tty;                   /* progress on one line only on a terminal */
	struct btrt_profiler_rig *rigs; /* [n_rigs]: the device's PUs, then the variants
					   with --core-counts */
	int n_rigs;
	struct interferer *others; /* [n_pus] */
	FILE *out;                 /* out_file.f with -o, else stdout */
	struct btrt_ofile out_file; /* -o: published after a whole profile */
	uint64_t *times;           /* [warmup + max_reps] chunk times, ns */
	double *samples_ms;        /* [max_reps] one cell's measured times, ms */
	double *sorted_ms;         /* [max_reps] btrt_profiler_fenced_mean's scratch */
	double *overhead;          /* [n_pus][n_stages] one mode's overheads, ms */
	double *cell_mean;         /* [n_pus][n_stages] one mode's stage rows, ms; NAN none */
	double *capped;            /* [n_stages][n_pus][modes] 95 % CI over the mean (%)
				      of the cells capped at --max-reps; 0: not capped */
	int host_rig;              /* the first CPU PU's rig, -1: none */
	double io_mean[BTRT_IO_N], io_sd[BTRT_IO_N]; /* load + check, load, check, ms */
	double link[4];            /* in latency, in per MiB, out latency, out per MiB */
	int have_link;             /* a discrete CUDA GPU: the link's rows */
	int total, done;           /* cells */
	double t0;                 /* s */
};

static double now_s(void)
{
	return (double)btrt_now_ns() / 1e9;
}

/* Whether name is an entry of the comma-separated list. */
static int listed(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ",");
		if (n == len && !strncmp(p, name, n))
			return 1;
		p += n;
		if (!*p)
			return 0;
	}
}

/* The index of device PU name, or -1. */
static int device_pu(const struct btrt_profiler *prof, const char *name)
{
	for (uint32_t p = 0; p < prof->n_device_pus; p++)
		if (!strcmp(prof->pus[p].name, name))
			return (int)p;
	return -1;
}

/* Whether pus[p] gets rows: every PU of the device (those of --pus), the
 * core-count variants with --core-counts, never a variant's rest. */
static int measured(const struct profiling_run *pr, int p)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	const struct btrt_profiler_pu *pu = &prof->pus[p];
	const char *dev_name = pu->base >= 0 ? prof->pus[pu->base].name : pu->name;
	return pu->measured && ((uint32_t)p < prof->n_device_pus || pr->o.core_counts) &&
	       (!pr->o.pus || listed(pr->o.pus, dev_name));
}

/* Whether q runs stage s while p is measured under interference: every
 * other device PU that a pipeline uses with p's (btrt_profiler_co_runs; a
 * variant's: its base's), and a variant's rest when it has cores. */
static int interferes_with(const struct btrt_profiling *ctx, int p, int q, uint32_t s,
			   int placed)
{
	const struct btrt_profiler_pu *pp = &ctx->prof->pus[p], *pq = &ctx->prof->pus[q];
	if (q == p || !btrt_profiler_stage_runs_on(ctx->app, s, pq))
		return 0;
	if ((uint32_t)q < ctx->prof->n_device_pus)
		return btrt_profiler_co_runs(ctx->prof->pus, ctx->prof->n_device_pus,
					     (uint32_t)(pp->base >= 0 ? pp->base : p), (uint32_t)q);
	return q == pp->rest && (placed ? pq->n_placed_cores : pq->n_cores) > 0;
}

static void *interfere(void *arg)
{
	struct interferer *it = arg;
	it->rc = btrt_profiler_rig_run(&it->rig, 0, NULL, NULL, &it->err);
	return NULL;
}

/* Two-sided 97.5 % quantile of Student's t for df degrees of freedom. */
static double t975(long df)
{
	static const double t[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
		2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
		2.048, 2.045, 2.042 };
	return df <= 30 ? t[df] : 1.96 + 2.4 / (double)df;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The q-quantile of the sorted x[0..n-1], by linear interpolation. */
static double quantile(const double *x, long n, double q)
{
	double h = q * (double)(n - 1);
	long i = (long)h;
	return i + 1 < n ? x[i] + (h - (double)i) * (x[i + 1] - x[i]) : x[n - 1];
}

double btrt_profiler_fenced_mean(const double *v, long n, double *scratch, double *sd, long *kept)
{
	double lo = -INFINITY, hi = INFINITY;
	if (n >= 8) {
		memcpy(scratch, v, (size_t)n * sizeof(*scratch));
		qsort(scratch, (size_t)n, sizeof(*scratch), cmp_double);
		double q1 = quantile(scratch, n, 0.25), q3 = quantile(scratch, n, 0.75);
		double w = fmax(q3 - q1, 0.05 * quantile(scratch, n, 0.5));
		lo = q1 - 3 * w;
		hi = q3 + 3 * w;
	}
	double sum = 0, sum2 = 0;
	long k = 0;
	for (long i = 0; i < n; i++)
		if (v[i] >= lo && v[i] <= hi) {
			sum += v[i];
			sum2 += v[i] * v[i];
			k++;
		}
	double mean = k ? sum / (double)k : NAN;
	double var = k > 1 ? (sum2 - (double)k * mean * mean) / (double)(k - 1) : 0;
	*sd = var > 0 ? sqrt(var) : 0;
	*kept = k;
	return mean;
}

/* The GPU contexts the PUs need. Returns 0, or -1 with err. */
static int open_devices(struct profiling_run *pr, struct btrt_error *err)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	int use_vk = 0, use_cuda = 0;
	for (uint32_t p = 0; p < prof->n_pus; p++) {
		use_vk |= prof->pus[p].kind == BTRT_PU_VULKAN;
		use_cuda |= prof->pus[p].kind == BTRT_PU_CUDA;
	}
	if (use_vk) {
		struct btrt_vk_config vc = { .validation = -1, .n_buffers = prof->app->n_buffers,
					     .shaders = prof->app->shaders,
					     .n_shaders = prof->app->n_shaders };
		btrt_env_vk_config(&pr->ctx.env, &vc);
		if (btrt_vk_create(&pr->ctx.vk, &vc, err))
			return -1;
	}
	if (use_cuda) {
		struct btrt_cuda_config cc = { .device = -1, .mem = BTRT_CUDA_MEM_AUTO };
		btrt_env_cuda_config(&pr->ctx.env, &cc);
		if (btrt_cuda_create(&pr->ctx.cuda, &cc, err))
			return -1;
	}
	return 0;
}

/* The chunk model's measurements that do not depend on the mode: T_io on
 * the first CPU PU's rig (host memory, before any stage is prepared) and
 * the links of a discrete CUDA GPU. Returns 0, or -1 with err. */
static int measure_fixed_terms(struct profiling_run *pr, struct btrt_error *err)
{
	const struct btrt_app *app = pr->ctx.app;
	pr->host_rig = -1;
	for (int p = 0; p < (int)pr->ctx.prof->n_device_pus && pr->host_rig < 0; p++)
		if (pr->ctx.prof->pus[p].kind == BTRT_PU_CPU)
			pr->host_rig = p;
	if (pr->host_rig >= 0) {
		btrt_profiler_print_buffer_probes(&pr->ctx, pr->out);
		pr->rigs[pr->host_rig].stage = -1; /* T_io on the rig's task: its stage is gone */
		if (btrt_probe_io_ms(pr->rigs[pr->host_rig].pool, app->stages, app->n_stages,
				     app->io, pr->ctx.io_state, pr->o.max_reps, pr->io_mean,
				     pr->io_sd, err))
			return -1;
	}
	if (pr->ctx.cuda && !btrt_cuda_integrated(pr->ctx.cuda)) {
		const size_t small = 64 << 10, big = 16 << 20;
		double in_s, out_s, in_b, out_b;
		if (btrt_cuda_prefetch_cost(pr->ctx.cuda, small, 21, &in_s, &out_s, err) ||
		    btrt_cuda_prefetch_cost(pr->ctx.cuda, big, 21, &in_b, &out_b, err))
			return -1;
		double ms = (double)small / 1048576.0, mb = (double)big / 1048576.0;
		pr->link[1] = fmax(0, (in_b - in_s) / (mb - ms));
		pr->link[0] = fmax(0, in_s - ms * pr->link[1]);
		pr->link[3] = fmax(0, (out_b - out_s) / (mb - ms));
		pr->link[2] = fmax(0, out_s - ms * pr->link[3]);
		pr->have_link = 1;
	}
	return 0;
}

/* Starts every PU that interferes with p on stage s in this mode; their
 * count into *n. Returns 0, or -1 with err (those started still run). */
static int start_interference(struct profiling_run *pr, int mode, uint32_t s, int p,
			      btrt_atomic_int *stop, int *n, struct btrt_error *err)
{
	*n = 0;
	for (int q = 0; mode != BTRT_PROF_ISOLATED && q < pr->n_rigs; q++) {
		if (!interferes_with(&pr->ctx, p, q, s, mode == BTRT_PROF_PLACED))
			continue;
		struct interferer *it = &pr->others[*n];
		if (pr->rigs[q].stage != (int)s && btrt_profiler_rig_prepare(&pr->rigs[q], (int)s, err))
			return -1;
		it->rig = pr->rigs[q];
		it->rig.stop = stop;
		btrt_error_clear(&it->err);
		if (pthread_create(&it->thread, NULL, interfere, it))
			return btrt_error_set(err, BTRT_E_SYS, errno, "pthread_create");
		(*n)++;
	}
	return 0;
}

/* Measures stage s on PU p in this mode: warm-up, then batches until the
 * CI is tight enough or --max-reps. Writes the row (and `# capped:`);
 * the cell's overhead into *over_ms (NAN: none). Returns 0, or -1 with err. */
static int measure_cell(struct profiling_run *pr, int mode, uint32_t s, int p, double *over_ms,
			struct btrt_error *err)
{
	const struct btrt_profiler_options *o = &pr->o;
	const char *stage = pr->ctx.app->stages[s].name, *pu = pr->ctx.prof->pus[p].name;
	const char *mode_name = btrt_profiler_mode_names[mode];
	if (pr->rigs[p].stage != (int)s && btrt_profiler_rig_prepare(&pr->rigs[p], (int)s, err))
		return -1;
	btrt_atomic_int stop = 0;
	int n_others = 0;
	int rc = start_interference(pr, mode, s, p, &stop, &n_others, err);
	if (!o->quiet && rc == 0) {
		double el = now_s() - pr->t0;
		double eta = pr->done ? el / pr->done * (pr->total - pr->done) : 0;
		/* One line per step when stderr is not a terminal. */
		fprintf(stderr, "%s[%3d/%d] %-9s stage %u %-14s on %-8s  %5.0f s, ETA %4.0f s%s",
			pr->tty ? "\r" : "", pr->done + 1, pr->total, mode_name, s, stage, pu, el,
			eta, pr->tty ? "   " : "\n");
		fflush(stderr);
	}
	long n = o->min_reps, kept = 0;
	double mean = 0, sd = 0, half = 0;
	*over_ms = NAN;
	if (rc == 0)
		rc = btrt_profiler_rig_run(&pr->rigs[p], (uint64_t)(o->warmup + n), pr->times,
					   over_ms, err);
	while (rc == 0) {
		for (long i = 0; i < n; i++)
			pr->samples_ms[i] = (double)pr->times[o->warmup + i] / 1e6;
		/* the mean inside Tukey's far-out fences: a preempted
		 * repetition does not enter the cell (btrt_profiler.h) */
		mean = btrt_profiler_fenced_mean(pr->samples_ms, n, pr->sorted_ms, &sd, &kept);
		half = kept > 1 ? t975(kept - 1) * sd / sqrt((double)kept) : 0;
		if (half <= o->precision * mean || n >= o->max_reps)
			break;
		n = n * 2 > o->max_reps ? o->max_reps : n * 2;
		rc = btrt_profiler_rig_run(&pr->rigs[p], (uint64_t)(o->warmup + n), pr->times,
					   over_ms, err);
	}
	atomic_store(&stop, 1);
	for (int k = 0; k < n_others; k++) {
		pthread_join(pr->others[k].thread, NULL);
		if (pr->others[k].rc && !rc) {
			*err = pr->others[k].err;
			rc = -1;
		}
	}
	if (rc)
		return -1;
	fprintf(pr->out, "%s,%s,%s,%.6f,%.6f,%ld\n", stage, pu, mode_name, mean, sd, kept);
	pr->cell_mean[(size_t)p * pr->ctx.app->n_stages + s] = mean;
	if (kept < n)
		fprintf(pr->out,
			"# fenced: %s,%s,%s: %ld of %ld repetitions beyond Tukey's far-out "
			"fences left out of the mean\n",
			stage, pu, mode_name, n - kept, n);
	/* Every repetition, in the order measured, so that another estimator
	 * of the cell can be judged offline against the pipelines' times
	 * (scripts/table-vs-runs --estimator); the reader skips the line. */
	if (n <= BTRT_PROFILER_REPS_NOTE_MAX) {
		fprintf(pr->out, "# reps: %s,%s,%s:", stage, pu, mode_name);
		for (long i = 0; i < n; i++)
			fprintf(pr->out, " %.6g", pr->samples_ms[i]);
		fprintf(pr->out, "\n");
	}
	/* A cell that stopped at the repetition cap without reaching the
	 * precision target: a comment the table reader skips, and a warning
	 * at the end (warn_capped). */
	if (half > o->precision * mean) {
		double pct = mean > 0 ? 100 * half / mean : 0.0;
		fprintf(pr->out, "# capped: %s,%s,%s: 95%% CI +-%.1f%% after %ld reps (target %.1f%%)\n",
			stage, pu, mode_name, pct, n, o->precision * 100);
		pr->capped[((size_t)s * pr->ctx.prof->n_pus + (size_t)p) * BTRT_PROF_N_MODES +
			   (size_t)mode] = fmax(pct, 1e-9);
	}
	fflush(pr->out);
	return 0;
}

/* The mode's chunk-model rows: @fixed per device PU from n_over[p] of its
 * overheads (F_c: the median; discrete CUDA: the minimum), the link of a
 * discrete CUDA GPU, @io and, timed apart, @io_load and @io_check (the io
 * source and sink overlap: the chunk model's T_io is their max). */
/* F_c of device PU p from its k > 0 overheads: the median (discrete CUDA: min). */
static double mode_fixed(struct profiling_run *pr, uint32_t p, int k)
{
	double *v = &pr->overhead[p * pr->ctx.app->n_stages];
	qsort(v, (size_t)k, sizeof(double), cmp_double);
	int discrete = pr->ctx.prof->pus[p].kind == BTRT_PU_CUDA && pr->have_link;
	return discrete ? v[0] : quantile(v, k, 0.5);
}

static void write_mode_terms(struct profiling_run *pr, int mode, const int *n_over)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	const char *mode_name = btrt_profiler_mode_names[mode];
	for (uint32_t p = 0; p < prof->n_device_pus; p++) {
		int k = n_over[p];
		if (!k)
			continue;
		double f = mode_fixed(pr, p, k), *v = &pr->overhead[p * prof->app->n_stages];
		int discrete = prof->pus[p].kind == BTRT_PU_CUDA && pr->have_link;
		double ss = 0;
		for (int i = 0; i < k; i++)
			ss += (v[i] - f) * (v[i] - f);
		fprintf(pr->out, "@fixed,%s,%s,%.6f,%.6f,%d\n", prof->pus[p].name, mode_name, f,
			k > 1 ? sqrt(ss / (k - 1)) : 0.0, k);
		if (discrete) {
			static const char *const names[] = { "@in_latency", "@in_per_mib",
							     "@out_latency", "@out_per_mib" };
			for (int j = 0; j < 4; j++)
				fprintf(pr->out, "%s,%s,%s,%.6f,0.000000,21\n", names[j],
					prof->pus[p].name, mode_name, pr->link[j]);
		}
	}
	static const char *const io_rows[BTRT_IO_N] = { "@io", "@io_load", "@io_check" };
	for (int k = 0; pr->host_rig >= 0 && k < BTRT_IO_N; k++)
		fprintf(pr->out, "%s,io,%s,%.6f,%.6f,%ld\n", io_rows[k], mode_name, pr->io_mean[k],
			pr->io_sd[k], pr->o.max_reps);
	fflush(pr->out);
}

/* The mode's in-chunk cells on every GPU PU (btrt_profiler_in_chunk: each
 * maximal run of its stages, warmup + max_reps items). 0, or -1 with err. */
static int measure_in_chunk(struct profiling_run *pr, int mode, const int *n_over,
			    struct btrt_error *err)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	for (uint32_t p = 0; p < prof->n_device_pus; p++) {
		if (!measured(pr, (int)p) || !btrt_profiler_in_chunk_runs(prof->app, &prof->pus[p]))
			continue;
		int cells = 0;
		if (btrt_profiler_in_chunk(&pr->rigs[p], &pr->cell_mean[p * prof->app->n_stages],
					   n_over[p] ? mode_fixed(pr, p, n_over[p]) : 0,
					   btrt_profiler_mode_names[mode], pr->o.warmup,
					   pr->o.max_reps, pr->times, pr->out, &cells, err))
			return -1;
		pr->done += cells;
	}
	return 0;
}

/* Whether a mode's cells run their PU's threads as the generated pipeline
 * places them (struct btrt_profiler_pu.placed_cores, the io on the service
 * cores): placed, and isolated (the PU alone, on the cores the pipeline
 * gives its chunks). On a device with service cores the owning CPU PU's
 * chunks never run on its last three, so its isolated rows measured on
 * every core predicted its chunks, baselines included, too fast (H200-Q
 * and R, --cpu-groups 2: cpu0's CPU-only baseline 1.52 times cpu1's, on 5
 * chunk cores against 8; the isolated rows 0.906). Elsewhere placed_cores
 * is cores. Interference keeps the paper's placement. */
static int mode_placed(int mode)
{
	return mode == BTRT_PROF_PLACED || mode == BTRT_PROF_ISOLATED;
}

/* Every cell of one mode, then its in-chunk cells (isolated) and its
 * chunk-model rows. Returns 0, or -1 with err. */
static int measure_mode(struct profiling_run *pr, int mode, struct btrt_error *err)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	int *n_over = calloc(prof->n_pus, sizeof(int));
	if (!n_over)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "overhead counts");
	for (int p = 0; p < pr->n_rigs; p++)
		pr->rigs[p].placed = mode_placed(mode);
	for (uint32_t s = 0; s < prof->app->n_stages; s++)
		for (int p = 0; p < (int)prof->n_pus; p++) {
			if (!measured(pr, p) || !btrt_profiler_stage_runs_on(prof->app, s, &prof->pus[p]))
				continue;
			double over_ms;
			if (measure_cell(pr, mode, s, p, &over_ms, err)) {
				free(n_over);
				return -1;
			}
			if (!isnan(over_ms))
				pr->overhead[(size_t)p * prof->app->n_stages + (size_t)n_over[p]++] =
					fmax(0, over_ms);
			pr->done++;
		}
	int rc = !pr->o.pus && mode == BTRT_PROF_ISOLATED ? measure_in_chunk(pr, mode, n_over, err) : 0;
	if (!pr->o.pus && rc == 0)
		write_mode_terms(pr, mode, n_over);
	free(n_over);
	return rc;
}

/* At most one line per stage: the PUs and modes whose CI stayed above
 * the target at --max-reps, e.g. "warning: stage 'sort': 95% CI above
 * the 2.0% target after 30 reps on cpu (isolated +-6.5%, placed +-3.0%),
 * cuda (isolated +-2.2%)". */
static void warn_capped(const struct profiling_run *pr)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	for (uint32_t s = 0; s < prof->app->n_stages; s++) {
		const double *c = &pr->capped[(size_t)s * prof->n_pus * BTRT_PROF_N_MODES];
		const char *pu_sep = "";
		for (uint32_t p = 0; p < prof->n_pus; p++) {
			const char *mode_sep = " (";
			for (int m = 0; m < BTRT_PROF_N_MODES; m++) {
				if (c[p * BTRT_PROF_N_MODES + (uint32_t)m] <= 0)
					continue;
				if (!*pu_sep)
					fprintf(stderr, "warning: stage '%s': 95%% CI above the %.1f%% "
						"target after %ld reps on ", prof->app->stages[s].name,
						pr->o.precision * 100, pr->o.max_reps);
				if (*mode_sep == ' ')
					fprintf(stderr, "%s%s", pu_sep, prof->pus[p].name);
				fprintf(stderr, "%s%s +-%.1f%%", mode_sep, btrt_profiler_mode_names[m],
					c[p * BTRT_PROF_N_MODES + (uint32_t)m]);
				mode_sep = ", ";
				pu_sep = "), ";
			}
		}
		if (*pu_sep)
			fputs(")\n", stderr);
	}
}

/* Each measured PU of the device runs its first stage, unrecorded, for
 * BTRT_PROFILER_WARM_S (at most BTRT_PROFILER_WARM_RUNS rig runs of
 * warmup + max_reps items), placed as the first mode measured places it,
 * so that no cell is timed in a PU's first milliseconds of work. Returns
 * 0, or -1 with err. */
static int warm_pus(struct profiling_run *pr, struct btrt_error *err)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	int first = 0;
	while (first < BTRT_PROF_N_MODES - 1 && !pr->o.modes[first])
		first++;
	for (int p = 0; p < pr->n_rigs; p++)
		pr->rigs[p].placed = mode_placed(first);
	for (uint32_t p = 0; p < prof->n_device_pus; p++) {
		if (!measured(pr, (int)p))
			continue;
		uint32_t s = 0;
		while (s < prof->app->n_stages &&
		       !btrt_profiler_stage_runs_on(prof->app, s, &prof->pus[p]))
			s++;
		if (s == prof->app->n_stages)
			continue;
		if (pr->rigs[p].stage != (int)s &&
		    btrt_profiler_rig_prepare(&pr->rigs[p], (int)s, err))
			return -1;
		double t = now_s();
		for (int k = 0; k < BTRT_PROFILER_WARM_RUNS && now_s() - t < BTRT_PROFILER_WARM_S;
		     k++)
			if (btrt_profiler_rig_run(&pr->rigs[p],
						  (uint64_t)(pr->o.warmup + pr->o.max_reps),
						  pr->times, NULL, err))
				return -1;
	}
	return 0;
}

/* Every cell and row of the table after its head. Returns 0, or -1 with err. */
static int profile(struct profiling_run *pr, struct btrt_error *err)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	uint32_t n_stages = prof->app->n_stages;
	pr->times = calloc((size_t)(pr->o.warmup + pr->o.max_reps), sizeof(uint64_t));
	pr->samples_ms = calloc((size_t)pr->o.max_reps, sizeof(double));
	pr->sorted_ms = calloc((size_t)pr->o.max_reps, sizeof(double));
	pr->overhead = calloc((size_t)prof->n_pus * n_stages + 1, sizeof(double));
	pr->capped = calloc((size_t)n_stages * prof->n_pus * BTRT_PROF_N_MODES + 1, sizeof(double));
	pr->cell_mean = calloc((size_t)prof->n_pus * n_stages + 1, sizeof(double));
	if (!pr->times || !pr->samples_ms || !pr->sorted_ms || !pr->overhead || !pr->capped ||
	    !pr->cell_mean)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "measurement tables");
	for (size_t k = 0; k < (size_t)prof->n_pus * n_stages; k++)
		pr->cell_mean[k] = NAN;
	for (uint32_t p = 0; pr->o.modes[BTRT_PROF_ISOLATED] && !pr->o.pus && p < prof->n_device_pus; p++)
		pr->total += measured(pr, (int)p) * btrt_profiler_in_chunk_runs(prof->app, &prof->pus[p]);
	for (int mode = 0; mode < BTRT_PROF_N_MODES; mode++)
		for (uint32_t s = 0; pr->o.modes[mode] && s < n_stages; s++)
			for (int p = 0; p < (int)prof->n_pus; p++)
				pr->total += measured(pr, p) &&
					     btrt_profiler_stage_runs_on(prof->app, s, &prof->pus[p]);
	pr->t0 = now_s();
	if (warm_pus(pr, err))
		return -1;
	for (int mode = 0; mode < BTRT_PROF_N_MODES; mode++)
		if (pr->o.modes[mode] && measure_mode(pr, mode, err))
			return -1;
	if (!pr->o.quiet) {
		fprintf(stderr, "%sprofiled %d stage x PU x mode cells in %.1f s%s\n",
			pr->tty ? "\r" : "", pr->done, now_s() - pr->t0,
			pr->tty ? "                                        " : "");
		warn_capped(pr);
	}
	return 0;
}

/* Devices, the input and the buffer probes, what a profile and --occupy
 * both start with. Returns 0, 1 after a message on stderr, or -1 with
 * err. */
static int open_input(struct profiling_run *pr, struct btrt_error *err)
{
	const struct btrt_app *app = pr->ctx.app;
	if (open_devices(pr, err))
		return -1;
	char msg[256] = "";
	pr->ctx.io_state = app->io->open(pr->o.input, app->params, msg, sizeof(msg));
	if (!pr->ctx.io_state) {
		fprintf(stderr, "%s: input: %s\n", pr->argv0, msg);
		return 1;
	}
	pr->ctx.io_loaded = calloc(app->n_buffers + 1, 1);
	pr->ctx.touched = calloc(app->n_buffers + 1, sizeof(uint64_t));
	if (!pr->ctx.io_loaded || !pr->ctx.touched)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "probe tables");
	return btrt_profiler_probe_buffers(&pr->ctx, err) ? -1 : 0;
}

/* Devices, input, probes, rigs and the table's head. Returns 0, 1 after a
 * message on stderr, or -1 with err. */
static int start(struct profiling_run *pr, struct btrt_error *err)
{
	const struct btrt_profiler *prof = pr->ctx.prof;
	const struct btrt_app *app = prof->app;
	int rc = open_input(pr, err);
	if (rc)
		return rc;
	pr->rigs = calloc(prof->n_pus, sizeof(*pr->rigs));
	pr->others = calloc(prof->n_pus, sizeof(*pr->others));
	if (!pr->rigs || !pr->others)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "rig tables");
	for (uint32_t p = 0; p < prof->n_pus && (p < prof->n_device_pus || pr->o.core_counts); p++) {
		if (btrt_profiler_rig_init(&pr->rigs[p], &pr->ctx, &prof->pus[p], err))
			return -1;
		pr->n_rigs++;
	}
	pr->out = stdout;
	if (pr->o.output) {
		if (btrt_ofile_open(&pr->out_file, pr->o.output, err))
			return -1;
		btrt_guard_tmp(pr->out_file.tmp); /* removed if a signal ends us */
		pr->out = pr->out_file.f;
	}
	fprintf(pr->out, "# btc profiling table\n# app: %s\n# device: %s\n# btc: %s\n", app->name,
		prof->device, prof->btc_version);
	fprintf(pr->out, "# profiler: warmup %ld, reps %ld..%ld, 95%% CI within %.1f%% of the mean\n",
		pr->o.warmup, pr->o.min_reps, pr->o.max_reps, pr->o.precision * 100);
	btrt_profiler_print_in_place(pr->rigs, pr->n_rigs, pr->out);
	pr->host_rig = -1;
	/* --pus: stage rows only (a co-run measurement's), no chunk-model rows */
	if (!pr->o.pus && measure_fixed_terms(pr, err))
		return -1;
	fprintf(pr->out, "stage,pu,mode,mean_ms,stddev_ms,samples\n");
	return 0;
}

/* --occupy PU: devices, input and buffer probes, then the occupant
 * (btrt_profiler_occupy) until a signal or --occupy-s. Returns 0, 1 after
 * a message on stderr, or -1 with err. */
static int occupy(struct profiling_run *pr, struct btrt_error *err)
{
	int rc = open_input(pr, err);
	if (rc)
		return rc;
	return btrt_profiler_occupy(&pr->ctx, device_pu(pr->ctx.prof, pr->o.occupy),
				    pr->o.occupy_s, err);
}

/* Publishes the table (-o) of a whole profile, else removes it; stdout
 * must reach its reader too. Returns rc, or -1 with err when the table
 * could not be written (a full disk: never exit 0). */
static int finish_output(struct profiling_run *pr, int rc, struct btrt_error *err)
{
	if (rc) {
		btrt_ofile_discard(&pr->out_file);
		return rc;
	}
	if (pr->o.output)
		return btrt_ofile_commit(&pr->out_file, err);
	if (fflush(stdout) != 0 || ferror(stdout))
		return btrt_error_set(err, BTRT_E_SYS, errno, "cannot write the table to stdout: %s",
				      strerror(errno));
	return 0;
}

static void finish(struct profiling_run *pr)
{
	btrt_ofile_discard(&pr->out_file);
	free(pr->times);
	free(pr->samples_ms);
	free(pr->sorted_ms);
	free(pr->overhead);
	free(pr->capped);
	free(pr->cell_mean);
	for (int p = 0; p < pr->n_rigs; p++)
		btrt_profiler_rig_free(&pr->rigs[p]);
	free(pr->rigs);
	free(pr->others);
	btrt_pool_destroy(pr->ctx.probe_pool);
	if (pr->ctx.io_state)
		pr->ctx.app->io->close(pr->ctx.io_state, NULL);
	free(pr->ctx.io_loaded);
	free(pr->ctx.touched);
	btrt_vk_destroy(pr->ctx.vk);
	btrt_cuda_destroy(pr->ctx.cuda);
}

int btrt_profiler_main(const struct btrt_profiler *prof, int argc, char **argv)
{
	/* OpenMP teams wait as the device's pipeline does (btrt_program_main),
	 * so that the table measures what the pipeline runs; may re-execute
	 * once. */
	btrt_omp_env_init(argv, prof->omp_wait);
	struct profiling_run pr = { .ctx = { .prof = prof, .app = prof->app },
				    .argv0 = argv[0], .tty = isatty(2) };
	struct btrt_error err;
	if (btrt_env_init(&pr.ctx.env, &err)) {
		fprintf(stderr, "%s: %s\n", argv[0], err.msg);
		return 2;
	}
	if (btrt_profiler_parse(prof->app, argc, argv, &pr.o))
		return 2;
	if (pr.o.help)
		return 0;
	/* --pus and --occupy name PUs of the device. */
	for (const char *p = pr.o.pus; p && *p; p += *p == ',') {
		size_t n = strcspn(p, ",");
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (device_pu(prof, name) < 0) {
			fprintf(stderr, "%s: --pus: '%s' is not a PU of device '%s'\n", argv[0], name,
				prof->device);
			return 2;
		}
		p += n;
	}
	if (pr.o.occupy && (device_pu(prof, pr.o.occupy) < 0 || pr.o.output)) {
		fprintf(stderr, "%s: --occupy %s: %s\n", argv[0], pr.o.occupy,
			pr.o.output ? "writes no table (no -o)" : "not a PU of the device");
		return 2;
	}
	btrt_error_clear(&err);
	/* A bad output fails now, not after the profile (btrt_fsafe.h). */
	if ((pr.o.output && btrt_output_check("-o", pr.o.output, &err)) ||
	    (pr.o.failure && btrt_output_check("--failure", pr.o.failure, &err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err.msg);
		return 2;
	}
	/* A kernel that crashes or calls exit() is named (btrt_watchdog.h). */
	struct btrt_guard g = { argv[0], "profile", pr.o.failure, -1, 1, pr.ctx.env.stop_timeout_s };
	btrt_guard_install(&g);
	btrt_guard_running(1);
	int rc = pr.o.occupy ? occupy(&pr, &err) : start(&pr, &err);
	if (rc == 0 && !pr.o.occupy)
		rc = profile(&pr, &err);
	btrt_guard_running(0);
	rc = finish_output(&pr, rc, &err);
	if (rc < 0)
		fprintf(stderr, "\n%s: %s: %s\n", argv[0], btrt_strerror(err.kind), err.msg);
	finish(&pr);
	return rc ? 1 : 0;
}
