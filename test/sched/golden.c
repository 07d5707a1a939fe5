/* The scheduler's answers on the 12 reference tables (pixel7a and
 * jetson-orin-nano x octree, alexnet-dense, alexnet-sparse x isolated,
 * interference), compared with a committed expected file
 * (test/sched/data/ref_golden.txt): a guard that refactoring btc/sched
 * (the plan object, the one chunk model, the one Z3 layer; issue 24)
 * leaves every schedule, prediction and bound as it was.
 *
 * Per table: the paper's model and space under the three objectives; the
 * chunk model (fixed costs F_c, transfers X_c(f, l), T_io made up from the
 * table by a fixed rule below) under `bt`; the larger space (farms, and
 * core splits of the CPU PUs on made-up core counts) under `bt`; and the
 * fluid bound of the paper's and the chunk model's problem. Output is the
 * ranking as `btc schedule --format json` writes it (btc_sched_print_json,
 * times to 1 ns) and the bound to 1 ns.
 *
 *   sched-golden EXPECTED     compare; exit 1 and a diff hint on change
 *   BTC_UPDATE_GOLDEN=1 sched-golden EXPECTED   rewrite EXPECTED
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_table.h"
#include "sched/bound.h"
#include "sched/model.h"
#include "testutil.h"

static const char *const modes[] = { "isolated", "interference" };

static int solve(FILE *out, const struct btc_sched_problem *p, const struct btc_sched_options *o,
		 const char *what)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_result r;
	if (btc_sched_solve_z3(p, o, &r, &d) != BTC_OK) {
		fprintf(stderr, "sched-golden: %s: the solver failed\n", what);
		return -1;
	}
	fprintf(out, "== %s\n", what);
	btc_sched_print_json(out, p, &r, false);
	fputc('\n', out);
	btc_sched_result_free(&r);
	return 0;
}

static int bound(FILE *out, const struct btc_sched_problem *p, const char *what)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_bound b;
	if (btc_sched_fluid_bound(p, NULL, &b, &d) != BTC_OK) {
		fprintf(stderr, "sched-golden: %s: no bound\n", what);
		btc_sched_bound_free(&b);
		return -1;
	}
	fprintf(out, "== %s\nbound_ms %.6f lp_ms %.6f io_ms %.6f\n", what, b.bound_ms, b.lp_ms,
		b.io_ms);
	btc_sched_bound_free(&b);
	return 0;
}

static bool is_cpu(const char *pu)
{
	return !strcmp(pu, "little") || !strcmp(pu, "medium") || !strcmp(pu, "big");
}

/* One table: every answer above, appended to out. */
static int table(FILE *out, const char *label, const struct ref_table *t)
{
	int n = t->n_stages, np = t->n_pus, rc = 0;
	struct btc_sched_problem p = { .n_stages = n, .n_pus = np, .time_ms = t->time_ms,
				       .pu_names = t->pu_names, .app = label };
	struct btc_sched_options o;
	char what[256];
	for (int ob = 0; ob < 3; ob++) {
		btc_sched_options_init(&o);
		o.objective = (enum btc_sched_objective)ob;
		snprintf(what, sizeof what, "%s paper %s", label, btc_sched_objective_name(o.objective));
		rc |= solve(out, &p, &o, what);
	}
	snprintf(what, sizeof what, "%s paper bound", label);
	rc |= bound(out, &p, what);

	/* The chunk model: F_c = 2 % of the PU's mean stage time, X_c(f, l)
	 * = 0.5 % of the chunk's summed time per boundary stage, T_io = 5 %
	 * of the fastest PU's stage times' mean; time_ms as given. */
	double *fixed = calloc((size_t)np, sizeof *fixed);
	double *xfer = calloc((size_t)n * (size_t)np * (size_t)n, sizeof *xfer);
	double io = INFINITY;
	if (!fixed || !xfer)
		abort();
	for (int c = 0; c < np; c++) {
		double s = 0;
		int k = 0;
		for (int i = 0; i < n; i++)
			if (!isnan(t->time_ms[i * np + c]))
				s += t->time_ms[i * np + c], k++;
		fixed[c] = k ? 0.02 * s / k : 0;
		if (k)
			io = fmin(io, 0.05 * s / k);
		for (int f = 0; f < n; f++)
			for (int l = f; l < n; l++)
				xfer[btc_model_xfer_index(n, np, c, f, l)] =
					0.005 * (isnan(t->time_ms[f * np + c]) ? 0 : t->time_ms[f * np + c]) +
					0.005 * (isnan(t->time_ms[l * np + c]) ? 0 : t->time_ms[l * np + c]);
	}
	struct btc_sched_problem m = p;
	m.fixed_ms = fixed;
	m.xfer_ms = xfer;
	m.io_ms = isfinite(io) ? io : 0;
	btc_sched_options_init(&o);
	snprintf(what, sizeof what, "%s model bt", label);
	rc |= solve(out, &m, &o, what);
	snprintf(what, sizeof what, "%s model bound", label);
	rc |= bound(out, &m, what);

	/* The larger space: farms, and every CPU PU of 4 cores with 2 cores
	 * profiled at 1.8 x the time on all 4. */
	struct btc_sched_cores *cores = calloc((size_t)np, sizeof *cores);
	double *tc = malloc((size_t)n * (size_t)np * BTC_SCHED_MAX_CORE_COUNTS * sizeof *tc);
	if (!cores || !tc)
		abort();
	for (size_t k = 0; k < (size_t)n * (size_t)np * BTC_SCHED_MAX_CORE_COUNTS; k++)
		tc[k] = NAN;
	for (int c = 0; c < np; c++) {
		if (!is_cpu(t->pu_names[c]))
			continue;
		cores[c].size = 4;
		cores[c].n_counts = 1;
		cores[c].counts[0] = 2;
		for (int i = 0; i < n; i++)
			tc[btc_sched_cores_index(np, i, c, 0)] = 1.8 * t->time_ms[i * np + c];
	}
	struct btc_sched_problem s = m;
	s.cores = cores;
	s.time_cores_ms = tc;
	btc_sched_options_init(&o);
	o.farms = true;
	o.core_splits = true;
	snprintf(what, sizeof what, "%s space bt", label);
	rc |= solve(out, &s, &o, what);
	free(cores);
	free(tc);
	free(fixed);
	free(xfer);
	return rc;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	size_t k;
	while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap)
			b = realloc(b, cap *= 2);
	}
	fclose(f);
	*len = n;
	return b;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: sched-golden EXPECTED\n");
		return 2;
	}
	if (btc_test_need_data("profiles"))
		return BTC_TEST_SKIP;
	char *got = NULL;
	size_t got_len = 0;
	FILE *out = open_memstream(&got, &got_len);
	if (!out)
		return 2;
	int rc = 0;
	for (int dv = 0; dv < 2; dv++)
		for (int ap = 0; ap < 3; ap++)
			for (int md = 0; md < 2; md++) {
				char path[512], label[128];
				snprintf(label, sizeof label, "%s/%s/%s", ref_devices[dv], ref_apps[ap],
					 modes[md]);
				struct ref_table t;
				if (ref_table_load_named(btc_test_data("profiles"), ref_devices[dv],
							 ref_apps[ap], modes[md], path, sizeof path, &t))
					return 2;
				rc |= table(out, label, &t);
				ref_table_free(&t);
			}
	fclose(out);
	if (rc)
		return 1;
	const char *update = getenv("BTC_UPDATE_GOLDEN");
	if (update && !strcmp(update, "1")) {
		FILE *f = fopen(argv[1], "wb");
		if (!f || fwrite(got, 1, got_len, f) != got_len || fclose(f)) {
			perror(argv[1]);
			return 2;
		}
		printf("sched-golden: rewrote %s\n", argv[1]);
		free(got);
		return 0;
	}
	size_t want_len = 0;
	char *want = slurp(argv[1], &want_len);
	if (!want) {
		perror(argv[1]);
		return 2;
	}
	int same = want_len == got_len && !memcmp(want, got, got_len);
	if (!same) {
		/* the first differing line, for the log */
		size_t i = 0, line = 1, start = 0;
		while (i < want_len && i < got_len && want[i] == got[i]) {
			if (want[i] == '\n')
				line++, start = i + 1;
			i++;
		}
		fprintf(stderr, "sched-golden: differs from %s at line %zu\n  want: %.200s\n  got:  %.200s\n"
			"(BTC_UPDATE_GOLDEN=1 rewrites it after an intended change)\n",
			argv[1], line, want + start, got + start);
	}
	free(want);
	free(got);
	return same ? 0 : 1;
}
