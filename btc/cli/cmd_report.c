/* `btc report R.json... [--csv OUT] [--candidates OUT] [--fit-csv OUT]
 * [--svg OUT] [--speedup-svg OUT]`, `btc report --compare A.json B.json...`:
 * tables and pictures of main jobs' reports (driver/report.h). */
#include <errno.h>
#include <string.h>

#include "cli/commands.h"
#include "driver/report.h"

/* Opens path for writing, or NULL after an error message (NULL path:
 * NULL, no error). */
static FILE *open_out(const char *path, bool *failed)
{
	if (!path)
		return NULL;
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "btc: cannot write %s: %s\n", path, strerror(errno));
		*failed = true;
	}
	return f;
}

static void close_out(FILE *f, const char *path, struct btc_diag *d)
{
	if (f && fclose(f))
		btc_error(d, (struct btc_loc){path, 0, 0}, "cannot write: %s", strerror(errno));
}

int btc_cmd_report(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	char *const *paths = (char *const *)o->positional;
	int n = o->n_positional;
	if (o->compare)
		btc_report_compare(paths, n, stdout, &d);
	else {
		bool failed = false;
		FILE *csv = open_out(o->csv, &failed);
		FILE *cand = open_out(o->candidates, &failed);
		FILE *fit = open_out(o->fit_csv, &failed);
		if (!failed)
			btc_report_tables(paths, n, stdout, csv, cand, fit, &d);
		close_out(fit, o->fit_csv, &d);
		close_out(csv, o->csv, &d);
		close_out(cand, o->candidates, &d);
		if (failed)
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
