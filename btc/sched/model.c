/* The chunk model (sched/model.h, docs/scheduler.md "The chunk model"). */
#include "sched/model.h"

#include <math.h>

#include <btrt_model.h>

#include "sched/optimizer.h"

double btc_model_chunk_ms(const struct btc_sched_problem *p, int c, int f, int l)
{
	/* the runtime's source (runtime/src/btrt_model.c) on a view of p */
	const struct btrt_model m = {
		.n_stages = (uint32_t)p->n_stages, .n_pus = (uint32_t)p->n_pus,
		.time_ms = p->time_ms, .fixed_ms = p->fixed_ms, .xfer_ms = p->xfer_ms,
		.io_ms = p->io_ms, .start_ms = p->start_ms,
	};
	return btrt_model_chunk_ms(&m, (uint32_t)c, (uint32_t)f, (uint32_t)l);
}

double btc_model_stage_ms(const struct btc_sched_problem *p, int i, int c, int cores)
{
	if (!cores)
		return p->time_ms[i * p->n_pus + c];
	int j = btc_model_core_slot(p, c, cores);
	return j < 0 ? NAN : p->time_cores_ms[btc_sched_cores_index(p->n_pus, i, c, j)];
}

int btc_model_core_slot(const struct btc_sched_problem *p, int c, int cores)
{
	if (!p->cores || !p->time_cores_ms)
		return -1;
	for (int j = 0; j < p->cores[c].n_counts; j++)
		if (p->cores[c].counts[j] == cores)
			return j;
	return -1;
}

double btc_model_farm_ms(const double *member_ms, int n)
{
	double period;
	uint32_t extra;
	btrt_model_farm(member_ms, (uint32_t)n, BTRT_FARM_EXTRA_MAX, &period, &extra);
	return period;
}

/* The members' chunk times of farm ch into m (PU order); returns how many. */
static int farm_members(const struct btc_sched_problem *p, const struct btc_sched_chunk *ch,
			double *m)
{
	int n = 0;
	for (int c = 0; c < p->n_pus && c < 32; c++)
		if (ch->farm & (1u << c))
			m[n++] = btc_model_chunk_ms(p, c, ch->first_stage, ch->last_stage);
	return n;
}

uint32_t btc_model_farm_admitted(const struct btc_sched_problem *p, const struct btc_sched_chunk *ch,
				 int *extra)
{
	double m[32], period;
	uint32_t x, set = 0, k = 0;
	int n = farm_members(p, ch, m);
	uint32_t bits = btrt_model_farm(m, (uint32_t)n, BTRT_FARM_EXTRA_MAX, &period, &x);
	for (int c = 0; c < p->n_pus && c < 32; c++)
		if (ch->farm & (1u << c))
			set |= ((bits >> k++) & 1u) << c;
	*extra = isnan(period) ? 0 : (int)x;
	return set;
}

int btc_model_pool(const struct btc_sched_problem *p, const struct btc_schedule *s)
{
	int pool = 1;
	for (int c = 0; c < s->n_chunks; c++) {
		const struct btc_sched_chunk *ch = &s->chunks[c];
		if (!ch->farm) {
			pool++;
			continue;
		}
		int extra;
		btc_model_farm_admitted(p, ch, &extra);
		pool += __builtin_popcount(ch->farm) + extra;
	}
	return pool;
}

/* F_c + sum of the stage times at `cores` + X_c(f, l): the chunk model
 * of btrt_model.h on the stage times of a core count (btc only: the
 * runtime's model has no core counts). */
static double chunk_cores_ms(const struct btc_sched_problem *p, int c, int cores, int f, int l)
{
	int np = p->n_pus;
	double t = p->fixed_ms ? p->fixed_ms[c] : 0;
	if (p->start_ms)
		t += p->start_ms[f * np + c];
	for (int i = f; i <= l; i++)
		t += btc_model_stage_ms(p, i, c, cores);
	if (p->xfer_ms)
		t += p->xfer_ms[btc_model_xfer_index(p->n_stages, np, c, f, l)];
	return t;
}

double btc_model_chunk_time_ms(const struct btc_sched_problem *p, const struct btc_sched_chunk *ch)
{
	if (!ch->farm) {
		if (!ch->cores)
			return btc_model_chunk_ms(p, ch->pu, ch->first_stage, ch->last_stage);
		return chunk_cores_ms(p, ch->pu, ch->cores, ch->first_stage, ch->last_stage);
	}
	double m[32];
	int n = farm_members(p, ch, m);
	return btc_model_farm_ms(m, n);
}

double btc_model_period_ms(const struct btc_sched_problem *p, double tmax_ms)
{
	return p->io_ms > tmax_ms ? p->io_ms : tmax_ms;
}

double btc_model_tmax_ms(const struct btc_sched_problem *p, const struct btc_schedule *s)
{
	double tmax = 0;
	for (int c = 0; c < s->n_chunks; c++) {
		const struct btc_sched_chunk *ch = &s->chunks[c];
		double t = btc_model_chunk_time_ms(p, ch);
		if (isnan(t))
			return NAN;
		tmax = fmax(tmax, t);
	}
	return tmax;
}

void btc_model_fill_times(const struct btc_sched_problem *p, struct btc_schedule *s)
{
	bool missing = false;
	s->tmax_ms = 0;
	s->tmin_ms = INFINITY;
	for (int c = 0; c < s->n_chunks; c++) {
		struct btc_sched_chunk *ch = &s->chunks[c];
		ch->time_ms = btc_model_chunk_time_ms(p, ch);
		missing |= isnan(ch->time_ms);
		s->tmax_ms = fmax(s->tmax_ms, ch->time_ms);
		s->tmin_ms = fmin(s->tmin_ms, ch->time_ms);
	}
	if (missing)
		s->tmax_ms = NAN;
	s->gapness_ms = s->tmax_ms - s->tmin_ms;
	s->period_ms = btc_model_period_ms(p, s->tmax_ms);
	s->pool = btc_model_pool(p, s);
}

bool btc_model_has_terms(const struct btc_sched_problem *p)
{
	return p->fixed_ms || p->xfer_ms || p->start_ms || p->io_ms > 0;
}

void btc_model_chunk_bytes(const struct btc_model_buffers *b, int f, int l, double *in_bytes,
			   int *n_in, double *out_bytes, int *n_out)
{
	int nb = b->n_buffers, n = b->n_stages;
	*in_bytes = *out_bytes = 0;
	*n_in = *n_out = 0;
	for (int k = 0; k < nb; k++) {
		if (b->in_place && b->in_place[k])
			continue;
		bool touched = false, outside = false, written = false, read_after = false;
		for (int i = 0; i < n; i++) {
			bool r = b->reads[i * nb + k] != 0, w = b->writes[i * nb + k] != 0;
			bool in = i >= f && i <= l;
			touched |= in && (r || w);
			outside |= !in && (r || w);
			if (r && written)
				read_after = true; /* read after some write */
			if (w) {
				written = true;
				read_after = false; /* only reads after the last write count */
			}
		}
		bool loaded = b->io_loaded && b->io_loaded[k];
		bool output = !read_after && !(b->scratch && b->scratch[k]);
		/* written by no stage: resident (weights) or, io-loaded, in
		 * pinned host memory (btrt_pool_config.io_loaded) */
		if (!touched || !written)
			continue;
		if (!(loaded || outside || output))
			continue;
		*in_bytes += b->bytes[k];
		*out_bytes += b->bytes[k];
		(*n_in)++;
		(*n_out)++;
	}
}

double btc_model_transfer_ms(const struct btc_model_buffers *b, const struct btc_model_link *k,
			     int f, int l)
{
	double in, out;
	int n_in, n_out;
	btc_model_chunk_bytes(b, f, l, &in, &n_in, &out, &n_out);
	const double mib = 1024.0 * 1024.0;
	return n_in * k->in_lat_ms + in / mib * k->in_ms_per_mib + n_out * k->out_lat_ms +
	       out / mib * k->out_ms_per_mib;
}

void btc_model_fill_transfers(const struct btc_model_buffers *b, const struct btc_model_link *links,
			      const bool *has_link, int np, double *xfer_ms)
{
	int n = b->n_stages;
	for (int c = 0; c < np; c++)
		for (int f = 0; f < n; f++)
			for (int l = 0; l < n; l++)
				xfer_ms[btc_model_xfer_index(n, np, c, f, l)] =
					l >= f && has_link[c]
						? btc_model_transfer_ms(b, &links[c], f, l)
						: 0;
}
