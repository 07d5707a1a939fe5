/* `btc report R.json... [--csv OUT] [--candidates OUT] [--fit-csv OUT]
 * [--svg OUT] [--speedup-svg OUT]`, `btc report --compare A.json B.json...`:
 * tables and pictures of main jobs' reports (report/report.h); `btc report
 * --replay R.json... [--rules LIST] [--budget S] [--format json]`: the
 * tuner's rules replayed on the reports' recorded runs
 * (driver/tune_replay.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "driver/tune_replay.h"
#include "report/report.h"
#include "util/fsafe.h"

/* An output file built in memory and written once (util/fsafe.h). */
struct out_file {
	const char *path; /* NULL: none */
	char *buf;
	size_t len;
	FILE *f; /* a memory stream while open, NULL for no path */
};

/* Opens a memory stream for path after checking that path may be written
 * (NULL path: nothing, no error); false after an error. */
static bool open_out(struct out_file *o, const char *what, const char *path, struct btc_diag *d)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!path)
		return true;
	if (!btc_output_check(what, path, d))
		return false;
	o->f = open_memstream(&o->buf, &o->len);
	return o->f != NULL;
}

/* Writes the stream's text to its path (when write) and frees it. */
static void close_out(struct out_file *o, bool write, struct btc_diag *d)
{
	if (!o->f)
		return;
	fclose(o->f);
	if (write)
		btc_write_file_atomic(o->path, o->buf, o->len, 0, d);
	free(o->buf);
}

/* --replay: each report replayed under the rule sets; text, or one JSON
 * object {"replays": [...]} (docs/report.md, "Replay output"). */
static int replay(const struct btc_cli_options *o, struct btc_diag *d)
{
	struct btc_replay_rules rules[BTC_REPLAY_MAX_RULES];
	int n_rules = btc_replay_rules_parse(o->rules, rules, d);
	if (n_rules < 0)
		return 2;
	bool json = o->format == 1;
	cJSON *all = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(all, "replays");
	for (int i = 0; i < o->n_positional; i++) {
		struct btc_replay rp;
		const char *path = o->positional[i];
		if (btc_tune_replay(path, rules, n_rules,
				    btc_cli_given(o, BTC_OPT_BUDGET) ? o->budget_s : NAN, &rp, d)) {
			if (json)
				cJSON_AddItemToArray(arr, btc_replay_json(&rp, path));
			else
				btc_replay_print(&rp, path, stdout);
		}
		btc_replay_free(&rp);
	}
	if (json) {
		char *text = cJSON_Print(all);
		printf("%s\n", text);
		free(text);
	}
	cJSON_Delete(all);
	return d->errors ? 1 : 0;
}

int btc_cmd_report(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	char *const *paths = (char *const *)o->positional;
	int n = o->n_positional;
	static const enum btc_cli_opt replay_only[] = {BTC_OPT_RULES, BTC_OPT_BUDGET, BTC_OPT_FORMAT};
	for (int k = 0; k < 3 && !o->replay; k++)
		if (btc_cli_given(o, replay_only[k])) {
			fprintf(stderr, "btc: %s needs --replay\n", btc_cli_opt_spelling(replay_only[k]));
			return 2;
		}
	if (o->replay)
		return replay(o, &d);
	if (o->compare)
		btc_report_compare(paths, n, stdout, &d);
	else {
		struct out_file csv, cand, fit;
		bool ok = open_out(&csv, "--csv", o->csv, &d) &
			  open_out(&cand, "--candidates", o->candidates, &d) &
			  open_out(&fit, "--fit-csv", o->fit_csv, &d);
		if (ok)
			btc_report_tables(paths, n, stdout, csv.f, cand.f, fit.f, &d);
		close_out(&fit, ok, &d);
		close_out(&csv, ok, &d);
		close_out(&cand, ok, &d);
		if (!ok)
			return 1;
	}
	/* The pictures read the reports again: a report that failed above
	 * fails here too, and is counted once more (the status is the same). */
	if (o->svg)
		btc_report_scatter_svg(paths, n, o->svg, &d);
	if (o->speedup_svg)
		btc_report_speedup_svg(paths, n, o->speedup_svg, &d);
	return d.errors ? 1 : 0;
}
