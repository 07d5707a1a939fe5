/* The checked number parser (btrt_parse_long, btrt_parse_double) and
 * btrt_profiler_main on the toy app: its command line refused with status
 * 2 for every malformed number or mode, and a whole table on two unpinned
 * CPU PUs (rows, chunk-model terms, the capped warnings folded to one line
 * per stage); --pus and the co-run occupant (--occupy); which PUs co-run
 * under interference (one GPU API); the cell statistic (the mean inside
 * Tukey's far-out fences); the cores a cell's stage runs on in each mode. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <btrt_profiler.h>

#include "../../runtime/src/btrt_profiler_internal.h"
#include "suites.h"
#include "testutil.h"
#include "toy.h"

static void test_parse_long(void)
{
	struct btrt_error err;
	long v = -7;
	CU_ASSERT_EQUAL(btrt_parse_long("--n", "42", 0, 100, &v, &err), 0);
	CU_ASSERT_EQUAL(v, 42);
	CU_ASSERT_EQUAL(btrt_parse_long("--n", "-5", -10, 10, &v, &err), 0);
	CU_ASSERT_EQUAL(v, -5);
	CU_ASSERT_EQUAL(btrt_parse_long("--n", "0", 0, 0, &v, &err), 0);
	CU_ASSERT_EQUAL(v, 0);
	static const char *const garbage[] = { "", " 3", "3 ", "3x", "x3", "1e3", "0x10", "3.0",
					       "+", "--1" };
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		v = 99;
		btrt_error_clear(&err);
		CU_ASSERT_EQUAL(btrt_parse_long("--max-reps", garbage[i], 0, 100, &v, &err), -1);
		CU_ASSERT_EQUAL(v, 99);
		CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--max-reps"));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is not an integer"));
	}
	CU_ASSERT_EQUAL(btrt_parse_long("--n", NULL, 0, 1, &v, &err), -1);
	/* overflow of long, and values outside the range */
	static const char *const out[] = { "99999999999999999999", "-99999999999999999999",
					   "101", "-1" };
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		btrt_error_clear(&err);
		CU_ASSERT_EQUAL(btrt_parse_long("BTRT_SPIN_NS", out[i], 0, 100, &v, &err), -1);
		CU_ASSERT_EQUAL(v, 99);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "BTRT_SPIN_NS"));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, out[i]));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "out of range 0..100"));
	}
	CU_ASSERT_EQUAL(btrt_parse_long("--n", "9223372036854775807", 0, LONG_MAX, &v, NULL), 0);
	CU_ASSERT_EQUAL(v, LONG_MAX);
	CU_ASSERT_EQUAL(btrt_parse_long("--n", "x", 0, 1, &v, NULL), -1); /* err may be NULL */
}

static void test_parse_double(void)
{
	struct btrt_error err;
	double v = -7;
	CU_ASSERT_EQUAL(btrt_parse_double("--p", "0.02", 0, 1, &v, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 0.02, 1e-15);
	CU_ASSERT_EQUAL(btrt_parse_double("--p", "1e-3", 0, 1, &v, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 1e-3, 1e-15);
	CU_ASSERT_EQUAL(btrt_parse_double("--p", "1", 0, 1, &v, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 1, 0);
	static const char *const garbage[] = { "", " 0.1", "0.1 ", "0.1%", "abc", "inf", "nan",
					       "-inf", "0x1p-3", "." };
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		v = 5;
		btrt_error_clear(&err);
		CU_ASSERT_EQUAL(btrt_parse_double("--precision", garbage[i], 0, 1, &v, &err), -1);
		CU_ASSERT_EQUAL(v, 5);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--precision"));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is not a number"));
	}
	static const char *const out[] = { "1e400", "-1e400", "1.5", "-0.5" };
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		btrt_error_clear(&err);
		CU_ASSERT_EQUAL(btrt_parse_double("--precision", out[i], 0, 1, &v, &err), -1);
		CU_ASSERT_EQUAL(v, 5);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, out[i]));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "out of range"));
	}
}

/* ---- btrt_profiler_main on the toy app ---- */

static struct toy_params params;
static struct toy_io_state io_state;

static void *prof_open(const char *path, const void *p, char *err, size_t len)
{
	(void)path; (void)err; (void)len;
	io_state = (struct toy_io_state){ .p = p, .load_fail_seq = UINT64_MAX };
	return &io_state;
}

static int prof_load(void *s, uint64_t seq, void *task, char *err, size_t len)
{
	return toy_io.load(s, seq, task, err, len);
}

static int prof_check(void *s, uint64_t seq, const void *task, FILE *out, char *err, size_t len)
{
	return toy_io.check(s, seq, task, out, err, len);
}

static void prof_close(void *s, FILE *out) { (void)s; (void)out; }

static const struct btrt_app_io io = { prof_open, prof_load, prof_check, prof_close, NULL, 0, 0 };

static size_t buffer_count(const void *p, uint32_t b)
{
	size_t c[TOY_N_BUFFERS];
	toy_counts(p, c);
	return c[b];
}

static void bind(void *task, const void *p)
{
	toy_task_bind(task, p);
}

static const struct btrt_app app = {
	.name = "toy", .stages = toy_stages_cpu, .n_stages = TOY_N_STAGES,
	.task_size = sizeof(struct toy_task), .params = &params,
	.buffers = toy_buffers, .n_buffers = TOY_N_BUFFERS,
	.buffer_count = buffer_count, .bind = bind, .io = &io,
};

static const struct btrt_profiler_pu pus[] = {
	{ "a", BTRT_PU_CPU, NULL, 0, NULL, 0, -1, -1, 1 },
	{ "b", BTRT_PU_CPU, NULL, 0, NULL, 0, -1, -1, 1 },
};

static const struct btrt_profiler prof = {
	.app = &app, .device = "box", .btc_version = "test",
	.pus = pus, .n_pus = 2, .n_device_pus = 2,
};

/* btrt_profiler_main of profiler p with the arguments (NULL-terminated),
 * its stderr into the file errpath when not NULL. */
static int profile_with(const struct btrt_profiler *p, const char *errpath, const char *const *args)
{
	char *argv[32] = { "toy-profiler" };
	int argc = 1;
	while (args[argc - 1] && argc < 31) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	argv[argc] = NULL;
	int saved = -1;
	if (errpath) {
		fflush(stderr);
		saved = dup(2);
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		close(fd);
	}
	toy_default_params(&params);
	params.n = 1024;
	int rc = btrt_profiler_main(p, argc, argv);
	if (errpath) {
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
	}
	return rc;
}

static int profile(const char *errpath, const char *const *args)
{
	return profile_with(&prof, errpath, args);
}

/* The text of the file at path (at most 64 KiB; owned by the caller), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return strdup(buf);
}

/* The CPUs the toy's first stage ran on in the pipeline's threads (every
 * thread of its team), as a bit mask: where_scale records them, then runs
 * the stage. The profiler's own thread (this suite's: main_thread) also
 * runs stages, unpinned, to prepare a later stage's input and to check the
 * app; those runs are not a cell's and are left out. */
static atomic_ulong scale_cpus;
static pthread_t main_thread;

static int where_scale(void *tp)
{
	if (pthread_equal(pthread_self(), main_thread))
		return toy_scale_cpu(tp);
#ifdef _OPENMP
#pragma omp parallel
#endif
	{
		int c = sched_getcpu();
		if (c >= 0 && c < 64)
			atomic_fetch_or(&scale_cpus, 1ul << c);
	}
	return toy_scale_cpu(tp);
}

/* A PU whose pipeline chunks run on fewer cores than it has (the owning
 * PU of a device with service cores, btc_gen_placed_cores): its isolated
 * and placed cells run on those, its interference cells on every core
 * the device declares (the paper's). */
static void test_mode_cores(void)
{
	int two[2];
	test_two_cores(two);
	if (two[0] == two[1] || two[0] >= 64 || two[1] >= 64) {
		printf("(one core, or core ids past the mask's 64: nothing to tell apart) ");
		return;
	}
	static struct btrt_stage stages[TOY_N_STAGES];
	memcpy(stages, toy_stages_cpu, sizeof stages);
	stages[0].cpu = where_scale;
	struct btrt_app a = app;
	a.stages = stages;
	int placed[1] = { two[1] };
	const struct btrt_profiler_pu owner[] = {
		{ "a", BTRT_PU_CPU, two, 2, placed, 1, -1, -1, 1 },
	};
	const struct btrt_profiler p = {
		.app = &a, .device = "box", .btc_version = "test",
		.pus = owner, .n_pus = 1, .n_device_pus = 1,
	};
	char out[] = "/tmp/btrt-prof-out-XXXXXX";
	CU_ASSERT_EQUAL_FATAL(btc_test_tmpfile(out), 0);
	main_thread = pthread_self();
	static const char *const modes[] = { "isolated", "placed", "interference" };
	for (int m = 0; m < 3; m++) {
		const char *args[] = { "-o", out, "--modes", modes[m], "--warmup", "1",
				       "--min-reps", "2", "--max-reps", "3", NULL };
		atomic_store(&scale_cpus, 0);
		CU_ASSERT_EQUAL(profile_with(&p, "/dev/null", args), 0);
		unsigned long ran = atomic_load(&scale_cpus);
		unsigned long mine = (1ul << two[0]) | (1ul << two[1]);
		CU_ASSERT_NOT_EQUAL(ran, 0);
		if (m < 2) {
			CU_ASSERT_EQUAL(ran, 1ul << two[1]); /* only the chunk's core */
		} else {
			CU_ASSERT_EQUAL(ran & ~mine, 0); /* within the PU's cores (on two: any) */
		}
	}
	unlink(out);
}

static void test_bad_options(void)
{
	char errpath[] = "/tmp/btrt-prof-err-XXXXXX";
	CU_ASSERT_EQUAL_FATAL(btc_test_tmpfile(errpath), 0);
	static const struct { const char *args[5]; const char *says; } bad[] = {
		{ { "--max-reps", "3x" }, "--max-reps: '3x' is not an integer" },
		{ { "--warmup", "-1" }, "--warmup: '-1' is out of range" },
		{ { "--min-reps", "99999999999999999999" }, "is out of range" },
		{ { "--min-reps", "1" }, "--min-reps: '1' is out of range" },
		{ { "--precision", "0" }, "--precision: '0' is out of range" },
		{ { "--precision", "2%" }, "--precision: '2%' is not a number" },
		{ { "--modes", "isolated,bogus" }, "--modes: 'bogus'" },
		{ { "--min-reps", "8", "--max-reps", "4" }, "--max-reps 4 is below --min-reps 8" },
		{ { "--frobnicate", "1" }, "unknown option --frobnicate" },
		{ { "--warmup" }, "--warmup needs a value" },
		{ { "--occupy-s", "0" }, "--occupy-s: '0' is out of range" },
		{ { "--pus", "a,zz" }, "--pus: 'zz' is not a PU of device 'box'" },
		{ { "--occupy", "zz" }, "--occupy zz: not a PU of the device" },
		{ { "--occupy", "a", "-o", "t.csv" }, "--occupy a: writes no table (no -o)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(profile(errpath, bad[i].args), 2);
		char *text = slurp(errpath);
		CU_ASSERT_PTR_NOT_NULL(text && strstr(text, bad[i].says));
		if (!text || !strstr(text, bad[i].says))
			fprintf(stderr, "\n    case %zu: stderr '%s'\n", i, text ? text : "(none)");
		free(text);
	}
	unlink(errpath);
}

/* Lines of text that start with prefix. */
static int count_lines(const char *text, const char *prefix)
{
	int n = 0;
	size_t len = strlen(prefix);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		n += !strncmp(l, prefix, len);
	return n;
}

/* The rest of the first line of text that starts with prefix, or NULL. */
static const char *line_after(const char *text, const char *prefix)
{
	size_t len = strlen(prefix);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		if (!strncmp(l, prefix, len))
			return l + len;
	return NULL;
}

/* A cell's `# reps:` line against its row (the line after the prefix
 * "stage,pu,mode,"): as many repetitions as the row's samples (no
 * repetition is fenced below 8), whose mean is the row's mean to the
 * row's 6 decimals (%.6f ms) and the line's 6 significant digits. */
static void check_reps(const char *row, const char *reps)
{
	double mean = NAN, sd = NAN;
	long samples = -1;
	CU_ASSERT_EQUAL_FATAL(sscanf(row, "%lf,%lf,%ld", &mean, &sd, &samples), 3);
	CU_ASSERT_TRUE(samples >= 2 && samples <= 3);
	double sum = 0;
	long n = 0;
	char *end;
	for (const char *p = reps; *p && *p != '\n'; p = end, n++) {
		double v = strtod(p, &end);
		if (end == p)
			break;
		CU_ASSERT_TRUE(v > 0);
		sum += v;
	}
	CU_ASSERT_EQUAL(n, samples);
	CU_ASSERT_DOUBLE_EQUAL(n ? sum / (double)n : NAN, mean, 1e-6 + 1e-5 * mean);
}

static void test_table(void)
{
	char out[] = "/tmp/btrt-prof-out-XXXXXX", errpath[] = "/tmp/btrt-prof-err-XXXXXX";
	CU_ASSERT_EQUAL_FATAL(btc_test_tmpfile(out), 0);
	if (btc_test_tmpfile(errpath) != 0) {
		unlink(out);
		CU_FAIL_FATAL("btc_test_tmpfile(errpath)");
	}
	/* A precision no measurement reaches in 3 repetitions: every cell whose
	 * times are not all equal is capped. */
	const char *args[] = { "-o", out, "--modes", "isolated,interference", "--warmup", "1",
			       "--min-reps", "2", "--max-reps", "3", "--precision", "0.000001",
			       NULL };
	CU_ASSERT_EQUAL_FATAL(profile(errpath, args), 0);
	char *table = slurp(out), *err = slurp(errpath);
	CU_ASSERT_PTR_NOT_NULL_FATAL(table);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	const char *head = "# btc profiling table\n# app: toy\n# device: box\n# btc: test\n"
			   "# profiler: warmup 1, reps 2..3, 95% CI within 0.0% of the mean\n";
	CU_ASSERT_EQUAL(strncmp(table, head, strlen(head)), 0);
	CU_ASSERT_EQUAL(count_lines(table, "stage,pu,mode,mean_ms,stddev_ms,samples"), 1);
	CU_ASSERT_EQUAL(count_lines(table, "# io_loads: "), 1);
	static const char *const stages[] = { "scale", "offset", "square", "mix", "seal" };
	for (int s = 0; s < TOY_N_STAGES; s++) {
		char prefix[64];
		int capped = 0;
		for (int p = 0; p < 2; p++)
			for (int m = 0; m < 2; m++) {
				const char *mode = m ? "interference" : "isolated";
				snprintf(prefix, sizeof(prefix), "%s,%s,%s,", stages[s], pus[p].name, mode);
				CU_ASSERT_EQUAL(count_lines(table, prefix), 1);
				const char *row = line_after(table, prefix);
				snprintf(prefix, sizeof(prefix), "# reps: %s,%s,%s:", stages[s],
					 pus[p].name, mode);
				CU_ASSERT_EQUAL(count_lines(table, prefix), 1);
				const char *reps = line_after(table, prefix);
				CU_ASSERT_PTR_NOT_NULL(row);
				CU_ASSERT_PTR_NOT_NULL(reps);
				if (row && reps)
					check_reps(row, reps);
				snprintf(prefix, sizeof(prefix), "# capped: %s,%s,%s:", stages[s],
					 pus[p].name, mode);
				capped += count_lines(table, prefix);
			}
		/* the warnings: one line for a stage with capped cells, none without */
		snprintf(prefix, sizeof(prefix), "warning: stage '%s': ", stages[s]);
		CU_ASSERT_EQUAL(count_lines(err, prefix), capped > 0);
	}
	CU_ASSERT_TRUE(count_lines(err, "warning: ") <= TOY_N_STAGES);
	for (int m = 0; m < 2; m++) {
		const char *mode = m ? "interference" : "isolated";
		char prefix[64];
		for (int p = 0; p < 2; p++) {
			snprintf(prefix, sizeof(prefix), "@fixed,%s,%s,", pus[p].name, mode);
			CU_ASSERT_EQUAL(count_lines(table, prefix), 1);
		}
		snprintf(prefix, sizeof(prefix), "@io,io,%s,", mode);
		CU_ASSERT_EQUAL(count_lines(table, prefix), 1);
	}
	CU_ASSERT_EQUAL(count_lines(table, "@fixed,"), 4);
	CU_ASSERT_EQUAL(count_lines(table, "scale,a,placed"), 0);
	CU_ASSERT_EQUAL(count_lines(err, "profiled 20 stage x PU x mode cells"), 1);
	free(table);
	free(err);
	unlink(out);
	unlink(errpath);
}

/* --pus b: the stage rows of PU b only, no chunk-model rows (the co-run
 * measurement's half); --occupy a: no table, "occupying a with 5 stages
 * of toy" on stdout, then the stages in turn until --occupy-s. */
static void test_pus_and_occupy(void)
{
	char out[] = "/tmp/btrt-prof-out-XXXXXX", errpath[] = "/tmp/btrt-prof-err-XXXXXX";
	CU_ASSERT_EQUAL_FATAL(btc_test_tmpfile(out), 0);
	if (btc_test_tmpfile(errpath) != 0) {
		unlink(out);
		CU_FAIL_FATAL("btc_test_tmpfile(errpath)");
	}
	const char *args[] = { "-o", out, "--modes", "isolated", "--pus", "b", "--warmup", "1",
			       "--min-reps", "2", "--max-reps", "2", NULL };
	CU_ASSERT_EQUAL_FATAL(profile(errpath, args), 0);
	char *table = slurp(out), *err = slurp(errpath);
	CU_ASSERT_PTR_NOT_NULL_FATAL(table);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	static const char *const stages[] = { "scale", "offset", "square", "mix", "seal" };
	for (int s = 0; s < TOY_N_STAGES; s++) {
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "%s,b,isolated,", stages[s]);
		CU_ASSERT_EQUAL(count_lines(table, prefix), 1);
		snprintf(prefix, sizeof(prefix), "%s,a,", stages[s]);
		CU_ASSERT_EQUAL(count_lines(table, prefix), 0);
	}
	CU_ASSERT_EQUAL(count_lines(table, "@"), 0);
	CU_ASSERT_EQUAL(count_lines(err, "profiled 5 stage x PU x mode cells"), 1);
	free(table);
	free(err);

	/* the occupant's stdout into out */
	fflush(stdout);
	int saved = dup(1), fd = open(out, O_WRONLY | O_TRUNC);
	CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	close(fd);
	const char *occ[] = { "--occupy", "a", "--occupy-s", "0.2", NULL };
	int rc = profile(errpath, occ);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	CU_ASSERT_EQUAL(rc, 0);
	char *said = slurp(out);
	CU_ASSERT_PTR_NOT_NULL(said && strstr(said, "occupying a with 5 stages of toy\n"));
	free(said);
	unlink(out);
	unlink(errpath);
}

/* The co-runners of each cell (btrt_profiler_co_runs): one GPU API per
 * pipeline, so a CUDA cell never co-runs with a Vulkan PU nor the reverse;
 * a CPU cell with the API btc plans by default (CUDA where there is one). */
static void test_co_runs(void)
{
	static const struct btrt_profiler_pu mixed[] = {
		{ "cpu", BTRT_PU_CPU, NULL, 0, NULL, 0, -1, -1, 1 },
		{ "vulkan", BTRT_PU_VULKAN, NULL, 0, NULL, 0, -1, -1, 1 },
		{ "cuda", BTRT_PU_CUDA, NULL, 0, NULL, 0, -1, -1, 1 },
	};
	/* [p][q]: q co-runs beside p's cell */
	static const int want[3][3] = { { 0, 0, 1 }, { 1, 0, 0 }, { 1, 0, 0 } };
	for (uint32_t p = 0; p < 3; p++)
		for (uint32_t q = 0; q < 3; q++)
			CU_ASSERT_EQUAL(btrt_profiler_co_runs(mixed, 3, p, q), want[p][q]);
	/* Vulkan first, CUDA after: the CPU cell still co-runs with CUDA. */
	static const struct btrt_profiler_pu order[] = {
		{ "gpu", BTRT_PU_VULKAN, NULL, 0, NULL, 0, -1, -1, 1 },
		{ "big", BTRT_PU_CPU, NULL, 0, NULL, 0, -1, -1, 1 },
		{ "little", BTRT_PU_CPU, NULL, 0, NULL, 0, -1, -1, 1 },
		{ "cuda", BTRT_PU_CUDA, NULL, 0, NULL, 0, -1, -1, 1 },
	};
	static const int want4[4][4] = { { 0, 1, 1, 0 }, { 0, 0, 1, 1 }, { 0, 1, 0, 1 },
					 { 0, 1, 1, 0 } };
	for (uint32_t p = 0; p < 4; p++)
		for (uint32_t q = 0; q < 4; q++)
			CU_ASSERT_EQUAL(btrt_profiler_co_runs(order, 4, p, q), want4[p][q]);
	/* One GPU API (the paper's devices): every other PU, as before. */
	for (uint32_t p = 0; p < 3; p++)
		for (uint32_t q = 0; q < 3; q++)
			CU_ASSERT_EQUAL(btrt_profiler_co_runs(order, 3, p, q), p != q);
	/* Two CPU PUs alone (the toy table's device). */
	CU_ASSERT_TRUE(btrt_profiler_co_runs(pus, 2, 0, 1));
	CU_ASSERT_TRUE(btrt_profiler_co_runs(pus, 2, 1, 0));
	CU_ASSERT_FALSE(btrt_profiler_co_runs(pus, 2, 1, 1));
}

/* The cell statistic: a preempted repetition (50 ms among ~1 ms) left out,
 * a lower one too, nothing left out of a spread without a far-out value,
 * of equal values, or of fewer than 8 samples. */
static void test_fenced_mean(void)
{
	double v[30], tmp[30], sd;
	long kept;
	for (int i = 0; i < 30; i++)
		v[i] = 1.0 + 0.01 * (i % 5);
	double plain = 0;
	for (int i = 0; i < 30; i++)
		plain += v[i];
	plain /= 30;
	double m = btrt_profiler_fenced_mean(v, 30, tmp, &sd, &kept);
	CU_ASSERT_EQUAL(kept, 30);
	CU_ASSERT_DOUBLE_EQUAL(m, plain, 1e-12);
	CU_ASSERT_TRUE(sd > 0);
	v[7] = 50.0;
	m = btrt_profiler_fenced_mean(v, 30, tmp, &sd, &kept);
	CU_ASSERT_EQUAL(kept, 29);
	CU_ASSERT_DOUBLE_EQUAL(m, (plain * 30 - 1.02) / 29, 1e-12);
	CU_ASSERT_TRUE(sd < 0.05);
	CU_ASSERT_DOUBLE_EQUAL(v[7], 50.0, 0); /* v is not changed */
	v[8] = 0.01;
	m = btrt_profiler_fenced_mean(v, 30, tmp, &sd, &kept);
	CU_ASSERT_EQUAL(kept, 28);
	CU_ASSERT_TRUE(m > 1.0 && m < 1.05);
	double u[10]; /* 1..10: no far-out value */
	for (int i = 0; i < 10; i++)
		u[i] = i + 1;
	CU_ASSERT_DOUBLE_EQUAL(btrt_profiler_fenced_mean(u, 10, tmp, &sd, &kept), 5.5, 1e-12);
	CU_ASSERT_EQUAL(kept, 10);
	double e[12]; /* equal values: the width's floor keeps them all */
	for (int i = 0; i < 12; i++)
		e[i] = 2.0;
	CU_ASSERT_DOUBLE_EQUAL(btrt_profiler_fenced_mean(e, 12, tmp, &sd, &kept), 2.0, 1e-12);
	CU_ASSERT_EQUAL(kept, 12);
	CU_ASSERT_DOUBLE_EQUAL(sd, 0, 0);
	double f[7] = { 1, 1, 1, 1, 1, 1, 50 }; /* n < 8: nothing left out */
	CU_ASSERT_DOUBLE_EQUAL(btrt_profiler_fenced_mean(f, 7, tmp, &sd, &kept), 56.0 / 7, 1e-12);
	CU_ASSERT_EQUAL(kept, 7);
	CU_ASSERT_DOUBLE_EQUAL(btrt_profiler_fenced_mean(f, 1, tmp, &sd, &kept), 1, 0);
	CU_ASSERT_EQUAL(kept, 1);
	CU_ASSERT_DOUBLE_EQUAL(sd, 0, 0);
}

/* What the rig restores before each item (btrt_profiler_rig_restores), on
 * the toy app's stages (scale, offset, square, mix, seal): a buffer a
 * stage of the run reads at or before the stage that writes it (meta
 * everywhere; seal's out, in place), not one only written (scale's a,
 * offset's b, mix's out) nor one an earlier stage of the run makes. */
static void test_rig_restores(void)
{
	const struct btrt_stage *st = toy_stages_cpu;
	CU_ASSERT_FALSE(btrt_profiler_rig_restores(st, 0, 0, TOY_BUF_A));   /* scale writes a */
	CU_ASSERT_TRUE(btrt_profiler_rig_restores(st, 0, 0, TOY_BUF_META)); /* and reads meta */
	CU_ASSERT_FALSE(btrt_profiler_rig_restores(st, 1, 1, TOY_BUF_B));   /* offset writes b */
	CU_ASSERT_FALSE(btrt_profiler_rig_restores(st, 0, 1, TOY_BUF_B));
	CU_ASSERT_FALSE(btrt_profiler_rig_restores(st, 3, 3, TOY_BUF_OUT)); /* mix writes out */
	CU_ASSERT_TRUE(btrt_profiler_rig_restores(st, 4, 4, TOY_BUF_OUT));  /* seal: in place */
	CU_ASSERT_FALSE(btrt_profiler_rig_restores(st, 2, 2, TOY_BUF_A));   /* square writes a */
	CU_ASSERT_TRUE(btrt_profiler_rig_restores(st, 1, 2, TOY_BUF_A)); /* offset read it first */
}

int suite_profiler_register(void)
{
	CU_pSuite s = CU_add_suite("profiler", NULL, NULL);
	if (!s || !CU_add_test(s, "parse long", test_parse_long) ||
	    !CU_add_test(s, "parse double", test_parse_double) ||
	    !CU_add_test(s, "bad options", test_bad_options) ||
	    !CU_add_test(s, "table", test_table) ||
	    !CU_add_test(s, "the cores of each mode", test_mode_cores) ||
	    !CU_add_test(s, "pus and occupy", test_pus_and_occupy) ||
	    !CU_add_test(s, "co-runners", test_co_runs) ||
	    !CU_add_test(s, "fenced mean", test_fenced_mean) ||
	    !CU_add_test(s, "what the rig restores", test_rig_restores))
		return -1;
	return 0;
}
