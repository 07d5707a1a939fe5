/* The main job's candidate set on a committed profiling table (issue 25,
 * "Candidates from the table that predicts"): plans the app on the table
 * twice, with the paper's interference mode alone (`--mode interference`)
 * and with btc tune's default (the top K of isolated and interference,
 * ranked by isolated: btc_plan_default_modes), prints both sets, and
 * checks that LABEL, the measured best of the space, is in the default
 * set; with --absent-under-interference also that the interference mode
 * alone leaves it out (the failure the default mends); with
 * --absent-without-slice that the default set without its near-period
 * slice (period_slice 0) leaves it out (the failure the slice mends).
 * With --json it checks nothing: it prints the three sets as one JSON
 * object, {"label": LABEL, "sets": {"interference": [...],
 * "default_without_slice": [...], "default": [...]}} (each set the
 * candidates' labels, baselines left out, in plan order), for
 * scripts/candidate-cover, and exits 0 when all three plan.
 *
 *   sched-candidates APP.yaml DEVICE.yaml TABLE.csv GPU LABEL
 *                    [--absent-under-interference | --absent-without-slice | --json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "front/app.h"
#include "front/device.h"
#include "front/table.h"
#include "sched/plan.h"

/* Plans with o; adds the candidates' labels (not the baselines') to
 * sets[what] and, unless json, prints them after `what`; returns whether
 * label is one of them, -1 on a planning failure. */
static int plan_has(const struct btc_app *app, const struct btc_device *dev,
		    const struct btc_table *t, const struct btc_plan_options *o, const char *what,
		    const char *label, cJSON *sets, bool json)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_plan *pl = btc_plan(app, dev, t, NULL, o, &d);
	if (!pl)
		return -1;
	int found = 0;
	cJSON *set = cJSON_AddArrayToObject(sets, what);
	if (!json)
		printf("%s:", what);
	for (int i = 0; i < pl->n_schedules; i++) {
		if (pl->schedules[i].baseline)
			continue;
		char *l = btc_plan_schedule_label(&pl->schedules[i].s, dev);
		if (!json)
			printf(" [%s]", l);
		cJSON_AddItemToArray(set, cJSON_CreateString(l));
		found |= !strcmp(l, label);
		free(l);
	}
	if (!json)
		printf("\n");
	btc_plan_free(pl);
	return found;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr,
			"usage: %s APP DEVICE TABLE GPU LABEL [--absent-under-interference | "
			"--absent-without-slice | --json]\n",
			argv[0]);
		return 2;
	}
	bool absent = argc > 6 && !strcmp(argv[6], "--absent-under-interference");
	bool no_slice = argc > 6 && !strcmp(argv[6], "--absent-without-slice");
	bool json = argc > 6 && !strcmp(argv[6], "--json");
	if (argc > 6 && !absent && !no_slice && !json) {
		fprintf(stderr, "%s: unknown option '%s'\n", argv[0], argv[6]);
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(argv[1], NULL, NULL, 0, &d);
	struct btc_device *dev = app ? btc_device_load(argv[2], NULL, NULL, &d) : NULL;
	struct btc_table *t =
		dev ? btc_table_load(argv[3], NULL, app, dev, BTC_MODE_INTERFERENCE, &d) : NULL;
	if (!t)
		return 1;
	struct btc_plan_options paper, dflt, unsliced;
	btc_plan_options_init(&paper);
	paper.gpu = argv[4];
	dflt = paper;
	btc_plan_default_modes(&dflt);
	unsliced = dflt;
	unsliced.period_slice = 0;
	cJSON *out = cJSON_CreateObject(), *sets = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "label", argv[5]);
	cJSON_AddItemToObject(out, "sets", sets);
	int in_paper = plan_has(app, dev, t, &paper, "interference", argv[5], sets, json);
	int in_unsliced = plan_has(app, dev, t, &unsliced, "default_without_slice", argv[5], sets,
				   json);
	int in_dflt = plan_has(app, dev, t, &dflt, "default", argv[5], sets, json);
	int status = 0;
	if (in_paper < 0 || in_unsliced < 0 || in_dflt < 0) {
		status = 1;
	} else if (json) {
		char *text = cJSON_PrintUnformatted(out);
		puts(text);
		cJSON_free(text);
	} else if (!in_dflt) {
		fprintf(stderr, "FAIL: %s is not among the default candidates\n", argv[5]);
		status = 1;
	} else if (absent && in_paper) {
		fprintf(stderr, "FAIL: %s is among the interference candidates too\n", argv[5]);
		status = 1;
	} else if (no_slice && in_unsliced) {
		fprintf(stderr, "FAIL: %s is among the default candidates without the slice too\n",
			argv[5]);
		status = 1;
	}
	cJSON_Delete(out);
	btc_table_free(t);
	btc_device_free(dev);
	btc_app_free(app);
	return status;
}
