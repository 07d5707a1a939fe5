/* BT-Optimizer benchmark (not a test; timings are machine- and load-
 * dependent). Prints:
 *   1. whole-process time of `btc schedule` (K = 20) on
 *      pixel7a/alexnet-sparse/interference: fork + exec + wait, median and
 *      minimum of 21 runs; also of this program's own one-shot mode (read
 *      the table, create the Z3 context, solve, print JSON) as the floor;
 *   2. a scale series of random problems up to 64 stages x 8 PUs (K = 20,
 *      each objective, 20 s time budget per solve);
 *   3. the exhaustive enumerator where its size limit allows;
 *   4. with --reference, the markdown results table of docs/scheduler.md.
 *
 *   5. the larger space (farms and core splits) on random tables;
 *   7. several apps (issue 27, bench_multi.c): whole-process `btc
 *      schedule A B [C]` and the joint solver on random workloads;
 *
 * usage: sched-bench [--btc PATH] [--quick] [--reference]
 *        sched-bench --space [--quick]   (5. only)
 *        sched-bench --btc PATH --process (1. only)
 *        sched-bench --btc PATH --compare OTHER_BTC --process (1. with the
 *                                         two binaries interleaved)
 *        sched-bench --bounds  (8.: the fluid and assignment bounds and their
 *          solve times on the reference tables)
 *        sched-bench --reference-space  (6.: paper's space vs farms on the
 *                                         reference tables)
 *        sched-bench --space-one N P OBJ (one shape and objective 0 bt,
 *                                         1 gapness, 2 latency: profiling)
 *        sched-bench --one TABLE.csv   (one solve, used by 1.)
 *        sched-bench [--btc PATH] --multi [--quick] (7. only)
 *        sched-bench --multi-solve [--quick] (7., the default solver's
 *                                             random rows only)
 *        sched-bench [--btc PATH] --multi-larger [--quick] (7b.: farms
 *                                             and core splits;
 *                                             BTC_BENCH_VERBOSE=1 prints
 *                                             each solve,
 *                                             BTC_BENCH_NO_PROCESS=1 skips
 *                                             the btc runs,
 *                                             BTC_BENCH_WORKLOAD=K solves
 *                                             workload K of each series
 *                                             alone)
 *        sched-bench --multi-larger3 [--quick] (7b.'s 3-app rows with
 *                                             co-run slowdowns: farms,
 *                                             splits, both) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "btc_config.h"
#include "bench_sched.h"
#include "ref_table.h"
#include "sched/optimizer.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* CPU time of this process, ms (the machine is shared: CPU time is the
 * better estimate of an unloaded wall time for single-threaded work). */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Runs argv to completion with stdout to /dev/null; wall ms, or -1;
 * *cpu: the child's user + system time, ms. */
static double run_process(char *const argv[], double *cpu)
{
	fflush(stdout); /* else the child's freopen writes it again */
	double t0 = btc_sched_now_ms();
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		return -1;
	double t = btc_sched_now_ms() - t0;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

void time_process(const char *label, char *const argv[], int reps)
{
	double t[64], c[64];
	for (int i = 0; i < reps; i++) {
		t[i] = run_process(argv, &c[i]);
		if (t[i] < 0) {
			printf("  %-44s failed (exit status != 0)\n", label);
			return;
		}
	}
	qsort(t, (size_t)reps, sizeof(double), cmp_double);
	qsort(c, (size_t)reps, sizeof(double), cmp_double);
	printf("  %-40s wall median %6.1f min %6.1f ms; cpu median %6.1f "
	       "min %6.1f ms (%d runs)\n",
	       label, t[reps / 2], t[0], c[reps / 2], c[0], reps);
}

/* Two commands interleaved (A B A B ...), reps each: medians and minima
 * of wall and CPU time side by side, and the ratio of the CPU medians. */
static void compare_process(const char *la, char *const a[], const char *lb, char *const b[],
			    int reps)
{
	double ta[64], ca[64], tb[64], cb[64];
	for (int i = 0; i < reps; i++) {
		ta[i] = run_process(a, &ca[i]);
		tb[i] = run_process(b, &cb[i]);
		if (ta[i] < 0 || tb[i] < 0) {
			printf("  compare: a run failed (exit status != 0)\n");
			return;
		}
	}
	qsort(ta, (size_t)reps, sizeof(double), cmp_double);
	qsort(ca, (size_t)reps, sizeof(double), cmp_double);
	qsort(tb, (size_t)reps, sizeof(double), cmp_double);
	qsort(cb, (size_t)reps, sizeof(double), cmp_double);
	printf("  %-40s wall median %6.1f min %6.1f ms; cpu median %6.1f min %6.1f ms\n", la,
	       ta[reps / 2], ta[0], ca[reps / 2], ca[0]);
	printf("  %-40s wall median %6.1f min %6.1f ms; cpu median %6.1f min %6.1f ms\n", lb,
	       tb[reps / 2], tb[0], cb[reps / 2], cb[0]);
	printf("  interleaved, %d runs each: cpu median ratio %.2f, wall median ratio %.2f\n",
	       reps, cb[reps / 2] / ca[reps / 2], tb[reps / 2] / ta[reps / 2]);
}

static int one_shot(const char *path)
{
	struct ref_table t;
	if (ref_table_load(path, &t))
		return 1;
	struct btc_sched_problem p = ref_table_problem(&t);
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_result r;
	if (btc_sched_solve_z3(&p, &o, &r, &d) != BTC_OK)
		return 1;
	btc_sched_print_json(stdout, &p, &r, true);
	btc_sched_result_free(&r);
	ref_table_free(&t);
	return 0;
}

static uint64_t rng;

static double rnd01(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* A random table in the shape of real ones: per-stage work w in
 * [0.1, 10] ms, per-PU speed s in [0.5, 4], time w / s with +-20 % noise,
 * 4 decimals; one PU in 8 lacks 10 % of the kernels. */
static double *random_table(int n, int np, uint64_t seed)
{
	rng = seed;
	double *t = malloc(sizeof(double) * (size_t)(n * np));
	double speed[BTC_SCHED_MAX_PUS];
	for (int c = 0; c < np; c++)
		speed[c] = 0.5 + 3.5 * rnd01();
	for (int i = 0; i < n; i++) {
		double w = 0.1 + 9.9 * rnd01();
		for (int c = 0; c < np; c++) {
			double v = w / speed[c] * (0.8 + 0.4 * rnd01());
			t[i * np + c] = round(v * 1e4) / 1e4;
			if (c == np - 1 && np > 2 && rnd01() < 0.1)
				t[i * np + c] = NAN;
		}
	}
	return t;
}

static void scale_series(bool quick)
{
	static const int stages[] = { 8, 12, 16, 24, 32, 48, 64 };
	static const int pus[] = { 4, 8 };
	printf("\n2./3. scale series (random tables, K = 20, time budget "
	       "20 s; solve_ms includes the Z3 context)\n");
	printf("  %6s %4s  %-8s %10s %10s %7s %8s %12s %14s\n", "stages",
	       "PUs", "obj", "z3 wall ms", "z3 cpu ms", "checks", "optimal",
	       "exhaust. ms", "schedules");
	for (unsigned si = 0; si < sizeof(stages) / sizeof(*stages); si++)
		for (unsigned pi = 0; pi < 2; pi++) {
			int n = stages[si], np = pus[pi];
			if (quick && n > 32)
				continue;
			double *t = random_table(n, np, 1000u * (unsigned)n +
							      (unsigned)np);
			struct btc_sched_problem p = { .n_stages = n,
						       .n_pus = np,
						       .time_ms = t };
			for (int ob = 0; ob < 3; ob++) {
				struct btc_sched_options o;
				btc_sched_options_init(&o);
				o.objective = (enum btc_sched_objective)ob;
				o.time_budget_ms = 20000;
				struct btc_diag d;
				btc_diag_init(&d, NULL);
				struct btc_sched_result r, e;
				double c0 = cpu_ms();
				btc_sched_solve_z3(&p, &o, &r, &d);
				double cpu = cpu_ms() - c0;
				double count = btc_sched_count(&p, &o);
				char ex[32] = "-";
				if (btc_sched_solve_exhaustive(&p, &o, &e,
							       &d) == BTC_OK)
					snprintf(ex, sizeof(ex), "%.1f",
						 e.solve_ms);
				printf("  %6d %4d  %-8s %10.1f %10.1f %7ld %8s "
				       "%12s %14.3g\n",
				       n, np, btc_sched_objective_name(o.objective),
				       r.solve_ms, cpu, r.n_checks,
				       r.optimal ? "yes" : "NO", ex, count);
				fflush(stdout);
				btc_sched_result_free(&r);
				btc_sched_result_free(&e);
			}
			free(t);
		}
}

/* Core counts for a random table in the shape of the phones: PUs 0..3
 * of every 4 are CPU clusters of 4, 4, 2 and 2 cores (1 and 2 cores
 * profiled on the 4-core ones, 1 core on the 2-core ones), the others
 * accelerators; a stage on k of s cores takes t * s / k * e, e in
 * [0.6, 1] (fewer cores waste less). */
static double *random_cores(const double *t, int n, int np,
			    struct btc_sched_cores *cores, uint64_t seed)
{
	rng = seed;
	double *tc = malloc(sizeof(double) * (size_t)n * (size_t)np *
			    BTC_SCHED_MAX_CORE_COUNTS);
	for (size_t k = 0; k < (size_t)n * (size_t)np * BTC_SCHED_MAX_CORE_COUNTS; k++)
		tc[k] = NAN;
	static const int size[] = { 4, 4, 2, 2 };
	for (int c = 0; c < np; c++) {
		bool cpu = np <= 4 ? c < 3 : c < 4;
		cores[c] = (struct btc_sched_cores){ cpu ? size[c % 4] : 0, 0, { 0 } };
		if (!cpu)
			continue;
		cores[c].counts[cores[c].n_counts++] = 1;
		if (cores[c].size == 4)
			cores[c].counts[cores[c].n_counts++] = 2;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < cores[c].n_counts; j++) {
				double v = t[i * np + c];
				double e = 0.6 + 0.4 * rnd01();
				tc[btc_sched_cores_index(np, i, c, j)] =
					isnan(v) ? NAN
						 : round(v * cores[c].size /
							 cores[c].counts[j] * e * 1e4) / 1e4;
			}
	}
	return tc;
}

/* 5. the larger space: farms and core splits on, random tables (only
 * shape n x np and objective `only` when n > 0: for profiling). */
static void space_series(bool quick, int only_n, int only_np, int only_ob)
{
	static const int shapes[][2] = { { 7, 4 }, { 9, 4 }, { 16, 4 }, { 9, 8 },
					 { 16, 8 }, { 32, 8 } };
	printf("\n5. larger space (farms of 2..4 PUs and all PUs, core splits; "
	       "K = 20, time budget 20 s; goals: 9 x 4 <= 200 ms, 32 x 8 <= 2 s)\n");
	printf("  %6s %4s  %-8s %10s %10s %7s %8s %12s %14s\n", "stages", "PUs",
	       "obj", "z3 wall ms", "z3 cpu ms", "checks", "optimal", "exhaust. ms",
	       "schedules");
	for (unsigned si = 0; si < sizeof(shapes) / sizeof(*shapes); si++) {
		int n = shapes[si][0], np = shapes[si][1];
		if ((quick && n * np > 100) || (only_n && (n != only_n || np != only_np)))
			continue;
		uint64_t seed = 1000u * (unsigned)n + (unsigned)np;
		double *t = random_table(n, np, seed);
		struct btc_sched_cores cores[BTC_SCHED_MAX_PUS];
		double *tc = random_cores(t, n, np, cores, seed + 7);
		struct btc_sched_problem p = { .n_stages = n, .n_pus = np,
					       .time_ms = t, .cores = cores,
					       .time_cores_ms = tc };
		for (int ob = 0; ob < 3; ob++) {
			if (only_n && ob != only_ob)
				continue;
			struct btc_sched_options o;
			btc_sched_options_init(&o);
			o.objective = (enum btc_sched_objective)ob;
			o.time_budget_ms = 20000;
			o.farms = o.core_splits = true;
			struct btc_diag d;
			btc_diag_init(&d, NULL);
			struct btc_sched_result r, e;
			double c0 = cpu_ms();
			btc_sched_solve_z3(&p, &o, &r, &d);
			double cpu = cpu_ms() - c0;
			double count = btc_sched_count(&p, &o);
			char ex[32] = "-";
			if (count <= BTC_SCHED_EXHAUSTIVE_LIMIT &&
			    btc_sched_solve_exhaustive(&p, &o, &e, &d) == BTC_OK) {
				bool same = e.n_candidates == r.n_candidates;
				for (int k = 0; same && k < r.n_candidates; k++)
					same = btc_sched_cmp_tmax(&r.candidates[k],
								  &e.candidates[k]) == 0;
				snprintf(ex, sizeof(ex), "%.1f%s", e.solve_ms,
					 same ? "" : " DIFF");
				btc_sched_result_free(&e);
			}
			printf("  %6d %4d  %-8s %10.1f %10.1f %7ld %8s %12s %14.3g\n", n,
			       np, btc_sched_objective_name(o.objective), r.solve_ms, cpu,
			       r.n_checks, r.optimal ? "yes" : "NO", ex, count);
			fflush(stdout);
			btc_sched_result_free(&r);
		}
		free(tc);
		free(t);
	}
}

static void reference_table(void)
{
	static const char *const modes[] = { "interference", "isolated" };
	printf("\n4. reference tables (K = 20): rank-1 T_max in ms (its "
	       "gapness), number of candidates, z3 = exhaustive\n\n");
	printf("| device | app | mode | best baseline | G* | bt | gapness | "
	       "latency | z3 ms (bt/gap/lat) |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (int dv = 0; dv < 2; dv++)
		for (int ap = 0; ap < 3; ap++)
			for (int md = 0; md < 2; md++) {
				char path[512];
				struct ref_table t;
				if (ref_table_load_named(BTC_DATA_DIR "/profiles", ref_devices[dv],
							 ref_apps[ap], modes[md], path,
							 sizeof(path), &t))
					continue;
				struct btc_sched_problem p = ref_table_problem(&t);
				char cell[3][96];
				double ms[3], gstar = -1;
				struct btc_sched_result base = { 0 };
				bool all_same = true;
				for (int ob = 0; ob < 3; ob++) {
					struct btc_sched_options o;
					btc_sched_options_init(&o);
					o.objective = (enum btc_sched_objective)ob;
					struct btc_diag d;
					btc_diag_init(&d, stderr);
					struct btc_sched_result r, e;
					btc_sched_solve_z3(&p, &o, &r, &d);
					btc_sched_solve_exhaustive(&p, &o, &e, &d);
					bool same = r.n_candidates == e.n_candidates;
					for (int k = 0; same && k < r.n_candidates; k++)
						same = btc_sched_cmp_tmax(&r.candidates[k],
									  &e.candidates[k]) == 0;
					all_same = all_same && same;
					const struct btc_schedule *s = &r.candidates[0];
					snprintf(cell[ob], sizeof(cell[ob]),
						 "%.3f (%.3f) x%.2f, %d",
						 s->tmax_ms, s->gapness_ms,
						 btc_sched_speedup(&r, s),
						 r.n_candidates);
					ms[ob] = r.solve_ms;
					if (ob == 0) {
						gstar = r.gstar_ms;
						base = r;
					} else {
						btc_sched_result_free(&r);
					}
					btc_sched_result_free(&e);
				}
				const struct btc_sched_baseline *b =
					&base.baselines[base.best_baseline];
				printf("| %s | %s | %s | %s %.3f | %.3f | %s | %s | "
				       "%s | %.0f/%.0f/%.0f%s |\n",
				       ref_devices[dv], ref_apps[ap], modes[md],
				       t.pu_names[b->pu], b->time_ms, gstar,
				       cell[0], cell[1], cell[2], ms[0], ms[1],
				       ms[2], all_same ? "" : " MISMATCH");
				btc_sched_result_free(&base);
				ref_table_free(&t);
			}
}

/* 6. the larger space on the reference tables: the best predicted period
 * (latency rank 1) in the paper's space and with farms; the tables have
 * no NAME[k] rows, so core splits add nothing there. */
static void reference_space(void)
{
	static const char *const modes[] = { "interference", "isolated" };
	printf("\n6. reference tables, best predicted period (latency rank 1, ms): the paper's "
	       "space vs farms (K = 20; z3 = exhaustive checked)\n\n");
	printf("| device | app | mode | best baseline | paper's space | with farms | gain | "
	       "z3 ms (paper/farms) |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (int dv = 0; dv < 2; dv++)
		for (int ap = 0; ap < 3; ap++)
			for (int md = 0; md < 2; md++) {
				char path[512];
				struct ref_table t;
				if (ref_table_load_named(BTC_DATA_DIR "/profiles", ref_devices[dv],
							 ref_apps[ap], modes[md], path,
							 sizeof(path), &t))
					continue;
				struct btc_sched_problem p = ref_table_problem(&t);
				char cell[2][256];
				double best[2] = { 0, 0 }, ms[2] = { 0, 0 };
				bool same = true;
				struct btc_sched_result r[2];
				for (int farms = 0; farms < 2; farms++) {
					struct btc_sched_options o;
					btc_sched_options_init(&o);
					o.objective = BTC_SCHED_LATENCY;
					o.farms = farms;
					struct btc_diag d;
					btc_diag_init(&d, stderr);
					struct btc_sched_result e;
					btc_sched_solve_z3(&p, &o, &r[farms], &d);
					btc_sched_solve_exhaustive(&p, &o, &e, &d);
					same = same && e.n_candidates == r[farms].n_candidates;
					for (int k = 0; same && k < e.n_candidates; k++)
						same = btc_sched_cmp_tmax(&r[farms].candidates[k],
									  &e.candidates[k]) == 0;
					btc_sched_result_free(&e);
					const struct btc_schedule *s = &r[farms].candidates[0];
					int len = snprintf(cell[farms], sizeof(cell[farms]),
							   "%.3f `", s->tmax_ms);
					for (int k = 0; k < s->n_chunks; k++) {
						char label[128];
						btc_sched_chunk_label(&p, &s->chunks[k], label,
								      sizeof(label));
						len += snprintf(cell[farms] + len,
								sizeof(cell[farms]) - (size_t)len,
								"%s%s", k ? " " : "", label);
					}
					snprintf(cell[farms] + len, sizeof(cell[farms]) - (size_t)len,
						 "`");
					best[farms] = s->tmax_ms;
					ms[farms] = r[farms].solve_ms;
				}
				const struct btc_sched_baseline *b =
					&r[0].baselines[r[0].best_baseline];
				printf("| %s | %s | %s | %s %.3f | %s | %s | %.2fx | %.0f/%.0f%s |\n",
				       ref_devices[dv], ref_apps[ap], modes[md], t.pu_names[b->pu],
				       b->time_ms, cell[0], cell[1], best[0] / best[1], ms[0],
				       ms[1], same ? "" : " MISMATCH");
				btc_sched_result_free(&r[0]);
				btc_sched_result_free(&r[1]);
				ref_table_free(&t);
			}
}

int main(int argc, char **argv)
{
	const char *btc = NULL, *old = NULL;
	bool quick = false, reference = false, space_only = false, process_only = false;
	bool multi_only = false, multi_solve_only = false, multi_larger_only = false;
	bool multi_larger3 = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--one") == 0 && i + 1 < argc)
			return one_shot(argv[i + 1]);
		else if (strcmp(argv[i], "--btc") == 0 && i + 1 < argc)
			btc = argv[++i];
		else if (strcmp(argv[i], "--compare") == 0 && i + 1 < argc)
			old = argv[++i];
		else if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strcmp(argv[i], "--reference") == 0)
			reference = true;
		else if (strcmp(argv[i], "--space") == 0)
			space_only = true;
		else if (strcmp(argv[i], "--process") == 0)
			process_only = true;
		else if (strcmp(argv[i], "--multi") == 0)
			multi_only = true;
		else if (strcmp(argv[i], "--multi-solve") == 0)
			multi_solve_only = true;
		else if (strcmp(argv[i], "--multi-larger") == 0)
			multi_larger_only = true;
		else if (strcmp(argv[i], "--multi-larger3") == 0)
			multi_larger3 = multi_larger_only = true;
		else if (strcmp(argv[i], "--bounds") == 0) {
			bound_bench();
			return 0;
		}
		else if (strcmp(argv[i], "--reference-space") == 0) {
			reference_space();
			return 0;
		}
		else if (strcmp(argv[i], "--space-one") == 0 && i + 3 < argc) {
			space_series(false, atoi(argv[i + 1]), atoi(argv[i + 2]), atoi(argv[i + 3]));
			return 0;
		}
	}
	if (space_only) {
		space_series(quick, 0, 0, 0);
		return 0;
	}
	if (multi_larger_only) {
		multi_larger_bench(btc, quick, multi_larger3);
		return 0;
	}
	if (multi_solve_only) {
		multi_solve_bench(quick);
		return 0;
	}
	if (multi_only) {
		multi_bench(btc, quick);
		return 0;
	}
	char table[512], self[1024];
	snprintf(table, sizeof(table),
		 "%s/profiles/pixel7a/alexnet-sparse/interference.csv",
		 BTC_DATA_DIR);
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = '\0';

	printf("1. whole-process time, K = 20, objective bt, "
	       "pixel7a/alexnet-sparse/interference (goal <= 20 ms)\n");
	if (btc) {
		char app[512];
		snprintf(app, sizeof(app), "%s/apps/alexnet-sparse.yaml",
			 BTC_SOURCE_ROOT);
		char *av[] = { (char *)btc, "schedule", app, "--device",
			       "pixel7a", "--table", table, "--top", "20",
			       "--format", "json", NULL };
		time_process("btc schedule (loaders + Z3 + JSON)", av, 21);
		av[10] = "text";
		time_process("btc schedule --format text", av, 5);
		av[10] = "json";
		if (old) {
			char *ov[sizeof(av) / sizeof(*av)];
			memcpy(ov, av, sizeof(av));
			ov[0] = (char *)old;
			compare_process("--compare (the other btc)", ov, "--btc (this btc)", av, 21);
		}
	}
	char *one[] = { self, "--one", table, NULL };
	time_process("sched-bench --one (table + Z3 + JSON)", one, 21);
	char *tru[] = { "/bin/true", NULL };
	time_process("/bin/true (process floor)", tru, 21);
	if (process_only)
		return 0;

	scale_series(quick);
	space_series(quick, 0, 0, 0);
	multi_bench(btc, quick);
	if (reference) {
		reference_table();
		reference_space();
		bound_bench();
	}
	return 0;
}
