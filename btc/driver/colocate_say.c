/* The workload job's lines on stderr (driver/colocate.c): the warm-up by
 * time, each round's progress and where the rounds' time went. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "driver/colocate_internal.h"
#include "util/out.h"

/* The warm-up by time, once every r* is known: each stream's tasks at its
 * solo rate (a multiplex turn's, colo_warmup_tasks), on one line; a
 * co-located run's scale by its expected rates. Returns true once said. */
bool colo_say_warmup(const struct colo_state *st, const struct btc_colocate_setup *s,
		       const struct btc_tune_options *o)
{
	for (int i = 0; i < st->S; i++)
		if (!(colo_solo_rate(st, i) > 0))
			return false;
	struct colo_cfg any = {.kind = COLO_MULTIPLEX};
	int *warm = btc_xcalloc((size_t)st->S, sizeof(int));
	colo_warmup_tasks(st, &any, o->warmup_s, o->warmup, NULL, NAN, warm);
	fprintf(stderr, "colocate: warm-up %g s per run:", o->warmup_s);
	for (int i = 0; i < st->S; i++)
		fprintf(stderr, "%s %s %d tasks", i ? "," : "", s->stream_names[i], warm[i]);
	fprintf(stderr, " (at the solo rates; a co-located run's at its expected rates)\n");
	free(warm);
	return true;
}

/* The progress line of round r. */
void colo_say_progress(const struct colo_state *st, int r, int n_live, double elapsed)
{
	fprintf(stderr, "colocate: round %d (%.1f s):", r, elapsed);
	for (int k = 0; k < st->n_cfg; k++) {
		const struct colo_cfg *c = &st->cfg[k];
		if (c->kind == COLO_SOLO)
			continue;
		char name[32];
		colo_cfg_name(c, name, sizeof(name));
		if (c->failed)
			fprintf(stderr, " %s FAILED;", name);
		else if (c->n_runs > 0) {
			struct btc_colocate_stat m;
			colo_merit_stat(st, c, &m);
			if (isnan(m.lo))
				fprintf(stderr, " %s M %.3f", name, m.median);
			else
				fprintf(stderr, " %s M %.3f [%.3f, %.3f]", name, m.median, m.lo,
					m.hi);
			fprintf(stderr, "%s;",
				c->kind == COLO_JOINT && !c->finalist ? " (out)" : "");
		}
	}
	fprintf(stderr, " %d joint left\n", n_live);
}

/* Where a round's time went: each configuration's mean seconds a run
 * and, in parentheses, the part its programs spent preparing (GPU
 * contexts, io, pools: the reports' prepare_ms), on one line. */
void colo_say_timing(const struct colo_state *st)
{
	fprintf(stderr, "colocate: seconds a run (preparing):");
	for (int k = 0; k < st->n_cfg; k++) {
		const struct colo_cfg *c = &st->cfg[k];
		if (c->n_timed < 1)
			continue;
		char name[32];
		colo_cfg_name(c, name, sizeof(name));
		fprintf(stderr, " %s %.2f (%.2f);", name, c->run_s / c->n_timed,
			c->prep_s / c->n_timed);
	}
	fprintf(stderr, "\n");
}
