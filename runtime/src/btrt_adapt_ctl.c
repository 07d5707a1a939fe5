/* The cost model as data and the adaptive controller: observe, decide
 * (btrt_adapt_ctl.h; docs/runtime.md, "Adaptive pipelines"). Pure: no
 * threads, no clock; the adaptive run drives it from the io thread. */
#include "btrt_adapt_ctl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Quiet windows after which the switch backoff is forgotten. */
#define BTRT_ADAPT_QUIET 16
/* Windows the expected period is first measured over (the trigger's
 * baseline: this run on this machine, not the table). */
#define BTRT_ADAPT_CALIB 2

double btrt_model_period_ms(const struct btrt_model *m, const struct btrt_adapt_schedule *s,
			    const double *slowdown, double io_ms)
{
	double p = io_ms >= 0 ? io_ms : m->io_ms;
	for (uint32_t k = 0; k < s->n_chunks; k++) {
		const struct btrt_chunk *ch = &s->chunks[k];
		uint32_t u = s->pus[k];
		double t = btrt_model_chunk_ms(m, u, ch->first_stage,
					       ch->first_stage + ch->n_stages - 1);
		if (isnan(t))
			return NAN;
		t *= slowdown ? slowdown[u] : 1.0;
		p = t > p ? t : p;
	}
	return p;
}

void btrt_adapt_options_init(struct btrt_adapt_options *o)
{
	memset(o, 0, sizeof *o);
	o->window = 16;
	o->window_ms = 100.0;
	o->patience = 3;
	o->threshold = 0.50;
	o->margin = 0.20;
	o->trial_windows = 2;
	o->max_trials = 3;
	o->accept = 0.05;
	o->explore = 0.50;
}

uint32_t btrt_adapt_settle(const struct btrt_adapt_options *o, uint32_t pool_size)
{
	uint64_t settle = o->settle ? o->settle : (uint64_t)pool_size + 4;
	if (settle < pool_size) /* every slot's first use before the window */
		settle = pool_size;
	return settle > UINT32_MAX ? UINT32_MAX : (uint32_t)settle;
}

/* What the controller is doing with the current segment. */
enum phase {
	WATCH,                     /* comparing windows with the expected period */
	TRIAL,                     /* measuring a candidate */
};

struct btrt_adapt_ctl {
	const struct btrt_model *m;
	const struct btrt_adapt_schedule *s;
	uint32_t n, cur, target;
	int pending;               /* a switch was asked for: draining */
	struct btrt_adapt_options o;
	uint32_t settle;
	enum phase phase, next_phase;
	/* this segment */
	uint64_t seg_tasks;        /* tasks observed since the (re)start */
	uint64_t last_done;        /* previous completion (ns), 0: none */
	uint32_t w;                /* tasks in the current window */
	double sum_iv, sum_io;     /* ns; io: max(load, check) per task */
	double *sum_chunk;         /* [max chunks] ns */
	uint32_t over;             /* windows in a row above the threshold */
	double first_over_ms;      /* the period of the first of them (ms) */
	double over_ms;            /* the sum of the others' periods (ms) */
	uint32_t quiet;            /* windows in a row below it */
	uint32_t backoff;          /* windows above needed: patience x backoff,
				      doubled by every episode that switched
				      (up to 8), back to 1 after
				      BTRT_ADAPT_QUIET quiet windows */
	uint32_t trial_w;          /* windows measured in this trial */
	double trial_sum_ms;       /* the sum of their periods */
	double *ratio;             /* [n] observed / predicted period of each
				      schedule when it last ran, 0: never */
	/* the episode: from a trigger to an accept or revert */
	double *meas;              /* [n] period measured in this episode, 0:
				      not measured */
	uint32_t tried;            /* trials in this episode */
	int episode_switched;
	double expected_ms;        /* what the trigger compares with; 0: the
				      next window sets it */
	double next_expected_ms;   /* expected_ms after the pending switch */
	/* calibration: the first BTRT_ADAPT_CALIB windows of the run */
	uint32_t calib_w;
	double calib_sum_ms;
	/* the machine: slowdown of PU u = its chunk time / the model's, over
	 * the same at the start (base: the table's own error on that chunk is
	 * not a disturbance); PUs first seen later have base 1 */
	int calibrated;
	double slow[BTRT_ADAPT_MAX_PUS];
	double base[BTRT_ADAPT_MAX_PUS];
	unsigned char seen[BTRT_ADAPT_MAX_PUS];
	struct btrt_adapt_decision *dec;
	uint32_t n_dec, cap_dec;
};

struct btrt_adapt_ctl *btrt_adapt_ctl_create(const struct btrt_model *m,
					     const struct btrt_adapt_schedule *scheds,
					     uint32_t n_scheds, uint32_t start,
					     uint32_t pool_size,
					     const struct btrt_adapt_options *opt)
{
	struct btrt_adapt_ctl *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	uint32_t max_chunks = 1;
	for (uint32_t k = 0; k < n_scheds; k++)
		max_chunks = scheds[k].n_chunks > max_chunks ? scheds[k].n_chunks : max_chunks;
	c->sum_chunk = calloc(max_chunks, sizeof *c->sum_chunk);
	c->ratio = calloc(n_scheds ? n_scheds : 1, sizeof *c->ratio);
	c->meas = calloc(n_scheds ? n_scheds : 1, sizeof *c->meas);
	if (!c->sum_chunk || !c->ratio || !c->meas) {
		free(c->sum_chunk);
		free(c->ratio);
		free(c->meas);
		free(c);
		return NULL;
	}
	c->backoff = 1;
	c->m = m;
	c->s = scheds;
	c->n = n_scheds;
	c->cur = c->target = start;
	c->o = *opt;
	if (!c->o.window)
		c->o.window = 1;
	if (!c->o.patience)
		c->o.patience = 1;
	if (!c->o.trial_windows)
		c->o.trial_windows = 1;
	c->settle = btrt_adapt_settle(opt, pool_size);
	for (uint32_t u = 0; u < BTRT_ADAPT_MAX_PUS; u++)
		c->slow[u] = c->base[u] = 1.0;
	return c;
}

void btrt_adapt_ctl_free(struct btrt_adapt_ctl *c)
{
	if (!c)
		return;
	free(c->sum_chunk);
	free(c->ratio);
	free(c->meas);
	free(c->dec);
	free(c);
}

uint32_t btrt_adapt_ctl_target(const struct btrt_adapt_ctl *c) { return c->target; }
uint32_t btrt_adapt_ctl_current(const struct btrt_adapt_ctl *c) { return c->cur; }

const struct btrt_adapt_decision *btrt_adapt_ctl_decisions(const struct btrt_adapt_ctl *c,
							   uint32_t *n)
{
	*n = c->n_dec;
	return c->dec;
}

static void reset_window(struct btrt_adapt_ctl *c)
{
	c->w = 0;
	c->sum_iv = c->sum_io = 0;
	uint32_t nc = c->s[c->cur].n_chunks;
	for (uint32_t k = 0; k < nc; k++)
		c->sum_chunk[k] = 0;
}

void btrt_adapt_ctl_switched(struct btrt_adapt_ctl *c)
{
	c->cur = c->target;
	c->pending = 0;
	c->seg_tasks = 0;
	c->last_done = 0;
	c->over = c->quiet = 0;
	c->over_ms = 0;
	c->phase = c->next_phase;
	c->trial_w = 0;
	c->trial_sum_ms = 0;
	if (c->phase == WATCH) { /* an episode ends with this switch */
		c->backoff = c->backoff < 8 ? 2 * c->backoff : 8;
		c->expected_ms = c->next_expected_ms;
	}
	c->next_expected_ms = 0;
	reset_window(c);
}

/* The slowdown the model applies to PU u: measured, else none. */
static double slowdown_of(const struct btrt_adapt_ctl *c, uint32_t u)
{
	return c->seen[u] ? c->slow[u] : 1.0;
}

/* Appends a decision; returns it (NULL: out of memory, not recorded). */
static struct btrt_adapt_decision *record(struct btrt_adapt_ctl *c, uint64_t seq, uint32_t to,
					  const char *kind, const char *reason, double observed,
					  double expected)
{
	if (c->n_dec == c->cap_dec) {
		uint32_t cap = c->cap_dec ? 2 * c->cap_dec : 8;
		void *p = realloc(c->dec, cap * sizeof *c->dec);
		if (!p)
			return NULL;
		c->dec = p;
		c->cap_dec = cap;
	}
	struct btrt_adapt_decision *d = &c->dec[c->n_dec++];
	memset(d, 0, sizeof *d);
	d->seq = seq;
	d->from = c->cur;
	d->to = to;
	d->kind = kind;
	d->reason = reason;
	d->observed_ms = observed;
	d->expected_ms = expected;
	if (c->m) {
		d->n_pus = c->m->n_pus;
		for (uint32_t u = 0; u < c->m->n_pus; u++) {
			d->slowdown[u] = slowdown_of(c, u);
			d->observed[u] = c->seen[u];
		}
	}
	return d;
}

static void log_decision(const struct btrt_adapt_ctl *c, const struct btrt_adapt_decision *d)
{
	FILE *f = c->o.log;
	if (!f || !d)
		return;
	fprintf(f, "adapt: task %llu: %s: %s: ", (unsigned long long)d->seq, d->kind, d->reason);
	if (d->to != d->from)
		fprintf(f, "switch %u (%s) -> %u (%s)", d->from, c->s[d->from].label, d->to,
			c->s[d->to].label);
	else
		fprintf(f, "keep %u (%s)", d->from, c->s[d->from].label);
	if (d->observed_ms > 0)
		fprintf(f, "; period %.3f ms/task, expected %.3f", d->observed_ms, d->expected_ms);
	if (d->trial_ms > 0)
		fprintf(f, "; trial %.3f ms/task vs best other %.3f", d->trial_ms, d->compared_ms);
	if (d->predicted_from_ms > 0)
		fprintf(f, "; model %.3f -> %.3f ms, expected %.3f", d->predicted_from_ms,
			d->predicted_to_ms, d->expected_to_ms);
	if (d->n_pus) {
		fprintf(f, "; slowdown");
		for (uint32_t u = 0; u < d->n_pus; u++)
			fprintf(f, " %s %.2f%s", c->m->pu_names ? c->m->pu_names[u] : "?",
				d->slowdown[u], d->observed[u] ? "" : "*");
	}
	fprintf(f, "\n");
	fflush(f);
}

/* The model's period of schedule k with the current slowdowns. */
static double predict(const struct btrt_adapt_ctl *c, uint32_t k, double io_ms)
{
	double sl[BTRT_ADAPT_MAX_PUS];
	for (uint32_t u = 0; u < c->m->n_pus; u++)
		sl[u] = slowdown_of(c, u);
	return btrt_model_period_ms(c->m, &c->s[k], sl, io_ms);
}

/* The schedule not measured in this episode with the lowest expected
 * period: the model's period with the slowdowns applied, times the
 * schedule's observed / predicted ratio from when it last ran. For a
 * schedule never run: the highest ratio measured in this episode (at its
 * start, the current schedule's: what the per-PU model leaves out, e.g.
 * handoffs, or a core that the OS fills with other work once another is
 * hogged; after trials, a trial that beat its prediction does not make
 * the others look better). Only schedules expected below limit_ms are
 * candidates: for one that ran before (its model error is known),
 * limit_known_ms; for one never run, limit_new_ms. Returns n when there is
 * none; *p, *e: its prediction and expected period. */
static uint32_t candidate(const struct btrt_adapt_ctl *c, double io_ms, double limit_known_ms,
			  double limit_new_ms, double *p, double *e)
{
	double r_cur = c->ratio[c->cur] > 0 ? c->ratio[c->cur] : 1.0;
	for (uint32_t k = 0; k < c->n; k++)
		if (c->meas[k] > 0 && c->ratio[k] > r_cur)
			r_cur = c->ratio[k];
	uint32_t best = c->n;
	*p = *e = INFINITY;
	for (uint32_t k = 0; k < c->n; k++) {
		if (!c->s[k].pus || c->s[k].skip || c->meas[k] > 0)
			continue;
		double pk = predict(c, k, io_ms);
		double ek = pk * (c->ratio[k] > 0 ? c->ratio[k] : r_cur);
		double limit = c->ratio[k] > 0 ? limit_known_ms : limit_new_ms;
		if (!isnan(ek) && ek < limit && ek < *e) {
			best = k;
			*p = pk;
			*e = ek;
		}
	}
	return best;
}

/* Asks for a switch to k; the new segment is in phase ph, expecting
 * expected_ms. */
static int go_to(struct btrt_adapt_ctl *c, uint32_t k, enum phase ph, double expected_ms)
{
	c->target = k;
	c->pending = 1;
	c->next_phase = ph;
	c->next_expected_ms = expected_ms;
	c->episode_switched = 1;
	return 1;
}

/* The period is above the expected one: a new episode. Re-ranks every
 * schedule and tries the best candidate: one that promises more than the
 * margin; or, when the current schedule's PUs slowed unevenly (the most
 * slowed by (1 + threshold / 2) x the least: on the dev box a hog on one
 * core of two slowed the other PU's chunk by 1.3-1.6 x too, the OS moving
 * the io and other threads there), one never run that is expected
 * within (1 + explore) of the period left: the re-ranking alone kept a
 * hogged schedule when the table was off on a PU the run had barely used
 * (docs/results/host-adaptive.md, run 3), and a trial that is not faster
 * is reverted. Returns 1 to switch. */
static int decide(struct btrt_adapt_ctl *c, uint64_t seq, double period_ms, double io_ms)
{
	for (uint32_t k = 0; k < c->n; k++)
		c->meas[k] = 0;
	c->tried = 0;
	c->episode_switched = 0;
	double p_cur = predict(c, c->cur, io_ms);
	if (isfinite(p_cur) && p_cur > 0)
		c->ratio[c->cur] = period_ms / p_cur;
	c->meas[c->cur] = period_ms;
	/* Exploration needs the PUs to have slowed unevenly: under an even
	 * slowdown the ranking the schedule was chosen by still holds. */
	double lo = INFINITY, hi = 0;
	for (uint32_t k = 0; k < c->s[c->cur].n_chunks; k++) {
		double sl = slowdown_of(c, c->s[c->cur].pus[k]);
		lo = sl < lo ? sl : lo;
		hi = sl > hi ? sl : hi;
	}
	int uneven = c->o.explore > 0 && hi >= (1.0 + c->o.threshold / 2) * lo;
	double limit = period_ms / (1.0 + c->o.margin);
	double p_best, e_best;
	uint32_t best = candidate(c, io_ms, limit,
				  uneven ? period_ms * (1.0 + c->o.explore) : limit, &p_best,
				  &e_best);
	int go = best < c->n && c->o.max_trials > 0;
	struct btrt_adapt_decision *d =
		record(c, seq, go ? best : c->cur, go ? "trial" : "keep",
		       go ? "period above expected, the best-ranked schedule may be faster"
			  : "period above expected, no schedule expected faster",
		       period_ms, c->expected_ms);
	if (!d)
		return 0; /* out of memory: no record, no switch */
	d->predicted_from_ms = p_cur;
	d->predicted_to_ms = go ? p_best : p_cur;
	d->expected_to_ms = go ? e_best : period_ms;
	log_decision(c, d);
	if (!go) {
		c->expected_ms = period_ms; /* the new normal (hysteresis) */
		return 0;
	}
	c->tried++;
	return go_to(c, best, TRIAL, e_best);
}

/* The trial of the current schedule measured trial_ms: stay, try the
 * next-ranked candidate, or go back to the best measured schedule.
 * Returns 1 to switch. */
static int trial_done(struct btrt_adapt_ctl *c, uint64_t seq, double trial_ms, double io_ms)
{
	double p_cur = predict(c, c->cur, io_ms);
	if (isfinite(p_cur) && p_cur > 0)
		c->ratio[c->cur] = trial_ms / p_cur;
	c->meas[c->cur] = trial_ms;
	uint32_t other = c->n; /* the best measured other schedule */
	for (uint32_t k = 0; k < c->n; k++)
		if (k != c->cur && c->meas[k] > 0 && (other == c->n || c->meas[k] < c->meas[other]))
			other = k;
	double other_ms = other < c->n ? c->meas[other] : INFINITY;
	int wins = trial_ms * (1.0 + c->o.accept) < other_ms;
	uint32_t best = wins ? c->cur : other;
	double best_ms = wins ? trial_ms : other_ms;
	double p_next = 0, e_next = INFINITY;
	/* the next trial: a schedule that ran before must be expected faster
	 * than the best measured; one never run, within (1 + explore) of it
	 * (the model's error on it is unknown, and the table may be off on
	 * a PU the run has not used yet) */
	uint32_t next = c->tried < c->o.max_trials
				? candidate(c, io_ms, best_ms / (1.0 + c->o.accept),
					    best_ms * (1.0 + c->o.explore), &p_next, &e_next)
				: c->n;
	struct btrt_adapt_decision *d;
	int sw;
	if (next < c->n) {
		d = record(c, seq, next, "trial",
			   wins ? "trial faster than the schedules measured, the next candidate "
				  "may be faster still"
				: "trial not faster than the best measured, the next candidate "
				  "may be faster",
			   trial_ms, c->expected_ms);
		if (d) {
			d->predicted_to_ms = p_next;
			d->expected_to_ms = e_next;
		}
		c->tried++;
		sw = d ? go_to(c, next, TRIAL, e_next) : 0;
	} else if (wins) {
		d = record(c, seq, c->cur, "accept",
			   "trial faster than every schedule measured in the episode", trial_ms,
			   c->expected_ms);
		if (d)
			d->expected_to_ms = trial_ms;
		sw = 0;
	} else {
		d = record(c, seq, best, "revert",
			   "trial not faster than the best measured, back to it", trial_ms,
			   c->expected_ms);
		if (d)
			d->expected_to_ms = best_ms;
		sw = d ? go_to(c, best, WATCH, best_ms) : 0;
	}
	if (d) {
		d->trial_ms = trial_ms;
		d->compared_ms = isfinite(other_ms) ? other_ms : 0;
		d->predicted_from_ms = p_cur;
		if (d->to == d->from)
			d->predicted_to_ms = p_cur;
		else if (d->to == best && !(d->predicted_to_ms > 0))
			d->predicted_to_ms = predict(c, best, io_ms);
		log_decision(c, d);
	}
	if (!sw) { /* the episode ends here, on this schedule */
		c->phase = WATCH;
		c->expected_ms = trial_ms;
		c->over = c->quiet = 0;
		c->over_ms = 0;
		if (c->episode_switched)
			c->backoff = c->backoff < 8 ? 2 * c->backoff : 8;
	}
	return sw;
}

/* One window is complete: update the slowdowns, then calibrate, trigger /
 * decide, or measure a trial. */
static int window_done(struct btrt_adapt_ctl *c, uint64_t seq)
{
	const struct btrt_adapt_schedule *s = &c->s[c->cur];
	double w = (double)c->w;
	double period_ms = c->sum_iv / w / 1e6, io_ms = c->sum_io / w / 1e6;
	if (c->m && s->pus)
		for (uint32_t k = 0; k < s->n_chunks; k++) {
			const struct btrt_chunk *ch = &s->chunks[k];
			uint32_t u = s->pus[k];
			double mc = btrt_model_chunk_ms(c->m, u, ch->first_stage,
							ch->first_stage + ch->n_stages - 1);
			double abs = c->sum_chunk[k] / w / 1e6 / mc;
			if (u >= c->m->n_pus || !isfinite(mc) || mc <= 0 || !(abs > 0))
				continue;
			if (!c->calibrated)
				c->base[u] = c->seen[u] ? (c->base[u] * c->calib_w + abs) /
								  (c->calib_w + 1)
							: abs;
			c->slow[u] = abs / c->base[u];
			c->seen[u] = 1;
		}
	reset_window(c);
	if (!c->calibrated) {
		c->calib_sum_ms += period_ms;
		if (++c->calib_w < BTRT_ADAPT_CALIB)
			return 0;
		c->calibrated = 1;
		c->expected_ms = c->calib_sum_ms / c->calib_w;
		for (uint32_t u = 0; c->m && u < c->m->n_pus; u++)
			c->slow[u] = 1.0;
		log_decision(c, record(c, seq, c->cur, "calibrated", "calibrated",
				       c->expected_ms, c->expected_ms));
		return 0;
	}
	if (c->phase == TRIAL) {
		c->trial_sum_ms += period_ms;
		if (++c->trial_w < c->o.trial_windows)
			return 0;
		return trial_done(c, seq, c->trial_sum_ms / c->trial_w, io_ms);
	}
	if (c->expected_ms <= 0) {
		c->expected_ms = period_ms;
		return 0;
	}
	if (period_ms <= (1.0 + c->o.threshold) * c->expected_ms) {
		c->over = 0;
		c->over_ms = 0;
		if (++c->quiet >= BTRT_ADAPT_QUIET)
			c->backoff = 1;
		return 0;
	}
	c->quiet = 0;
	/* the period left: the mean of the windows of the run but its first,
	 * which the onset may fall in (the first alone when it is all) */
	if (c->over++ == 0)
		c->first_over_ms = period_ms;
	else
		c->over_ms += period_ms;
	if (c->over < c->o.patience * c->backoff)
		return 0;
	double left_ms = c->over > 1 ? c->over_ms / (c->over - 1) : c->first_over_ms;
	c->over = 0;
	c->over_ms = 0;
	if (!c->m || !s->pus) {
		log_decision(c, record(c, seq, c->cur, "keep", "period above expected, no cost model",
				       left_ms, c->expected_ms));
		c->expected_ms = left_ms;
		return 0;
	}
	return decide(c, seq, left_ms, io_ms);
}

int btrt_adapt_ctl_observe(struct btrt_adapt_ctl *c, const struct btrt_task_done *d)
{
	if (c->pending)
		return 0; /* draining: the old schedule's last tasks */
	c->seg_tasks++;
	if (c->o.force_every) {
		uint32_t next = (c->cur + 1) % c->n;
		while (next != c->cur && c->s[next].skip)
			next = (next + 1) % c->n;
		if (next == c->cur || c->seg_tasks % c->o.force_every)
			return 0;
		struct btrt_adapt_decision *r = record(c, d->seq, next, "forced", "forced", 0, 0);
		if (!r)
			return 0; /* out of memory: no record, no switch */
		c->target = r->to;
		c->pending = 1;
		c->next_phase = WATCH;
		log_decision(c, r);
		return 1;
	}
	if (c->seg_tasks <= c->settle || !c->last_done) {
		c->last_done = d->done_ns;
		return 0;
	}
	c->sum_iv += (double)(d->done_ns - c->last_done);
	c->last_done = d->done_ns;
	/* The io source loads while the sink checks: the io bound on the
	 * period is the slower of the two, not their sum. */
	c->sum_io += (double)(d->load_ns > d->check_ns ? d->load_ns : d->check_ns);
	uint32_t nc = c->s[c->cur].n_chunks;
	for (uint32_t k = 0; k < nc && k < d->n_chunks; k++)
		c->sum_chunk[k] += (double)d->chunk_ns[k];
	if (++c->w < c->o.window || c->sum_iv < c->o.window_ms * 1e6)
		return 0;
	return window_done(c, d->seq);
}
