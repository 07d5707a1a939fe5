/* checks.c: what the scheduler suites check of a result (suites.h). */
#include <math.h>
#include <stdio.h>

#include <CUnit/CUnit.h>

#include "sched/model.h"
#include "suites.h"

bool check_candidate(const struct btc_sched_problem *p,
		     const struct btc_sched_options *opt,
		     const struct btc_schedule *s)
{
	bool ok = s->n_chunks >= 2 && s->n_chunks <= p->n_pus;
	if (opt->max_chunks > 0)
		ok = ok && s->n_chunks <= opt->max_chunks;
	uint32_t used = 0;
	int next = 0;
	double tmax = 0, tmin = INFINITY;
	for (int k = 0; ok && k < s->n_chunks; k++) {
		const struct btc_sched_chunk *ch = &s->chunks[k];
		/* C1: chunks tile the stages in order; C2: one chunk per PU */
		ok = ch->first_stage == next && ch->last_stage >= ch->first_stage &&
		     ch->pu >= 0 && ch->pu < p->n_pus && !(used & (1u << ch->pu)) &&
		     !(opt->forbid_mask & (1u << ch->pu));
		if (!ok)
			break;
		used |= 1u << ch->pu;
		/* the chunk model, in btc_model_chunk_ms's order */
		double sum = p->fixed_ms ? p->fixed_ms[ch->pu] : 0;
		for (int i = ch->first_stage; i <= ch->last_stage; i++) {
			double t = p->time_ms[i * p->n_pus + ch->pu];
			ok = ok && !isnan(t) &&
			     !(opt->pin && opt->pin[i] >= 0 && opt->pin[i] != ch->pu);
			sum += t;
		}
		if (p->xfer_ms)
			sum += p->xfer_ms[btc_model_xfer_index(
				p->n_stages, p->n_pus, ch->pu, ch->first_stage,
				ch->last_stage)];
		ok = ok && sum == ch->time_ms; /* same order of summation */
		tmax = fmax(tmax, sum);
		tmin = fmin(tmin, sum);
		next = ch->last_stage + 1;
	}
	ok = ok && next == p->n_stages && tmax == s->tmax_ms &&
	     tmin == s->tmin_ms && tmax - tmin == s->gapness_ms &&
	     s->period_ms == fmax(p->io_ms, tmax);
	/* maximal chunks: neighbours differ (implied by distinct PUs) */
	CU_ASSERT(ok);
	return ok;
}

static void print_schedule(const struct btc_schedule *s)
{
	fprintf(stderr, "T_max %.4f gap %.4f:", s->tmax_ms, s->gapness_ms);
	for (int k = 0; k < s->n_chunks; k++)
		fprintf(stderr, " %d[%d-%d]", s->chunks[k].pu,
			s->chunks[k].first_stage, s->chunks[k].last_stage);
	fputc('\n', stderr);
}

bool same_ranking(const char *what, const struct btc_sched_result *a,
		  const struct btc_sched_result *b)
{
	bool ok = a->n_candidates == b->n_candidates;
	int k = 0;
	for (; ok && k < a->n_candidates; k++)
		ok = btc_sched_cmp_tmax(&a->candidates[k], &b->candidates[k]) == 0 &&
		     a->candidates[k].tmax_ms == b->candidates[k].tmax_ms;
	if (!ok) {
		fprintf(stderr, "\n  %s: rankings differ (%d vs %d candidates)",
			what, a->n_candidates, b->n_candidates);
		if (k > 0 && k <= a->n_candidates && k <= b->n_candidates) {
			fprintf(stderr, " at rank %d:\n    z3:         ", k);
			print_schedule(&a->candidates[k - 1]);
			fprintf(stderr, "    exhaustive: ");
			print_schedule(&b->candidates[k - 1]);
		} else {
			fputc('\n', stderr);
		}
	}
	CU_ASSERT(ok);
	return ok;
}

bool no_duplicates(const struct btc_sched_result *r)
{
	bool ok = true;
	for (int i = 0; i < r->n_candidates; i++)
		for (int j = i + 1; j < r->n_candidates; j++)
			ok = ok && btc_sched_cmp_tmax(&r->candidates[i],
						      &r->candidates[j]) != 0;
	CU_ASSERT(ok);
	return ok;
}
