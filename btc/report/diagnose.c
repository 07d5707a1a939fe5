/* Failing against passing schedules (report/diagnose.h). */
#include "report/diagnose.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/out.h"

/* The PU that runs stage s in schedule sch, or -1. */
static int pu_of_stage(const struct btc_schedule *sch, int s)
{
	for (int c = 0; c < sch->n_chunks; c++)
		if (s >= sch->chunks[c].first_stage && s <= sch->chunks[c].last_stage)
			return sch->chunks[c].pu;
	return -1;
}

/* "vulkan" or "big or little": the PUs of mask, in device order. */
static void put_pus(struct btc_out *o, const struct btc_device *dev, uint64_t mask)
{
	int k = 0, total = __builtin_popcountll(mask);
	for (int p = 0; p < dev->n_pus && p < 64; p++)
		if (mask >> p & 1) {
			btc_outf(o, "%s%s",
				 k == 0           ? ""
				 : k == total - 1 ? " or "
						  : ", ",
				 dev->pus[p].name);
			k++;
		}
}

/* "1, 3": the indices of schedules whose failed flag is `which`. */
static void put_indices(struct btc_out *o, const bool *failed, int n, bool which)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (failed[i] == which)
			btc_outf(o, "%s%d", k++ ? ", " : "", i);
}

/* Stages in a group: "stage 'hist'" or "stages 'blur', 'sobel'". */
static void put_stages(struct btc_out *o, const struct btc_app *app, const int *st, int m)
{
	btc_outf(o, "stage%s ", m > 1 ? "s" : "");
	for (int i = 0; i < m; i++)
		btc_outf(o, "%s'%s'", i ? ", " : "", app->stages[st[i]].name);
}

char *btc_diagnose_failures(const struct btc_app *app, const struct btc_device *dev,
			    const struct btc_plan_schedule *scheds, const bool *failed, int n)
{
	int nf = 0;
	for (int i = 0; i < n; i++)
		nf += failed[i];
	if (nf == 0)
		return NULL;
	if (nf == n)
		return btc_xasprintf("every schedule failed its check (%d of %d): no passing "
				     "schedule to compare with; the fault does not depend on "
				     "the PUs (suspect the io's load/check or every kernel)",
				     nf, n);
	int ns = app->n_stages;
	uint64_t *fail_pus = btc_xcalloc((size_t)ns, sizeof(uint64_t));
	uint64_t *pass_pus = btc_xcalloc((size_t)ns, sizeof(uint64_t));
	for (int i = 0; i < n; i++)
		for (int s = 0; s < ns; s++) {
			int p = pu_of_stage(&scheds[i].s, s);
			if (p >= 0 && p < 64)
				(failed[i] ? fail_pus : pass_pus)[s] |= 1ull << p;
		}
	struct btc_out o;
	btc_out_init(&o);
	int *group = btc_xcalloc((size_t)ns, sizeof(int));
	bool *done = btc_xcalloc((size_t)ns, sizeof(bool));
	int groups = 0;
	/* Stages that separate, grouped by equal (failing, passing) PU sets. */
	for (int s = 0; s < ns; s++) {
		if (done[s] || !fail_pus[s] || (fail_pus[s] & pass_pus[s]))
			continue;
		int m = 0;
		for (int t = s; t < ns; t++)
			if (!done[t] && fail_pus[t] == fail_pus[s] && pass_pus[t] == pass_pus[s])
				group[m++] = t, done[t] = true;
		btc_outf(&o, "%severy failing schedule (", groups++ ? "; " : "");
		put_indices(&o, failed, n, true);
		btc_out_puts(&o, ") runs ");
		put_stages(&o, app, group, m);
		btc_out_puts(&o, " on ");
		put_pus(&o, dev, fail_pus[s]);
		btc_out_puts(&o, "; every passing one (");
		put_indices(&o, failed, n, false);
		btc_outf(&o, ") runs %s on ", m > 1 ? "them" : "it");
		put_pus(&o, dev, pass_pus[s]);
	}
	if (!groups) {
		/* No stage separates: the pairs only failing schedules use. */
		for (int s = 0; s < ns; s++) {
			uint64_t only = fail_pus[s] & ~pass_pus[s];
			for (int p = 0; p < dev->n_pus && p < 64; p++) {
				if (!(only >> p & 1))
					continue;
				int k = 0;
				for (int i = 0; i < n; i++)
					k += failed[i] && pu_of_stage(&scheds[i].s, s) == p;
				btc_outf(
					&o,
					"%sstage '%s' on %s runs only in failing schedules (%d of %d)",
					groups++ ? "; " : "", app->stages[s].name, dev->pus[p].name,
					k, nf);
			}
		}
		if (!groups)
			btc_outf(&o,
				 "no stage's PU tells the %d failing schedule%s from the %d "
				 "passing one%s (suspect a race or state kept between tasks)",
				 nf, nf == 1 ? "" : "s", n - nf, n - nf == 1 ? "" : "s");
	}
	free(fail_pus);
	free(pass_pus);
	free(group);
	free(done);
	char *text = btc_xstrdup(o.buf);
	btc_out_free(&o);
	return text;
}
