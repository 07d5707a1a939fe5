/* `btc report R.json... [--csv OUT] [--candidates OUT]`: tables of main
 * jobs' reports (driver/report.h). */
#include <errno.h>
#include <string.h>

#include "cli/commands.h"
#include "driver/report.h"

int btc_cmd_report(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	FILE *csv = o->csv ? fopen(o->csv, "w") : NULL;
	if (o->csv && !csv) {
		fprintf(stderr, "btc: cannot write %s: %s\n", o->csv, strerror(errno));
		return 1;
	}
	FILE *cand = o->candidates ? fopen(o->candidates, "w") : NULL;
	if (o->candidates && !cand) {
		fprintf(stderr, "btc: cannot write %s: %s\n", o->candidates, strerror(errno));
		if (csv)
			fclose(csv);
		return 1;
	}
	FILE *fit = o->fit_csv ? fopen(o->fit_csv, "w") : NULL;
	if (o->fit_csv && !fit) {
		fprintf(stderr, "btc: cannot write %s: %s\n", o->fit_csv, strerror(errno));
		if (csv)
			fclose(csv);
		if (cand)
			fclose(cand);
		return 1;
	}
	btc_report_tables((char *const *)o->positional, o->n_positional, stdout, csv, cand, fit,
			  &d);
	if (fit && fclose(fit))
		btc_error(&d, (struct btc_loc){o->fit_csv, 0, 0}, "cannot write: %s",
			  strerror(errno));
	if (csv && fclose(csv))
		btc_error(&d, (struct btc_loc){o->csv, 0, 0}, "cannot write: %s", strerror(errno));
	if (cand && fclose(cand))
		btc_error(&d, (struct btc_loc){o->candidates, 0, 0}, "cannot write: %s",
			  strerror(errno));
	return d.errors ? 1 : 0;
}
