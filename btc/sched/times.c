#include "sched/times.h"

#include <math.h>
#include <stdbool.h>

double btc_sched_chunk_time_ms(const struct btc_sched_problem *p, int pu,
			       int first, int last)
{
	double sum = 0;
	for (int i = first; i <= last; i++)
		sum += p->time_ms[i * p->n_pus + pu];
	return sum;
}

double btc_sched_tmax_ms(const struct btc_sched_problem *p,
			 const struct btc_schedule *s)
{
	double tmax = 0;
	for (int c = 0; c < s->n_chunks; c++) {
		const struct btc_sched_chunk *ch = &s->chunks[c];
		double t = btc_sched_chunk_time_ms(p, ch->pu, ch->first_stage,
						   ch->last_stage);
		if (isnan(t))
			return NAN;
		tmax = fmax(tmax, t);
	}
	return tmax;
}

void btc_sched_fill_times(const struct btc_sched_problem *p,
			  struct btc_schedule *s)
{
	bool missing = false;
	s->tmax_ms = 0;
	s->tmin_ms = INFINITY;
	for (int c = 0; c < s->n_chunks; c++) {
		struct btc_sched_chunk *ch = &s->chunks[c];
		ch->time_ms = btc_sched_chunk_time_ms(p, ch->pu, ch->first_stage,
						      ch->last_stage);
		missing |= isnan(ch->time_ms);
		s->tmax_ms = fmax(s->tmax_ms, ch->time_ms);
		s->tmin_ms = fmin(s->tmin_ms, ch->time_ms);
	}
	if (missing)
		s->tmax_ms = NAN;
	s->gapness_ms = s->tmax_ms - s->tmin_ms;
}
