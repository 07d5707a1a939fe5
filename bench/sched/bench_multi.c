/* sched-bench part 7: several apps and streams on one chip (issue 27;
 * sched/multi.h). Whole-process `btc schedule A.yaml B.yaml [C.yaml]
 * --tables data/profiles/DEV` (goals: 2 apps x 9 stages x 4 PUs <= 200
 * ms, 3 apps <= 2 s) and octree + alexnet-dense with N streams each
 * (`--streams`, K = 8 as the main job plans: 2 + 2 and 4 + 4 "in
 * seconds"), with the default solver (z3: the branch and bound within
 * its budget, then Z3), `--solver z3-only` and `--solver bb` (4 + 4: the
 * default only; bb takes more than 10 minutes); then the three on random
 * workloads of the same shapes (K = 20; with and without co-run
 * slowdowns). Part 7b (`--multi-larger`): the same with farms and core
 * splits (docs/scheduler.md, "Farms and core splits in the joint
 * space"); `--multi-larger3` solves only its 3-app rows with co-run
 * slowdowns (farms, splits, both: the same workloads, the others drawn
 * and skipped). Timings are machine- and load-dependent: printed, never
 * asserted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_sched.h"
#include "btc_config.h"
#include "sched/multi.h"

static unsigned long rng = 20261125;

static double rnd(void)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void whole_process(const char *btc, const char *dev, int n_apps, int reps,
			  const char *extra)
{
	static const char *const apps[] = {"alexnet-dense", "alexnet-sparse", "octree"};
	char paths[3][512], tables[512], label[160];
	char *av[16];
	int k = 0;
	av[k++] = (char *)btc;
	av[k++] = "schedule";
	for (int a = 0; a < n_apps; a++) {
		snprintf(paths[a], sizeof(paths[a]), "%s/apps/%s.yaml", BTC_SOURCE_ROOT, apps[a]);
		av[k++] = paths[a];
	}
	snprintf(tables, sizeof(tables), "%s/profiles/%s", BTC_DATA_DIR, dev);
	av[k++] = "--device";
	av[k++] = (char *)dev;
	av[k++] = "--tables";
	av[k++] = tables;
	av[k++] = "--top";
	av[k++] = "20";
	av[k++] = "--format";
	av[k++] = "json";
	if (extra)
		av[k++] = (char *)extra;
	av[k] = NULL;
	snprintf(label, sizeof(label), "%s: %d apps (%s%s)%s%s", dev, n_apps,
		 n_apps == 2 ? "9 + 9 stages" : "9 + 9 + 7 stages",
		 n_apps == 2 ? ", goal 200 ms" : ", goal 2 s", extra ? " " : "", extra ? extra : "");
	time_process(label, av, reps);
}

/* octree + alexnet-dense, n streams each, K = 8, with `solver`. */
static void whole_streams(const char *btc, const char *dev, int n, const char *solver, int reps)
{
	char paths[2][512], tables[512], label[160], so[32], sa[40];
	snprintf(paths[0], sizeof(paths[0]), "%s/apps/octree.yaml", BTC_SOURCE_ROOT);
	snprintf(paths[1], sizeof(paths[1]), "%s/apps/alexnet-dense.yaml", BTC_SOURCE_ROOT);
	snprintf(tables, sizeof(tables), "%s/profiles/%s", BTC_DATA_DIR, dev);
	snprintf(so, sizeof(so), "octree=%d", n);
	snprintf(sa, sizeof(sa), "alexnet-dense=%d", n);
	char *av[] = {(char *)btc, "schedule", paths[0], paths[1], "--device", (char *)dev,
		      "--tables", tables, "--streams", so, "--streams", sa, "--top", "8",
		      "--solver", (char *)solver, "--format", "json", NULL};
	snprintf(label, sizeof(label), "%s: %d + %d streams, K 8 (%s)", dev, n, n, solver);
	time_process(label, av, reps);
}

/* Median solve_ms of `reps` random workloads of S streams x n stages x np PUs. */
static const char *const solver_label[] = {"default", "z3-only", "bb"};

/* solver: 0 btc_multi_solve, 1 btc_multi_solve_z3, 2 btc_multi_solve_bb */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void random_series(int S, int n, int np, bool slow, int reps, int solver)
{
	double ms[32], cpu[32], worst = 0;
	long evaluated = 0;
	for (int r = 0; r < reps; r++) {
		double *t = malloc(sizeof(double) * (size_t)(S * n * np));
		double *sl = malloc(sizeof(double) * (size_t)(S * np * np));
		struct btc_sched_problem p[8];
		struct btc_multi_stream st[8];
		for (int s = 0; s < S; s++) {
			for (int j = 0; j < n * np; j++)
				t[s * n * np + j] = 0.05 + 5 * rnd();
			for (int j = 0; j < np * np; j++)
				sl[s * np * np + j] = 1 + rnd();
			p[s] = (struct btc_sched_problem){.n_stages = n, .n_pus = np,
							  .time_ms = t + s * n * np};
			st[s] = (struct btc_multi_stream){.p = &p[s], .app = s, .weight = 1,
							  .slowdown = slow ? sl + s * np * np : NULL};
		}
		struct btc_multi_problem m = {.n_streams = S, .n_pus = np, .streams = st,
					      .top_k = 20};
		struct btc_multi_result res;
		struct btc_diag d;
		btc_diag_init(&d, stderr);
		double c0 = cpu_ms();
		enum btc_status rc = solver == 0   ? btc_multi_solve(&m, &res, &d)
				     : solver == 1 ? btc_multi_solve_z3(&m, &res, &d)
						   : btc_multi_solve_bb(&m, &res, &d);
		cpu[r] = cpu_ms() - c0;
		if (rc != BTC_OK)
			printf("  solve failed\n");
		ms[r] = res.solve_ms;
		worst = fmax(worst, res.solve_ms);
		evaluated += res.n_evaluated;
		btc_multi_result_free(&res);
		free(t);
		free(sl);
	}
	qsort(ms, (size_t)reps, sizeof(double), cmp);
	qsort(cpu, (size_t)reps, sizeof(double), cmp);
	printf("  %s random %d x %d x %d%s: solve median %7.1f ms (CPU %7.1f), max %7.1f ms, "
	       "%ld joint schedules costed per solve (%d workloads)\n",
	       solver_label[solver], S, n, np, slow ? " + slowdowns" : "", ms[reps / 2],
	       cpu[reps / 2], worst, evaluated / reps, reps);
}

/* The default solver's random series alone (`sched-bench --multi-solve`):
 * the same workloads as multi_bench's default rows; then the workloads
 * with slowdowns again under the branch and bound alone (before the
 * occupancy search, the default solver's with slowdowns), each series
 * from the seed its default row had. */
void multi_solve_bench(bool quick)
{
	int reps = quick ? 3 : 11, reps3 = quick ? 1 : 5;
	unsigned long seed[4];
	seed[0] = rng;
	random_series(2, 9, 4, false, reps, 0);
	seed[1] = rng;
	random_series(2, 9, 4, true, reps, 0);
	seed[2] = rng;
	random_series(3, 9, 4, false, reps3, 0);
	seed[3] = rng;
	random_series(3, 9, 4, true, reps3, 0);
	rng = seed[1];
	random_series(2, 9, 4, true, reps, 2);
	rng = seed[3];
	random_series(3, 9, 4, true, reps3, 2);
}

void multi_bench(const char *btc, bool quick)
{
	printf("7. several apps (issue 27): btc schedule A B [C], K = 20, maxmin\n");
	if (btc) {
		for (int k = 0; k < 2; k++) {
			const char *dev = k ? "jetson-orin-nano" : "pixel7a";
			whole_process(btc, dev, 2, quick ? 3 : 11, NULL);
			whole_process(btc, dev, 3, quick ? 1 : 5, NULL);
		}
		for (int k = 0; k < 2; k++) {
			const char *dev = k ? "jetson-orin-nano" : "pixel7a";
			for (int so = 0; so < 3; so++)
				whole_streams(btc, dev, 2, so ? solver_label[so] : "z3",
					      quick ? 1 : 3);
			whole_streams(btc, dev, 4, "z3", 1);
		}
	}
	int reps = quick ? 3 : 11;
	for (int so = 0; so < 3; so++) {
		random_series(2, 9, 4, false, reps, so);
		random_series(2, 9, 4, true, reps, so);
		random_series(3, 9, 4, false, quick ? 1 : 5, so);
		random_series(3, 9, 4, true, quick ? 1 : 5, so);
	}
}

/* Median solve_ms of `reps` random workloads of S streams x n stages x np
 * PUs in the larger space: PU 0 a CPU of 4 cores with 1 and 2 profiled
 * (t_k = t x 4 / k x a random efficiency in [0.5, 1]), farms over 2..4
 * PUs, with the default solver (btc_multi_solve: the occupancy search,
 * or the branch and bound past its state limit) or the branch and bound
 * alone. */
static void larger_series(int S, int n, int np, bool slow, bool farms, bool splits, int reps,
			  int solver, bool solve)
{
	const char *only = getenv("BTC_BENCH_WORKLOAD"); /* one workload's index */
	double ms[32], worst = 0;
	long evaluated = 0;
	static const struct btc_sched_cores cpu4 = {.size = 4, .n_counts = 2, .counts = {1, 2}};
	struct btc_sched_cores cores[BTC_SCHED_MAX_PUS] = {cpu4};
	for (int r = 0; r < reps; r++) {
		double *t = malloc(sizeof(double) * (size_t)(S * n * np));
		double *tk = malloc(sizeof(double) * (size_t)(S * n * np * BTC_SCHED_MAX_CORE_COUNTS));
		double *sl = malloc(sizeof(double) * (size_t)(S * np * np));
		struct btc_sched_problem p[8];
		struct btc_multi_stream st[8];
		for (int s = 0; s < S; s++) {
			double *ts = t + s * n * np, *tks = tk + s * n * np * BTC_SCHED_MAX_CORE_COUNTS;
			for (int j = 0; j < n * np; j++)
				ts[j] = 0.05 + 5 * rnd();
			for (int j = 0; j < n * np * BTC_SCHED_MAX_CORE_COUNTS; j++)
				tks[j] = NAN;
			for (int i = 0; i < n; i++)
				for (int j = 0; j < 2; j++)
					tks[btc_sched_cores_index(np, i, 0, j)] =
						ts[i * np] * 4 / cpu4.counts[j] * (0.5 + 0.5 * rnd());
			for (int j = 0; j < np * np; j++)
				sl[s * np * np + j] = 1 + rnd();
			p[s] = (struct btc_sched_problem){.n_stages = n, .n_pus = np, .time_ms = ts,
							  .cores = cores, .time_cores_ms = tks};
			st[s] = (struct btc_multi_stream){.p = &p[s], .app = s, .weight = 1,
							  .slowdown = slow ? sl + s * np * np : NULL};
		}
		struct btc_multi_problem m = {.n_streams = S, .n_pus = np, .streams = st,
					      .top_k = 20, .farms = farms, .core_splits = splits};
		if (!solve || (only && atoi(only) != r)) {
			/* drawn (the later series' workloads stay the same), not solved */
			ms[r] = 0;
			free(t);
			free(tk);
			free(sl);
			continue;
		}
		struct btc_multi_result res;
		struct btc_diag d;
		btc_diag_init(&d, stderr);
		enum btc_status rc = solver == 0 ? btc_multi_solve(&m, &res, &d)
						 : btc_multi_solve_bb(&m, &res, &d);
		if (rc != BTC_OK)
			printf("  solve failed\n");
		if (getenv("BTC_BENCH_VERBOSE"))
			printf("    workload %d: %.1f ms, %ld costed\n", r, res.solve_ms,
			       res.n_evaluated);
		fflush(stdout);
		ms[r] = res.solve_ms;
		worst = fmax(worst, res.solve_ms);
		evaluated += res.n_evaluated;
		btc_multi_result_free(&res);
		free(t);
		free(tk);
		free(sl);
	}
	if (!solve)
		return;
	qsort(ms, (size_t)reps, sizeof(double), cmp);
	printf("  %s random %d x %d x %d%s%s%s: solve median %8.1f ms, max %8.1f ms, "
	       "%ld joint schedules costed per solve (%d workloads)\n",
	       solver ? "bb" : "default", S, n, np, farms ? " farms" : "",
	       splits ? " splits" : "", slow ? " + slowdowns" : "", ms[reps / 2], worst,
	       evaluated / reps, reps);
	fflush(stdout);
}

void multi_larger_bench(const char *btc, bool quick, bool three)
{
	printf("7b. several apps in the larger space (farms, core splits), K = 20, maxmin%s\n",
	       three ? ": 3 apps with slowdowns only" : "");
	if (btc && !three && !getenv("BTC_BENCH_NO_PROCESS"))
		for (int k = 0; k < 2; k++) {
			const char *dev = k ? "jetson-orin-nano" : "pixel7a";
			whole_process(btc, dev, 2, quick ? 3 : 11, "--farms");
			whole_process(btc, dev, 3, quick ? 1 : 5, "--farms");
			fflush(stdout);
		}
	int reps = quick ? 3 : 11, reps3 = quick ? 1 : 5;
	for (int v = 0; v < 3; v++) {
		bool farms = v != 1, splits = v != 0;
		larger_series(2, 9, 4, false, farms, splits, reps, 0, !three);
		larger_series(2, 9, 4, true, farms, splits, reps, 0, !three);
		larger_series(3, 9, 4, false, farms, splits, reps3, 0, !three);
		larger_series(3, 9, 4, true, farms, splits, reps3, 0, true);
	}
}
