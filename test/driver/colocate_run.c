/* The test driver of btc_colocate_measure (driver/colocate.h): measures a
 * built workload program of S streams, one app each, and prints the
 * result's table (report/colocate_print.h) and writes its JSON.
 *
 *   colocate-run PROGRAM WORK_DIR JSON_OUT SOLO K JOINT.. [TASKS WARMUP ROUNDS TURN
 *                [BUDGET CAP]]
 *
 * SOLO: the solo-best schedule per stream, "1,1"; K joint candidates,
 * each "0,1" (a schedule per stream). ROUNDS: "N" (min_rounds and
 * max_rounds N, default 2) or "MIN-MAX"; BUDGET: budget_s (seconds,
 * default 60), CAP: budget_cap (budgets, default BTC_TUNE_BUDGET_CAP).
 * Exit 0 when a joint candidate verified, 1 otherwise, 2 for a bad
 * command line. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/colocate.h"
#include "report/colocate_print.h"
#include "util/out.h"
#include "util/proc.h"

/* "a,b,c" into v[n]; count or -1. */
static int longs(const char *s, long *v, int n)
{
	int k = 0;
	for (char *end; *s && k < n; s = end + (*end == ',')) {
		v[k++] = strtol(s, &end, 10);
		if (end == s)
			return -1;
	}
	return k;
}

int main(int argc, char **argv)
{
	if (argc < 7) {
		fprintf(stderr,
			"usage: %s PROGRAM WORK_DIR JSON_OUT SOLO K JOINT.. [TASKS WARMUP "
			"ROUNDS TURN [BUDGET CAP]]\n"
			"environment: COLOCATE_WARMUP_S=S the warm-up by time (default 0)\n",
			argv[0]);
		return 2;
	}
	btc_install_signal_handlers();
	long solo[16];
	int S = longs(argv[4], solo, 16), K = atoi(argv[5]);
	if (S < 1 || K < 1 || argc < 6 + K) {
		fprintf(stderr, "%s: bad SOLO or K\n", argv[0]);
		return 2;
	}
	long *joint = calloc((size_t)(K * S), sizeof(long));
	for (int k = 0; k < K; k++)
		if (longs(argv[6 + k], joint + k * S, S) != S) {
			fprintf(stderr, "%s: joint candidate %d needs %d schedules\n", argv[0], k,
				S);
			return 2;
		}
	int a = 6 + K;
	struct btc_tune_options o;
	btc_tune_options_init(&o);
	o.tasks = argc > a ? atoi(argv[a]) : 4;
	o.warmup = argc > a + 1 ? atoi(argv[a + 1]) : 1;
	/* the warm-up by time: off unless COLOCATE_WARMUP_S (seconds) */
	o.warmup_s = getenv("COLOCATE_WARMUP_S") ? atof(getenv("COLOCATE_WARMUP_S")) : 0;
	o.min_rounds = o.max_rounds = 2;
	if (argc > a + 2 && sscanf(argv[a + 2], "%d-%d", &o.min_rounds, &o.max_rounds) == 1)
		o.max_rounds = o.min_rounds;
	if (argc > a + 4)
		o.budget_s = atof(argv[a + 4]);
	if (argc > a + 5)
		o.budget_cap = atof(argv[a + 5]);
	o.seed = 7;
	const char *names[16];
	int app[16];
	double w[16];
	char buf[16][16];
	for (int i = 0; i < S; i++) {
		snprintf(buf[i], sizeof(buf[i]), "stream %d", i);
		names[i] = buf[i];
		app[i] = i;
		w[i] = 1;
	}
	struct btc_colocate_setup s = {
		.program = argv[1],
		.work_dir = argv[2],
		.n_streams = S,
		.stream_names = names,
		.stream_app = app,
		.weight = w,
		.solo_schedule = solo,
		.n_joint = K,
		.joint_schedule = joint,
		.baselines = true,
		.multiplex_turn = argc > a + 3 ? atol(argv[a + 3]) : 2,
	};
	struct btc_tune_ctx ctx = {.work_dir = argv[2], .verbose = true, .seed = 7};
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_colocate_result r;
	bool ok = btc_colocate_measure(&s, &o, &ctx, &r, &d);
	btc_diag_flush(&d);
	btc_colocate_print(stdout, &s, &r);
	cJSON *j = cJSON_CreateObject();
	btc_colocate_add_json(j, "colocation", &s, &r);
	char *text = cJSON_Print(j);
	FILE *f = fopen(argv[3], "w");
	if (f) {
		fprintf(f, "%s\n", text);
		fclose(f);
	}
	free(text);
	cJSON_Delete(j);
	btc_colocate_result_free(&r);
	free(joint);
	return ok ? 0 : 1;
}
