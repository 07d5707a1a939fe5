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
		/* the chunk model, in btc_model_chunk_ms's order: F, S, t, X */
		double sum = p->fixed_ms ? p->fixed_ms[ch->pu] : 0;
		if (p->start_ms)
			sum += p->start_ms[ch->first_stage * p->n_pus + ch->pu];
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
	for (int k = 0; k < s->n_chunks; k++) {
		const struct btc_sched_chunk *ch = &s->chunks[k];
		if (ch->farm)
			fprintf(stderr, " {%#x}", ch->farm);
		else if (ch->cores)
			fprintf(stderr, " %d(%d)", ch->pu, ch->cores);
		else
			fprintf(stderr, " %d", ch->pu);
		fprintf(stderr, "[%d-%d]", ch->first_stage, ch->last_stage);
	}
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

bool check_space_candidate(const struct btc_sched_problem *p,
			   const struct btc_sched_options *opt,
			   const struct btc_schedule *s)
{
	int units[BTC_SCHED_MAX_PUS] = { 0 };
	bool farm = false, ok = s->n_chunks >= 1;
	int most = opt->farm_max_pus ? opt->farm_max_pus : BTC_SCHED_FARM_MAX_PUS;
	uint32_t allowed = 0;
	for (int c = 0; c < p->n_pus; c++)
		if (!(opt->forbid_mask & (1u << c)))
			allowed |= 1u << c;
	if (opt->max_chunks > 0)
		ok = ok && s->n_chunks <= opt->max_chunks;
	int next = 0;
	double tmax = 0, tmin = INFINITY;
	for (int k = 0; ok && k < s->n_chunks; k++) {
		const struct btc_sched_chunk *ch = &s->chunks[k];
		ok = ch->first_stage == next && ch->last_stage >= ch->first_stage &&
		     ch->pu >= 0 && ch->pu < p->n_pus;
		if (!ok)
			break;
		const struct btc_sched_cores *cc = p->cores ? &p->cores[ch->pu] : NULL;
		bool split = opt->core_splits && cc && cc->n_counts > 0;
		if (ch->farm) {
			/* a farm: >= 2 allowed PUs, pu the lowest, all cores */
			int m = __builtin_popcount(ch->farm);
			ok = opt->farms && m >= 2 && (m <= most || ch->farm == allowed) &&
			     !(ch->farm & ~allowed) && (ch->farm & (1u << ch->pu)) &&
			     !(ch->farm & ((1u << ch->pu) - 1)) && ch->cores == 0;
			farm = true;
			for (int c = 0; c < p->n_pus; c++)
				if (ch->farm & (1u << c))
					units[c] += p->cores && p->cores[c].n_counts &&
							    opt->core_splits
						    ? p->cores[c].size : 1;
		} else {
			ok = ok && (allowed & (1u << ch->pu));
			if (ch->cores) {
				bool found = false;
				for (int j = 0; split && j < cc->n_counts; j++)
					found |= cc->counts[j] == ch->cores;
				ok = ok && found;
				units[ch->pu] += ch->cores;
			} else {
				units[ch->pu] += split ? cc->size : 1;
			}
		}
		double member[BTC_SCHED_MAX_PUS];
		int nm = 0;
		for (int c = 0; c < p->n_pus; c++) {
			if (!(ch->farm ? (ch->farm >> c) & 1 : c == ch->pu))
				continue;
			/* F + S + sum t + X in btc_model_chunk_ms's order */
			double sum = p->fixed_ms ? p->fixed_ms[c] : 0;
			if (p->start_ms)
				sum += p->start_ms[ch->first_stage * p->n_pus + c];
			for (int i = ch->first_stage; i <= ch->last_stage; i++) {
				double t = btc_model_stage_ms(p, i, c, ch->farm ? 0 : ch->cores);
				ok = ok && !isnan(t) &&
				     !(opt->pin && opt->pin[i] >= 0 &&
				       (ch->farm || opt->pin[i] != c));
				sum += t;
			}
			if (p->xfer_ms)
				sum += p->xfer_ms[btc_model_xfer_index(
					p->n_stages, p->n_pus, c, ch->first_stage,
					ch->last_stage)];
			member[nm++] = sum;
		}
		double want = ch->farm ? btc_model_farm_ms(member, nm) : member[0];
		ok = ok && want == ch->time_ms;
		/* A farm is never slower than its fastest member alone. */
		for (int j = 0; ok && ch->farm && j < nm; j++)
			ok = want <= member[j];
		tmax = fmax(tmax, want);
		tmin = fmin(tmin, want);
		next = ch->last_stage + 1;
	}
	for (int c = 0; ok && c < p->n_pus; c++) {
		int cap = opt->core_splits && p->cores && p->cores[c].n_counts
				  ? p->cores[c].size : 1;
		ok = units[c] <= cap;
	}
	ok = ok && next == p->n_stages && (s->n_chunks >= 2 || farm) &&
	     tmax == s->tmax_ms && tmin == s->tmin_ms &&
	     tmax - tmin == s->gapness_ms && s->period_ms == fmax(p->io_ms, tmax) &&
	     s->pool == btc_model_pool(p, s) && s->pool > s->n_chunks;
	CU_ASSERT(ok);
	return ok;
}
