/* The "multi" suite's shared helpers (multi_testlib.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "multi_testlib.h"

static unsigned long multi_rng;

void multi_seed(unsigned long seed)
{
	multi_rng = seed;
}

int multi_rnd(int lo, int hi)
{
	multi_rng = multi_rng * 6364136223846793005UL + 1442695040888963407UL;
	return lo + (int)((multi_rng >> 33) % (unsigned long)(hi - lo + 1));
}

bool multi_same_rank(const struct btc_multi_result *x, const struct btc_multi_result *y, int n,
		     int k, const char *what)
{
	bool ok = x->n == y->n;
	for (int i = 0; i < x->n && i < y->n; i++) {
		bool eq = x->c[i].cost == y->c[i].cost &&
			  !memcmp(x->c[i].a, y->c[i].a, (size_t)n * sizeof(int));
		if (!eq) {
			fprintf(stderr, "\n    %s workload %d rank %d: %.17g vs %.17g:", what, k, i,
				x->c[i].cost, y->c[i].cost);
			for (int j = 0; j < n; j++)
				fprintf(stderr, " %d/%d", x->c[i].a[j], y->c[i].a[j]);
		}
		ok &= eq;
	}
	if (x->n != y->n)
		fprintf(stderr, "\n    %s workload %d: %d vs %d candidates", what, k, x->n, y->n);
	return ok;
}

enum btc_status multi_run(multi_solver_fn f, const struct btc_multi_problem *m,
			  struct btc_multi_result *r)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	return f(m, r, &d);
}

bool multi_check_solvers(const struct btc_multi_problem *m, enum btc_status ro,
			 const struct btc_multi_result *o, int n, const struct multi_solver *sv,
			 struct btc_multi_result *r, int k, const char *tag)
{
	bool all_ok = ro == BTC_OK;
	enum btc_status st[8];
	for (int i = 0; i < n; i++) {
		st[i] = multi_run(sv[i].fn, m, &r[i]);
		all_ok &= st[i] == BTC_OK;
	}
	for (int i = 0; i < n; i++)
		CU_ASSERT_EQUAL(st[i], ro);
	if (!all_ok)
		return false;
	int N = btc_multi_offset(m, m->n_streams);
	for (int i = 0; i < n; i++) {
		char what[64];
		snprintf(what, sizeof(what), "%s%s/oracle", tag, sv[i].name);
		CU_ASSERT(multi_same_rank(&r[i], o, N, k, what));
	}
	return true;
}

void multi_results_free(struct btc_multi_result *r, int n)
{
	for (int i = 0; i < n; i++)
		btc_multi_result_free(&r[i]);
}

void multi_check_bound(const struct btc_multi_problem *m, double best, int k, const char *tag)
{
	double bound;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL(btc_multi_bound(m, &bound, &d), BTC_OK);
	if (!(bound >= best * (1 - 1e-9)))
		fprintf(stderr, "\n    %sworkload %d: bound %.17g below %.17g\n", tag, k, bound,
			best);
	CU_ASSERT(bound >= best * (1 - 1e-9));
}

double multi_best_of_cost(const struct btc_multi_problem *m, double cost)
{
	return m->objective == BTC_MULTI_SUM ? -cost : 1.0 / cost;
}

void multi_rnd_apps(struct multi_streams *w)
{
	int np = w->np = multi_rnd(2, 3);
	w->n_apps = multi_rnd(1, 2);
	w->S = multi_rnd(2, 4);
	int max_n = w->S == 4 ? 2 : 3;
	for (int a = 0; a < w->n_apps; a++) {
		int n = multi_rnd(1, max_n);
		for (int i = 0; i < n * np; i++)
			w->t[a][i] = i % np > 0 && multi_rnd(0, 9) == 0 ? NAN
									: multi_rnd(1, 30) / 8.0;
		w->p[a] = (struct btc_sched_problem){
			.n_stages = n, .n_pus = np, .time_ms = w->t[a]};
		if (multi_rnd(0, 3) == 0) {
			for (int c = 0; c < np; c++)
				w->f[a][c] = multi_rnd(0, 10) / 16.0;
			w->p[a].fixed_ms = w->f[a];
			w->p[a].io_ms = multi_rnd(0, 3) ? 0 : multi_rnd(1, 40) / 8.0;
		}
		for (int j = 0; j < np * np; j++)
			w->slow[a][j] = 1 + multi_rnd(0, 8) / 8.0;
	}
}

void multi_rnd_streams(struct multi_streams *w, bool with_slow)
{
	struct btc_multi_stream *st = w->st;
	for (int s = 0; s < w->S; s++) {
		int a = s < w->n_apps ? s : multi_rnd(0, w->n_apps - 1);
		st[s] = (struct btc_multi_stream){.p = &w->p[a],
						  .app = a,
						  .weight = multi_rnd(0, 3) ? 1 : 2,
						  .rate = multi_rnd(0, 3) ? 0.25 : 0.5,
						  .slowdown = with_slow ? w->slow[a] : NULL};
	}
	/* streams in the order of the CLI: by app */
	for (int s = 1; s < w->S; s++)
		for (int j = s; j > 0 && st[j - 1].app > st[j].app; j--) {
			struct btc_multi_stream tmp = st[j];
			st[j] = st[j - 1];
			st[j - 1] = tmp;
		}
}
