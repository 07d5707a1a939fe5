/* btrt_streams_run: several statically wired pipelines at once
 * (btrt_workload.h; docs/runtime.md, "Several streams"). Each stream is a
 * complete btrt_pipeline_run on a thread of its own; nothing is shared
 * between streams but the interrupt flag, the stop flag and the common
 * start below. Each stream runs over a wrapper of its app's io: its
 * prepare (the reference outputs) runs before the common start, so that
 * the streams run together from their first task, and with a planned
 * rate its load waits for the stream's next token (a token bucket of
 * depth 1). Taking turns (btrt_streams_run_turns), its load also waits
 * for the stream's turn, and its last checked task of a turn passes the
 * turn on. With shares (btrt_streams_opts.share) it waits until the
 * stream is not ahead of its share of the least normalised progress
 * (fair admission). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "btrt_pipe.h"
#include "btrt_workload.h"

/* Shared by the streams of one btrt_streams_run. */
struct workload_state {
	btrt_atomic_int failed; /* 1 + the index of the first failed stream, 0 */
	/* The common start: every stream prepared, all start at once. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t ready, expected; /* streams prepared, streams running */
	/* Time multiplexing (turn > 0): the streams take turns, stream
	 * `holder` admitting up to `turn` tasks; under tmu. */
	uint64_t turn;
	pthread_mutex_t tmu;
	pthread_cond_t tcv;
	uint32_t holder, n; /* holder == n: every stream is through */
	/* Together (btrt_streams_opts.together): set once a stream checked
	 * all its tasks; the others then stop admitting. */
	int together;
	btrt_atomic_int one_done;
	/* The start gate (btrt_streams_opts.gate), called by the last stream
	 * to be prepared before any starts. */
	void (*gate)(void *ctx);
	void *gate_ctx;
	/* Fair admission (share != NULL): under fmu, every stream's tasks
	 * admitted and whether it left the set (every task admitted, or its
	 * pipeline returned); [n]. */
	const double *share;
	uint64_t *fair_admitted;
	int *fair_out;
	pthread_mutex_t fmu;
	pthread_cond_t fcv;
};

/* Stream thread: counts itself ready, waits for every running stream. */
static void wait_start(struct workload_state *w)
{
	pthread_mutex_lock(&w->mu);
	if (++w->ready >= w->expected) {
		if (w->gate)
			w->gate(w->gate_ctx); /* the others wait on cv meanwhile */
		pthread_cond_broadcast(&w->cv);
	}
	while (w->ready < w->expected)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/* One stream: its config as run (the io wrapped when paced). */
struct stream_state {
	struct btrt_stream_run *s;
	struct workload_state *w;
	uint32_t index;
	struct btrt_pipeline_config cfg;
	/* the app's io and state; cfg.io is the wrapper below (its prepare
	 * NULL: each stream prepares before the common start) */
	const struct btrt_app_io *inner;
	void *inner_state;
	/* the pacer (io source thread only) */
	uint64_t period_ns;  /* 1e9 / rate */
	uint64_t next_ns;    /* when the next token is due; 0: the first load */
	struct btrt_app_io paced_io;
	/* its turns (under w->tmu): tasks admitted and checked in the
	 * current turn, checked in all, through (every task checked) */
	uint64_t turn; /* tasks of its turn (btrt_stream_run.turn, else w->turn) */
	uint64_t admitted, checked, checked_all;
	int through;
	struct stream_state *all; /* [w->n]: every stream, to pass the turn */
};

/* Stops the calling source's wait early: a signal, another stream's
 * failure, or the failure of its own pipeline (its checks will not
 * come: btrt_source_stop). */
static int should_stop(const struct stream_state *st)
{
	return (st->cfg.interrupt && atomic_load(st->cfg.interrupt)) ||
	       atomic_load(&st->w->failed) != 0 ||
	       (st->w->together && atomic_load(&st->w->one_done)) ||
	       (btrt_source_stop && atomic_load(btrt_source_stop));
}

/* Timed wait of at most 5 ms on cv (a signal or a failure elsewhere is
 * seen within that). */
static void wait_5ms(pthread_cond_t *cv, pthread_mutex_t *mu)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 5000000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(cv, mu, &ts);
}

/* Time multiplexing: waits until st holds the turn and may admit one
 * more task of it (at most 5 ms per wait, so that a signal or a failure
 * elsewhere is seen: then the task is admitted anyway and the stream's
 * on_task_done stops it after that task). */
static void take_turn(struct stream_state *st)
{
	struct workload_state *w = st->w;
	pthread_mutex_lock(&w->tmu);
	while ((w->holder != st->index || st->admitted >= st->turn) && !should_stop(st))
		wait_5ms(&w->tcv, &w->tmu);
	st->admitted++;
	pthread_mutex_unlock(&w->tmu);
}

/* Time multiplexing, after each checked task of st: when st holds the
 * turn and the last task it admitted in it (the turn's T-th, or its
 * stream's last) was checked, the turn passes to the next stream that is
 * not through. */
static void end_turn(struct stream_state *st)
{
	struct workload_state *w = st->w;
	pthread_mutex_lock(&w->tmu);
	st->checked++;
	st->checked_all++;
	if (st->checked_all >= st->cfg.n_items)
		st->through = 1;
	if (w->holder == st->index && st->checked == st->admitted &&
	    (st->admitted >= st->turn || st->through)) {
		st->admitted = st->checked = 0;
		uint32_t next = w->n;
		for (uint32_t k = 1; k <= w->n; k++) {
			uint32_t i = (st->index + k) % w->n;
			if (!st->all[i].through) {
				next = i;
				break;
			}
		}
		w->holder = next;
		pthread_cond_broadcast(&w->tcv);
	}
	pthread_mutex_unlock(&w->tmu);
}

enum btrt_vk_streams btrt_vk_streams_choose(enum btrt_vk_streams asked, int cpu_device,
					    uint32_t n_queues, uint32_t n_vk)
{
	if (asked != BTRT_VK_STREAMS_AUTO)
		return asked;
	if (!cpu_device)
		return BTRT_VK_STREAMS_QUEUE;
	return n_queues >= n_vk ? BTRT_VK_STREAMS_ONE : BTRT_VK_STREAMS_EACH;
}

double btrt_fair_cap(const double *share, const uint64_t *admitted, const int *out, uint32_t n,
		     uint32_t i)
{
	double least = INFINITY, coarsest = share[i];
	for (uint32_t o = 0; o < n; o++)
		if (o != i && share[o] > 0 && !out[o]) {
			least = fmin(least, (double)admitted[o] / share[o]);
			coarsest = fmin(coarsest, share[o]);
		}
	return isfinite(least) ? share[i] * (least + BTRT_FAIR_SLACK / coarsest) : INFINITY;
}

/* Fair admission: waits while st has admitted more than its cap
 * (btrt_fair_cap: its share of the least normalised progress of the
 * other sharing streams still admitting, plus the slack), then counts its
 * task admitted. The least one never waits, so some stream always
 * admits. On a stop the task is admitted anyway (as in take_turn). */
static void fair_admit(struct stream_state *st)
{
	struct workload_state *w = st->w;
	uint32_t i = st->index;
	pthread_mutex_lock(&w->fmu);
	while (!should_stop(st) &&
	       (double)w->fair_admitted[i] > btrt_fair_cap(w->share, w->fair_admitted, w->fair_out,
							   w->n, i))
		wait_5ms(&w->fcv, &w->fmu);
	w->fair_admitted[i]++;
	if (st->cfg.n_items && w->fair_admitted[i] >= st->cfg.n_items)
		w->fair_out[i] = 1;
	pthread_cond_broadcast(&w->fcv);
	pthread_mutex_unlock(&w->fmu);
}

/* st leaves the fair set (its pipeline returned). */
static void fair_leave(struct stream_state *st)
{
	struct workload_state *w = st->w;
	if (!w->share || !(w->share[st->index] > 0))
		return;
	pthread_mutex_lock(&w->fmu);
	w->fair_out[st->index] = 1;
	pthread_cond_broadcast(&w->fcv);
	pthread_mutex_unlock(&w->fmu);
}

/* A stream's admission before each load: its turn when the streams take
 * turns, its fair share of the PU when it has one. */
static void admit(struct stream_state *st)
{
	if (st->w->turn)
		take_turn(st);
	if (st->w->share && st->w->share[st->index] > 0)
		fair_admit(st);
}

/* The paced load: waits until the stream's next token (at most 5 ms per
 * sleep, so that a signal or a failure elsewhere is seen), then loads. A
 * token is due period_ns after the previous one, or now if the source is
 * late (no burst after backpressure). */
static int paced_load(void *state, uint64_t seq, void *task, char *err, size_t errlen)
{
	struct stream_state *st = state;
	admit(st);
	uint64_t now = btrt_now_ns();
	if (st->next_ns == 0)
		st->next_ns = now;
	while (now < st->next_ns && !should_stop(st)) {
		uint64_t d = st->next_ns - now;
		if (d > 5000000)
			d = 5000000;
		struct timespec ts = { 0, (long)d };
		nanosleep(&ts, NULL);
		now = btrt_now_ns();
	}
	st->next_ns = (now > st->next_ns ? now : st->next_ns) + st->period_ns;
	return st->inner->load(st->inner_state, seq, task, err, errlen);
}

static int plain_load(void *state, uint64_t seq, void *task, char *err, size_t errlen)
{
	struct stream_state *st = state;
	admit(st);
	return st->inner->load(st->inner_state, seq, task, err, errlen);
}

static int paced_check(void *state, uint64_t seq, const void *task, FILE *out, char *err,
		       size_t errlen)
{
	struct stream_state *st = state;
	return st->inner->check(st->inner_state, seq, task, out, err, errlen);
}

/* After every checked task of a stream: stop admitting once another
 * stream failed (this one's tasks in flight are still checked). */
static int on_done(void *ctx, const struct btrt_task_done *d)
{
	(void)d;
	struct stream_state *st = ctx;
	if (st->w->turn)
		end_turn(st);
	return atomic_load(&st->w->failed) != 0 ||
	       (st->w->together && atomic_load(&st->w->one_done));
}

/* Stream st's thread: computes what its checks need (the app's
 * io.prepare, the sequential reference outputs: seconds for some apps),
 * waits until every stream has, so that the streams run together from
 * their first task, then runs its pipeline. */
static void *stream_main(void *arg)
{
	struct stream_state *st = arg;
	struct btrt_stream_run *s = st->s;
	btrt_error_clear(&s->err);
	char msg[256] = "";
	if (st->cfg.check && st->inner->prepare &&
	    st->inner->prepare(st->inner_state, st->cfg.n_items, msg, sizeof msg) != 0)
		s->rc = btrt_error_set(&s->err, BTRT_E_IO, -1, "preparing the output check: %s",
				       msg);
	if (s->rc) {
		int expected = 0;
		atomic_compare_exchange_strong(&st->w->failed, &expected, (int)st->index + 1);
	}
	wait_start(st->w);
	if (s->rc)
		return NULL;
	if (atomic_load(&st->w->failed)) { /* another stream could not prepare */
		s->stopped_by_other = 1;
		return NULL;
	}
	s->rc = btrt_pipeline_run(&st->cfg, &s->run, &s->err);
	fair_leave(st);
	if (!s->rc && st->w->together)
		atomic_store(&st->w->one_done, 1);
	if (s->rc) {
		int expected = 0;
		atomic_compare_exchange_strong(&st->w->failed, &expected, (int)st->index + 1);
	}
	return NULL;
}

int btrt_streams_run(struct btrt_stream_run *s, uint32_t n, struct btrt_error *err)
{
	return btrt_streams_run_turns(s, n, 0, err);
}

int btrt_streams_run_turns(struct btrt_stream_run *s, uint32_t n, uint64_t turn,
			   struct btrt_error *err)
{
	struct btrt_streams_opts o = { .turn = turn };
	return btrt_streams_run_opts(s, n, &o, err);
}

int btrt_streams_run_opts(struct btrt_stream_run *s, uint32_t n, const struct btrt_streams_opts *o,
			  struct btrt_error *err)
{
	uint64_t turn = o ? o->turn : 0;
	if (n == 0)
		return btrt_error_set(err, BTRT_E_INVAL, 0, "no stream to run");
	for (uint32_t i = 0; i < n; i++)
		if (s[i].cfg.on_task_done || s[i].rate < 0 || (turn && !s[i].cfg.n_items))
			return btrt_error_set(err, BTRT_E_INVAL, 0,
					      "stream %u: on_task_done is btrt_streams_run's, "
					      "a rate is >= 0, and taking turns needs n_items", i);
	struct workload_state w;
	atomic_init(&w.failed, 0);
	w.turn = turn;
	w.together = o && o->together;
	atomic_init(&w.one_done, 0);
	w.gate = o ? o->gate : NULL;
	w.gate_ctx = o ? o->gate_ctx : NULL;
	w.share = o ? o->share : NULL;
	if (w.share && turn)
		return btrt_error_set(err, BTRT_E_INVAL, 0,
				      "fair admission and taking turns do not combine (a stream "
				      "holding the turn could wait for one waiting for the turn)");
	for (uint32_t i = 0; w.share && i < n; i++)
		if (!(w.share[i] >= 0) || !isfinite(w.share[i]))
			return btrt_error_set(err, BTRT_E_INVAL, 0,
					      "stream %u: a share is finite and >= 0", i);
	w.holder = 0;
	w.n = n;
	pthread_mutex_init(&w.tmu, NULL);
	pthread_cond_init(&w.tcv, NULL);
	pthread_mutex_init(&w.fmu, NULL);
	pthread_cond_init(&w.fcv, NULL);
	struct stream_state *st = calloc(n, sizeof *st);
	pthread_t *th = calloc(n, sizeof *th);
	w.fair_admitted = calloc(n, sizeof *w.fair_admitted);
	w.fair_out = calloc(n, sizeof *w.fair_out);
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	w.ready = 0;
	w.expected = n;
	if (!st || !th || !w.fair_admitted || !w.fair_out) {
		free(w.fair_admitted);
		free(w.fair_out);
		pthread_mutex_destroy(&w.mu);
		pthread_cond_destroy(&w.cv);
		pthread_mutex_destroy(&w.tmu);
		pthread_cond_destroy(&w.tcv);
		pthread_mutex_destroy(&w.fmu);
		pthread_cond_destroy(&w.fcv);
		free(st);
		free(th);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "streams: out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		st[i] = (struct stream_state){ .s = &s[i], .w = &w, .index = i, .cfg = s[i].cfg,
					       .all = st, .turn = s[i].turn ? s[i].turn : turn };
		s[i].run = NULL;
		s[i].rc = 0;
		s[i].stopped_by_other = 0;
		btrt_error_clear(&s[i].err);
		st[i].cfg.on_task_done = on_done;
		st[i].cfg.on_task_done_ctx = &st[i];
		st[i].inner = s[i].cfg.io;
		st[i].inner_state = s[i].cfg.io_state;
		st[i].period_ns = s[i].rate > 0 ? (uint64_t)(1e9 / s[i].rate) : 0;
		st[i].paced_io = *s[i].cfg.io;
		if (s[i].rate > 0)
			st[i].paced_io.load = paced_load;
		else
			st[i].paced_io.load = plain_load;
		st[i].paced_io.check = paced_check;
		st[i].paced_io.prepare = NULL; /* done before the common start */
		st[i].paced_io.open = NULL;    /* opened and closed by the caller */
		st[i].paced_io.close = NULL;
		st[i].cfg.io = &st[i].paced_io;
		st[i].cfg.io_state = &st[i];
	}
	uint32_t started = 0;
	int rc = 0;
	for (; started < n; started++)
		if (pthread_create(&th[started], NULL, stream_main, &st[started]))
			break;
	if (started < n) {
		/* The started threads wait for the missing ones: mark the run
		 * failed and release them (they stop without running). */
		rc = btrt_error_set(err, BTRT_E_SYS, 0, "cannot start stream %u's thread", started);
		int expected = 0;
		atomic_compare_exchange_strong(&w.failed, &expected, (int)started + 1);
		pthread_mutex_lock(&w.mu);
		w.expected = started;
		pthread_cond_broadcast(&w.cv);
		pthread_mutex_unlock(&w.mu);
	}
	for (uint32_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.tmu);
	pthread_cond_destroy(&w.tcv);
	pthread_mutex_destroy(&w.fmu);
	pthread_cond_destroy(&w.fcv);
	int first = atomic_load(&w.failed);
	for (uint32_t i = 0; i < started; i++)
		s[i].stopped_by_other = first != 0 && first != (int)i + 1 && s[i].rc == 0;
	if (rc == 0 && first) {
		const struct btrt_stream_run *f = &s[first - 1];
		*err = f->err;
		char head[64];
		snprintf(head, sizeof head, "stream %d (%.40s): ", first - 1,
			 f->cfg.app ? f->cfg.app : "?");
		size_t h = strlen(head);
		memcpy(err->msg, head, h);
		snprintf(err->msg + h, sizeof err->msg - h, "%.*s", (int)(sizeof err->msg - h - 1),
			 f->err.msg);
		rc = -1;
	}
	free(w.fair_admitted);
	free(w.fair_out);
	free(st);
	free(th);
	return rc;
}
