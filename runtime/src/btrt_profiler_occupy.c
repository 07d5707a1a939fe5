/* The profiler's occupant (--occupy PU; btrt_profiler_internal.h): the
 * other side of a co-run measurement (docs/scheduler.md, "Several apps").
 * It keeps one PU busy with this app's own stages, as a chunk of this app
 * would while another app is measured beside it: one rig per stage that
 * runs on the PU, each stage's input made once; then the stages in turn,
 * in bursts of about BURST_MS each (one-stage pipelines, as the profiler
 * times them), until a SIGTERM ends the process or --occupy-s passes. */
#include "btrt_profiler_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* A burst's target length, ms: long enough that a pipeline's start and
 * stop (about 0.1 ms) leave the PU idle for well under 1 % of the time. */
#define BURST_MS 20.0

int btrt_profiler_occupy(const struct btrt_profiling *ctx, int pu, double max_s,
			 struct btrt_error *err)
{
	const struct btrt_app *app = ctx->app;
	const struct btrt_profiler_pu *p = &ctx->prof->pus[pu];
	struct btrt_profiler_rig *rigs = calloc(app->n_stages + 1, sizeof(*rigs));
	uint64_t *burst = calloc(app->n_stages + 1, sizeof(uint64_t));
	int n = 0, rc = 0;
	if (!rigs || !burst) {
		free(rigs);
		free(burst);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "occupant rigs");
	}
	for (uint32_t s = 0; s < app->n_stages && rc == 0; s++) {
		if (!btrt_profiler_stage_runs_on(app, s, p))
			continue;
		struct btrt_profiler_rig *r = &rigs[n];
		if (btrt_profiler_rig_init(r, ctx, p, err)) {
			rc = -1;
			break;
		}
		n++;
		/* The burst: the items one stage runs in about BURST_MS (timed
		 * over 2 items, after 1 to warm up). */
		uint64_t t0 = 0;
		rc = btrt_profiler_rig_prepare(r, (int)s, err);
		if (rc == 0)
			rc = btrt_profiler_rig_run(r, 1, NULL, NULL, err);
		if (rc == 0) {
			t0 = btrt_now_ns();
			rc = btrt_profiler_rig_run(r, 2, NULL, NULL, err);
		}
		double item_ms = (double)(btrt_now_ns() - t0) / 2e6;
		double k = item_ms > 0 ? BURST_MS / item_ms : 1000;
		burst[n - 1] = k < 1 ? 1 : k > 1000 ? 1000 : (uint64_t)k;
	}
	if (rc == 0 && n == 0)
		rc = btrt_error_set(err, BTRT_E_INVAL, 0,
				    "--occupy %s: no stage of app '%s' runs on that PU", p->name,
				    app->name);
	if (rc == 0) {
		/* The driver starts its measurement once it reads this line. */
		printf("occupying %s with %d stage%s of %s\n", p->name, n, n == 1 ? "" : "s",
		       app->name);
		fflush(stdout);
		uint64_t end = btrt_now_ns() + (uint64_t)(max_s * 1e9);
		for (int i = 0; rc == 0 && btrt_now_ns() < end; i = (i + 1) % n)
			rc = btrt_profiler_rig_run(&rigs[i], burst[i], NULL, NULL, err);
	}
	for (int i = 0; i < n; i++)
		btrt_profiler_rig_free(&rigs[i]);
	free(rigs);
	free(burst);
	return rc;
}
