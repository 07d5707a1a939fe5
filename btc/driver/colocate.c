/* The workload job's measurements (driver/colocate.h; docs/report.md,
 * "The workload job"): rounds of runs of a several-stream program in a
 * seeded shuffled order, the max-min normalised throughput of each run,
 * racing of the joint candidates, and the paired gains of the best over
 * naive co-location and time multiplexing. The statistics over the runs
 * are colocate_stats.c's (pure, unit-tested). */
#include "driver/colocate.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver/colocate_internal.h"
#include "driver/tune_loop.h"
#include "util/infile.h"
#include "util/out.h"
#include "util/proc.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One process of a run: its arguments (owned strings in own[]), report,
 * stderr and the streams it runs. */
struct proc {
	char *argv[16 + 8 * BTC_RUN_MAX_TOGETHER];
	char *own[8 + 4 * BTC_RUN_MAX_TOGETHER];
	int a, n_own;
	char *report, *err;
};

static char *own(struct proc *p, char *s)
{
	p->own[p->n_own++] = s;
	return s;
}

static void proc_init(struct proc *p, const struct btc_colocate_setup *s,
		      const struct btc_tune_options *o, const char *tag, int round)
{
	memset(p, 0, sizeof(*p));
	p->report = btc_xasprintf("%s/colocate.%ld.r%d.%s.json", s->work_dir, (long)getpid(), round,
				  tag);
	p->err = btc_xasprintf("%s.stderr", p->report);
	p->argv[p->a++] = (char *)s->program;
	p->argv[p->a++] = "--tasks";
	p->argv[p->a++] = own(p, btc_xasprintf("%d", o->warmup + o->tasks));
	p->argv[p->a++] = "--warmup";
	p->argv[p->a++] = own(p, btc_xasprintf("%d", o->warmup));
	p->argv[p->a++] = "--report";
	p->argv[p->a++] = p->report;
	p->argv[p->a++] = "--quiet";
	remove(p->report);
}

static void proc_arg(struct proc *p, const char *opt, char *val)
{
	p->argv[p->a++] = (char *)opt;
	p->argv[p->a++] = own(p, val);
}

static void proc_free(struct proc *p)
{
	for (int i = 0; i < p->n_own; i++)
		free(p->own[i]);
	remove(p->report);
	remove(p->err);
	free(p->report);
	free(p->err);
}

/* Stream i's warm-up warm[i] (colo_warmup_tasks) and its tasks[i]
 * measured after it, on p's command line. */
static void proc_stream_tasks(struct proc *p, int i, const int *tasks, const int *warm)
{
	proc_arg(p, "--tasks", btc_xasprintf("%d=%d", i, warm[i] + tasks[i]));
	proc_arg(p, "--warmup", btc_xasprintf("%d=%d", i, warm[i]));
}

/* The processes of configuration c (setup order; see colocate_internal.h)
 * into p[] (up to S), stream s measuring tasks[s] tasks after its warm-up
 * of warm[s] in a run of several; returns how many. */
static int procs_of(const struct btc_colocate_setup *s, const struct btc_tune_options *o,
		    const struct colo_cfg *c, int round, const int *tasks, const int *warm,
		    const double *share, struct proc *p)
{
	char tag[64];
	int S = s->n_streams;
	if (c->kind == COLO_SOLO) {
		snprintf(tag, sizeof(tag), "solo%d", c->stream);
		proc_init(&p[0], s, o, tag, round);
		proc_arg(&p[0], "--streams", btc_xasprintf("%d", c->stream));
		proc_arg(&p[0], "--schedule",
			 btc_xasprintf("%d=%ld", c->stream, s->solo_schedule[c->stream]));
		proc_arg(&p[0], "--placement", btc_xstrdup("app"));
		proc_stream_tasks(&p[0], c->stream, tasks, warm);
		return 1;
	}
	if (c->kind == COLO_NAIVE) {
		for (int i = 0; i < S; i++) {
			snprintf(tag, sizeof(tag), "naive%d", i);
			proc_init(&p[i], s, o, tag, round);
			proc_arg(&p[i], "--streams", btc_xasprintf("%d", i));
			proc_arg(&p[i], "--schedule",
				 btc_xasprintf("%d=%ld", i, s->solo_schedule[i]));
			proc_arg(&p[i], "--placement", btc_xstrdup("app"));
			proc_stream_tasks(&p[i], i, tasks, warm);
			/* all start together once every process is prepared */
			proc_arg(&p[i], "--start-gate",
				 btc_xasprintf("%s.ready,%s/colocate.%ld.r%d.go", p[i].report,
					       s->work_dir, (long)getpid(), round));
		}
		return S;
	}
	if (c->kind == COLO_JOINT)
		snprintf(tag, sizeof(tag), "joint%d", c->joint);
	else
		snprintf(tag, sizeof(tag), "multiplex");
	proc_init(&p[0], s, o, tag, round);
	for (int i = 0; i < S; i++)
		proc_arg(&p[0], "--schedule",
			 btc_xasprintf("%d=%ld", i,
				       c->kind == COLO_JOINT ? s->joint_schedule[c->joint * S + i]
							     : s->solo_schedule[i]));
	for (int i = 0; i < S; i++)
		proc_stream_tasks(&p[0], i, tasks, warm);
	p[0].argv[p[0].a++] = "--together"; /* the first stream through ends the run */
	/* fair admission at the max-min proportions (docs/runtime.md,
	 * "Several streams"): no stream runs ahead of the others'
	 * normalised throughput and takes the PUs' time the slowest needs */
	for (int i = 0; c->kind == COLO_JOINT && share && i < S; i++)
		proc_arg(&p[0], "--share", btc_xasprintf("%d=%.9g", i, share[i]));
	if (c->kind == COLO_MULTIPLEX) {
		long turn[BTC_RUN_MAX_TOGETHER];
		colo_multiplex_turns(S, s->weight, tasks, s->multiplex_turn, turn);
		for (int i = 0; i < S; i++)
			proc_arg(&p[0], "--multiplex", btc_xasprintf("%d=%ld", i, turn[i]));
		proc_arg(&p[0], "--placement", btc_xstrdup("app"));
	}
	return 1;
}

/* Naive co-location's start (tick of btc_run_together_tick): once every
 * process created its READY file (the program's --start-gate), or once
 * one has ended before (it failed: the others go on, to be reported), GO
 * is created and they start. */
struct gate {
	const struct proc *p;
	int n;
	char *go;
	bool open;
};

static void gate_tick(void *ctx, int exited)
{
	struct gate *g = ctx;
	if (g->open)
		return;
	int ready = 0;
	for (int i = 0; i < g->n; i++) {
		char *r = btc_xasprintf("%s.ready", g->p[i].report);
		ready += access(r, F_OK) == 0;
		free(r);
	}
	if (ready == g->n || exited > 0) {
		FILE *f = fopen(g->go, "w");
		if (f)
			fclose(f);
		g->open = true;
	}
}

/* A stream's "chunks", "vk_device" and "vk_queue" of a program report
 * (its object st) into *c (n 0 and -1 when absent). */
static void read_chunks(const cJSON *st, struct btc_colocate_chunks *c)
{
	const cJSON *e, *a = cJSON_GetObjectItemCaseSensitive(st, "chunks");
	const cJSON *vd = cJSON_GetObjectItemCaseSensitive(st, "vk_device");
	const cJSON *vq = cJSON_GetObjectItemCaseSensitive(st, "vk_queue");
	memset(c, 0, sizeof(*c));
	c->vk_device = cJSON_IsNumber(vd) ? vd->valueint : -1;
	c->vk_queue = cJSON_IsNumber(vq) ? vq->valueint : -1;
	cJSON_ArrayForEach (e, a) {
		if (c->n >= BTC_COLOCATE_MAX_CHUNKS)
			break;
		const cJSON *pu = cJSON_GetObjectItemCaseSensitive(e, "pu");
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(e, "ms"), "median");
		const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "share");
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "first_stage");
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(e, "last_stage");
		if (!cJSON_IsString(pu) || !cJSON_IsNumber(ms) || !cJSON_IsNumber(sh) ||
		    !cJSON_IsNumber(f) || !cJSON_IsNumber(l))
			break;
		snprintf(c->c[c->n].pu, sizeof(c->c[c->n].pu), "%s", pu->valuestring);
		c->c[c->n].first_stage = f->valueint;
		c->c[c->n].last_stage = l->valueint;
		c->c[c->n].ms = ms->valuedouble;
		const cJSON *sm = cJSON_GetObjectItemCaseSensitive(e, "stages_ms");
		c->c[c->n].stages_ms = cJSON_IsNumber(sm) ? sm->valuedouble : 0;
		c->c[c->n].share = sh->valuedouble;
		c->n++;
	}
}

/* Reads process p's report: tasks/s of every stream it ran into rate[]
 * and its check times into at[] (n_at[]), indexed by stream (at[s] owned
 * by the caller). Returns NULL when it verified, else why (owned). */
static char *read_report(const struct proc *p, int rc, bool timed_out, double limit,
			 const struct btc_tune_options *o, const struct btc_colocate_setup *s,
			 const int *warm, double *rate, double **at, int *n_at, double *prep_ms,
			 struct btc_colocate_chunks *chunks)
{
	char *msg = btc_tune_last_message(p->err, s->program);
	char *why = NULL;
	if (timed_out) {
		why = btc_xasprintf(
			"the program ran past its time limit of %.1f s "
			"(--run-timeout-factor %g x (%g s + the expected time)) and was "
			"killed%s%s",
			limit, o->timeout_factor, BTC_RUN_STARTUP_S,
			msg ? "; its last words: " : "", msg ? msg : "");
	} else if (rc != 0) {
		char st[64];
		why = btc_xasprintf("the program %s%s%s", btc_status_text(rc, st, sizeof(st)),
				    msg ? ": " : "", msg ? msg : "");
	}
	if (why) {
		free(msg);
		return why;
	}
	cJSON *j = btc_read_json(p->report, NULL, NULL);
	const char *absent = errno == EBADMSG ? "is not JSON" : "is missing";
	const cJSON *streams = cJSON_GetObjectItemCaseSensitive(j, "streams"), *e;
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "verified")) ||
	    !cJSON_IsArray(streams))
		why = btc_xasprintf("the program's report %s%s%s",
				    j ? "does not say it verified" : absent,
				    msg ? "; its last words: " : "", msg ? msg : "");
	cJSON_ArrayForEach (e, streams) {
		const cJSON *i = cJSON_GetObjectItemCaseSensitive(e, "stream");
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "tasks_per_s");
		if (why)
			break;
		if (!cJSON_IsNumber(i) || i->valueint < 0 || i->valueint >= s->n_streams ||
		    !cJSON_IsNumber(r) || !(r->valuedouble > 0) ||
		    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "verified")))
			why = btc_xstrdup("the program's report has a stream that did not verify "
					  "or has no tasks_per_s");
		else {
			rate[i->valueint] = r->valuedouble;
			const cJSON *pm = cJSON_GetObjectItemCaseSensitive(e, "prepare_ms");
			if (cJSON_IsNumber(pm))
				*prep_ms += pm->valuedouble;
			read_chunks(e,
				    &chunks[i->valueint]);
			/* its check times (docs/report.md, "The workload's report")
			 * after the warm-up tasks the program added to ours (its
			 * `warmup`, at least its pool: issue 25), so that
			 * at[k][warm[k] - 1] ends the stream's own warm-up */
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "checked_at_ns"), *x;
			const cJSON *sw = cJSON_GetObjectItemCaseSensitive(e, "warmup");
			int k = i->valueint, n = cJSON_GetArraySize(t), skip = 0;
			if (cJSON_IsNumber(sw) && sw->valuedouble > warm[k] &&
			    sw->valuedouble - warm[k] < n)
				skip = (int)(sw->valuedouble - warm[k]);
			free(at[k]);
			at[k] = btc_xcalloc((size_t)n + 1, sizeof(double));
			n_at[k] = 0;
			cJSON_ArrayForEach (x, t)
				if (cJSON_IsNumber(x) && skip-- <= 0)
					at[k][n_at[k]++] = x->valuedouble;
		}
	}
	cJSON_Delete(j);
	free(msg);
	return why;
}

/* The bound on one run of configuration c: the tuner's rule (tune.h)
 * with the expected time the sum over its streams of their tasks at the
 * solo rate (every stream's tasks one after another, the slowest a chip
 * can take them short of a fault); a stream whose solo rate is not known
 * yet counts BTC_PROFILE_BOUND_S. */
static double run_limit(const struct colo_state *st, const struct colo_cfg *c,
			const struct btc_tune_options *o, const int *tasks, const int *warm)
{
	if (!(o->timeout_factor > 0))
		return 0;
	double expect = 0;
	for (int i = 0; i < st->S; i++) {
		if (c->kind == COLO_SOLO && i != c->stream)
			continue;
		double r = colo_solo_rate(st, i);
		expect += r > 0 ? (warm[i] + tasks[i]) / r : BTC_PROFILE_BOUND_S;
	}
	return o->timeout_factor * (BTC_RUN_STARTUP_S + expect);
}

/* Runs configuration c once (round r): true when it verified (its rates
 * recorded), false when it failed (out, with why) or when interrupted. */
static bool run_cfg(struct colo_state *st, struct colo_cfg *c, int round,
		    const struct btc_colocate_setup *s, const struct btc_tune_options *o,
		    bool verbose)
{
	struct proc *p = btc_xcalloc((size_t)st->S, sizeof(*p));
	int *tasks = btc_xcalloc((size_t)st->S, sizeof(int));
	if (c->kind == COLO_SOLO)
		for (int i = 0; i < st->S; i++)
			tasks[i] = o->tasks;
	else
		colo_cfg_tasks(st, c, o->tasks, tasks);
	/* fair admission shares: w_s r*_s of the solo runs measured so far
	 * (s->share_measured: the same r* that normalises M), else s->share */
	double *share = NULL;
	if (s->share_measured) {
		share = btc_xcalloc((size_t)st->S, sizeof(double));
		for (int i = 0; i < st->S; i++) {
			share[i] = s->weight[i] * colo_solo_rate(st, i);
			if (!(share[i] > 0)) {
				free(share);
				share = NULL;
				break;
			}
		}
	}
	int *warm = btc_xcalloc((size_t)st->S, sizeof(int));
	colo_warmup_tasks(st, c, o->warmup_s, o->warmup, s->plan_rate,
			  c->kind == COLO_JOINT && s->joint_predicted ? s->joint_predicted[c->joint]
								      : NAN,
			  warm);
	int n = procs_of(s, o, c, round, tasks, warm, share ? share : s->share, p);
	free(share);
	char *const *argv[BTC_RUN_MAX_TOGETHER];
	struct btc_run_io io[BTC_RUN_MAX_TOGETHER];
	int status[BTC_RUN_MAX_TOGETHER];
	for (int i = 0; i < n; i++) {
		p[i].argv[p[i].a] = NULL;
		argv[i] = p[i].argv;
		io[i] = (struct btc_run_io){"/dev/null", p[i].err, false};
	}
	double limit = run_limit(st, c, o, tasks, warm);
	bool timed_out;
	struct gate g = {.p = p, .n = n};
	if (c->kind == COLO_NAIVE) {
		g.go = btc_xasprintf("%s/colocate.%ld.r%d.go", s->work_dir, (long)getpid(), round);
		remove(g.go);
	}
	double t_run = now_s();
	btc_run_together_tick(argv, io, n, limit, status, &timed_out, g.go ? gate_tick : NULL, &g);
	c->run_s += now_s() - t_run;
	c->n_timed++;
	if (g.go) {
		remove(g.go);
		for (int i = 0; i < n; i++) {
			char *r = btc_xasprintf("%s.ready", p[i].report);
			remove(r);
			free(r);
		}
		free(g.go);
	}
	double *rate = btc_xcalloc((size_t)st->S, sizeof(double));
	double **at = btc_xcalloc((size_t)st->S, sizeof(double *));
	int *n_at = btc_xcalloc((size_t)st->S, sizeof(int));
	for (int i = 0; i < st->S; i++)
		rate[i] = NAN;
	char *why = NULL;
	double prep_max = 0;
	struct btc_colocate_chunks *chunks = btc_xcalloc((size_t)st->S, sizeof(*chunks));
	for (int i = 0; i < n && !why && !btc_interrupted(); i++) {
		double prep = 0;
		char *w = read_report(&p[i], status[i], timed_out, limit, o, s, warm, rate, at, n_at,
				      &prep, chunks);
		prep_max = fmax(prep_max, prep);
		if (w) {
			why = n > 1 ? btc_xasprintf("stream %d's process: %s", i, w) : w;
			if (n > 1)
				free(w);
		}
	}
	c->prep_s += prep_max / 1e3;
	/* every stream of the configuration measured */
	for (int i = 0; i < st->S && !why && !btc_interrupted(); i++)
		if ((c->kind != COLO_SOLO || i == c->stream) && isnan(rate[i]))
			why = btc_xasprintf("the program's report lacks stream %d", i);
	/* Several streams: what each got while all ran (their common window);
	 * else each one's own steady state, said in verbose mode. */
	if (!why && c->kind != COLO_SOLO && st->S > 1 &&
	    !colo_common_rates(st->S, (const double *const *)at, n_at, warm, rate) &&
	    verbose) {
		char name[32];
		colo_cfg_name(c, name, sizeof(name));
		fprintf(stderr,
			"colocate:   %s, round %d: the streams ran together too briefly for a "
			"common window; each stream's own steady state counted\n",
			name, round);
	}
	bool ok = false;
	if (!btc_interrupted()) {
		if (why) {
			colo_fail(c, round, why);
		} else {
			colo_record(st, c, round, rate);
			colo_add_chunks(c, chunks, st->S);
			ok = true;
		}
	}
	free(why);
	free(rate);
	free(chunks);
	for (int i = 0; i < st->S; i++)
		free(at[i]);
	free(at);
	free(n_at);
	free(tasks);
	free(warm);
	for (int i = 0; i < n; i++)
		proc_free(&p[i]);
	free(p);
	return ok;
}

bool btc_colocate_measure(const struct btc_colocate_setup *s, const struct btc_tune_options *o,
			  const struct btc_tune_ctx *ctx, struct btc_colocate_result *r,
			  struct btc_diag *d)
{
	memset(r, 0, sizeof(*r));
	if (s->n_streams < 1 || s->n_streams > BTC_RUN_MAX_TOGETHER || s->n_joint < 1) {
		btc_error(d, (struct btc_loc){0},
			  "co-location: %d streams and %d joint candidates (1..%d streams, at "
			  "least one candidate)",
			  s->n_streams, s->n_joint, BTC_RUN_MAX_TOGETHER);
		r->best = -1;
		return false;
	}
	double t0 = now_s();
	struct colo_state st;
	colo_state_init(&st, s, o->max_rounds);
	r->seed = ctx->seed ? ctx->seed : btc_tune_seed(o);
	r->warmup_s = o->warmup_s > 0 ? o->warmup_s : 0;
	r->rounds_needed = btc_tune_need_rounds(o);
	struct btc_rng rng;
	btc_rng_seed(&rng, r->seed);
	fprintf(stderr,
		"colocate: seed %u (--seed %u repeats these orders), %d streams, %d joint "
		"candidates%s, %d+%d tasks per stream and run, budget %g s (past it up to "
		"%g s for the %d rounds of exact 95 %% intervals), at most %d rounds\n",
		r->seed, r->seed, s->n_streams, s->n_joint,
		s->baselines ? ", naive co-location and time multiplexing" : "", o->warmup,
		o->tasks, o->budget_s, fmax(1, o->budget_cap) * o->budget_s,
		btc_tune_need_rounds(o), o->max_rounds);
	if (!(o->warmup_s > 0))
		fprintf(stderr, "colocate: no warm-up by time (--warmup-s 0): %d tasks per stream\n",
			o->warmup);
	int *order = btc_xcalloc((size_t)st.n_cfg, sizeof(int));
	bool interrupted = false, warm_said = !(o->warmup_s > 0);
	const char *stop = "max rounds";
	for (int round = 1; round <= o->max_rounds; round++) {
		double t_round = now_s();
		/* Round 1 runs the solos first (in a shuffled order), then the
		 * rest: a run of several streams is sized by every r*
		 * (colo_stream_tasks). Later rounds shuffle all. */
		int m = 0, first = 0;
		for (int k = 0; k < st.n_cfg; k++)
			if (colo_cfg_live(&st.cfg[k]) && round == 1 && st.cfg[k].kind == COLO_SOLO)
				order[first++] = k;
		m = first;
		for (int k = 0; k < st.n_cfg; k++)
			if (colo_cfg_live(&st.cfg[k]) && !(round == 1 && st.cfg[k].kind == COLO_SOLO))
				order[m++] = k;
		btc_stats_shuffle(order, first, &rng);
		btc_stats_shuffle(order + first, m - first, &rng);
		if (ctx->verbose) {
			fprintf(stderr, "colocate: round %d order:", round);
			for (int k = 0; k < m; k++) {
				char name[32];
				colo_cfg_name(&st.cfg[order[k]], name, sizeof(name));
				fprintf(stderr, " %s", name);
			}
			fprintf(stderr, "\n");
		}
		for (int k = 0; k < m && !interrupted; k++) {
			if (!run_cfg(&st, &st.cfg[order[k]], round, s, o, ctx->verbose))
				interrupted = btc_interrupted();
			if (!warm_said)
				warm_said = colo_say_warmup(&st, s, o);
		}
		st.rounds = round;
		if (interrupted)
			break;
		if (colo_solo_failed(&st)) {
			stop = "a solo run failed";
			break;
		}
		if (o->race && round >= o->min_rounds)
			colo_race(&st, ctx->verbose);
		int live = colo_joint_live(&st);
		colo_say_progress(&st, round, live, now_s() - t0);
		if (live == 0) {
			stop = "no joint candidate left";
			break;
		}
		/* every figure reported (M of each live candidate, of naive
		 * and multiplex, the gains: a head to head as the tuner's)
		 * needs the h2h_min_rounds of an exact 95 % interval, or the
		 * more min_rounds asked for (--min-rounds): neither
		 * convergence nor the budget stops the rounds before them,
		 * unless the next round would end past the cap of
		 * o->budget_cap budgets (btc_tune_budget_rule) */
		int need = btc_tune_need_rounds(o);
		const char *why = round >= need ? colo_stop(&st, o->ci_rel) : NULL;
		if (why) {
			stop = why;
			break;
		}
		double now = now_s();
		enum btc_tune_budget v =
			btc_tune_budget_rule(o, need, round, now - t0, now - t_round);
		btc_tune_budget_say(stderr, "colocate", v, o, need, round, now - t0, now - t_round);
		if (v == BTC_BUDGET_STOP || v == BTC_BUDGET_CAP) {
			stop = v == BTC_BUDGET_CAP ? "budget cap" : "budget";
			break;
		}
	}
	free(order);
	r->wall_s = now_s() - t0;
	if (interrupted) {
		colo_state_free(&st);
		btc_error(d, (struct btc_loc){0}, "co-location measurement interrupted");
		return false;
	}
	colo_result(&st, r);
	fprintf(stderr, "colocate: %d rounds in %.1f s (%s)\n", st.rounds, r->wall_s, stop);
	colo_say_timing(&st);
	bool ok = r->best >= 0;
	for (int k = 0; k < st.n_cfg; k++) {
		const struct colo_cfg *c = &st.cfg[k];
		char name[32];
		colo_cfg_name(c, name, sizeof(name));
		if (c->failed && (c->kind == COLO_SOLO || !ok))
			btc_error(d, (struct btc_loc){0}, "%s (%s): %s", name,
				  c->kind == COLO_SOLO ? s->stream_names[c->stream]
						       : "every stream",
				  c->why);
	}
	if (colo_solo_failed(&st))
		ok = false;
	colo_state_free(&st);
	return ok;
}
