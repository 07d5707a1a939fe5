/* The reference layout of a profiling table (the paper's CSV: one column
 * per processor, appended runs averaged; front/table.h). */
#include "front/table.h"
#include "front/table_csv.h"
#include "util/num.h"

#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ref_pu_for_column(const struct btc_device *dev, const char *col)
{
	for (int p = 0; p < dev->n_pus; p++) {
		const struct btc_pu *pu = &dev->pus[p];
		const char *name = pu->ref_column                ? pu->ref_column
				   : pu->kind == BTC_BACKEND_CPU ? pu->name
								 : btc_backend_name(pu->kind);
		if (!strcmp(name, col))
			return p;
	}
	return -1;
}

/* Reference layout: per (stage, PU) the mean over appended runs. */
void btc_table_load_reference(struct btc_table_lines *l, const char *path, struct btc_table *t,
			      const struct btc_app *app, const struct btc_device *dev,
			      enum btc_mode mode, struct btc_diag *d)
{
	static const char *const cols[] = {"little", "medium", "big", "vulkan", "cuda"};
	int pu_of_col[5];
	for (int c = 0; c < 5; c++)
		pu_of_col[c] = ref_pu_for_column(dev, cols[c]);
	int nsp = t->n_stages * t->n_pus;
	double *sum = btc_xcalloc((size_t)nsp, sizeof(double));
	double *sum2 = btc_xcalloc((size_t)nsp, sizeof(double));
	int *count = btc_xcalloc((size_t)nsp, sizeof(int));
	while (btc_table_next_line(l, d)) {
		char *line = l->buf;
		int lineno = l->lineno;
		if (!line[0])
			continue;
		struct btc_table_row r;
		btc_table_split(line, &r);
		if (r.n != 8) {
			btc_error(d, (struct btc_loc){path, lineno, 1},
				  "expected 8 fields (" BTC_TABLE_REF_HEADER "), found %d", r.n);
			continue;
		}
		long s;
		if (!btc_parse_int(r.f[0], 1, LONG_MAX, &s)) {
			btc_error(d, (struct btc_loc){path, lineno, 1},
				  "stage must be a 1-based number, not '%s'", r.f[0]);
			continue;
		}
		if (s > app->n_stages) {
			btc_error(d, (struct btc_loc){path, lineno, 1},
				  "stage %ld does not exist: app '%s' has %d stages", s, app->name,
				  app->n_stages);
			continue;
		}
		for (int c = 0; c < 5; c++) {
			double v;
			char what[160];
			snprintf(what, sizeof(what), "stage %ld (%s) on %s", s,
				 app->stages[s - 1].name, cols[c]);
			if (!btc_table_parse_time(r.f[c + 1],
						  (struct btc_loc){path, lineno, r.col[c + 1]},
						  what, &v, d))
				continue;
			if (v == 0.0)
				continue; /* the processor does not exist */
			int p = pu_of_col[c];
			if (p < 0)
				continue; /* a column this device does not model */
			int k = (int)(s - 1) * t->n_pus + p;
			sum[k] += v;
			sum2[k] += v * v;
			count[k]++;
		}
	}
	for (int k = 0; k < nsp; k++) {
		if (!count[k])
			continue;
		struct btc_table_entry *e = &t->e[mode][k];
		e->present = true;
		e->samples = count[k];
		e->mean_ms = sum[k] / count[k];
		double var = count[k] > 1 ? (sum2[k] - count[k] * e->mean_ms * e->mean_ms) /
						    (count[k] - 1)
					  : 0.0;
		e->stddev_ms = var > 0 ? sqrt(var) : 0.0;
	}
	t->has_mode[mode] = true;
	t->reference_layout = true;
	free(sum);
	free(sum2);
	free(count);
}
