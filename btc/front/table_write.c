/* Writing a profiling table in btc's tidy layout (front/table.h). */
#include "front/table.h"
#include "front/table_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsafe.h"
#include "util/out.h"

static void write_buffer_list(FILE *out, const char *prefix, const bool *flags,
			      const struct btc_app *app)
{
	const char *sep = prefix;
	for (int k = 0; k < app->n_buffers; k++)
		if (flags[k]) {
			fprintf(out, "%s%s", sep, app->buffers[k].name);
			sep = ",";
		}
	if (sep != prefix)
		fputc('\n', out);
}

void btc_table_write(const struct btc_table *t, const struct btc_app *app,
		     const struct btc_device *dev, FILE *out)
{
	fprintf(out, "# btc profiling table\n# app: %s\n# device: %s\n# btc: %s\n", app->name,
		dev->name, t->btc_version ? t->btc_version : "unknown");
	write_buffer_list(out, "# io_loads: ", t->io_loaded, app);
	write_buffer_list(out, "# in_place: ", t->in_place, app);
	const char *sep;
	sep = "# touched: ";
	for (int k = 0; k < t->n_buffers; k++)
		if (t->touched[k] >= 0) {
			fprintf(out, "%s%s=%.0f", sep, app->buffers[k].name, t->touched[k]);
			sep = ",";
		}
	if (*sep == ',')
		fputc('\n', out);
	if (t->corun_with)
		fprintf(out, BTC_TABLE_CORUN_WITH "%s\n", t->corun_with);
	if (t->share_with)
		fprintf(out, BTC_TABLE_SHARE_WITH "%s\n", t->share_with);
	fputs(BTC_TABLE_TIDY_HEADER "\n", out);
	for (int m = 0; m < BTC_N_MODES; m++) {
		for (int s = 0; s < t->n_stages; s++)
			for (int p = 0; p < t->n_pus; p++) {
				const struct btc_table_entry *e = btc_table_at(t, (enum btc_mode)m,
									       s, p);
				if (e->present)
					fprintf(out, "%s,%s,%s,%.6f,%.6f,%d\n", app->stages[s].name,
						dev->pus[p].name, btc_mode_name((enum btc_mode)m),
						e->mean_ms, e->stddev_ms, e->samples);
			}
		for (int s = 0; s < t->n_stages; s++)
			for (int p = 0; p < t->n_pus; p++)
				for (int j = 0; j < t->n_core_counts[p]; j++) {
					const struct btc_table_entry *e = btc_table_cores_at(
						t, (enum btc_mode)m, s, p, j);
					if (e->present)
						fprintf(out, "%s,%s[%d],%s,%.6f,%.6f,%d\n",
							app->stages[s].name, dev->pus[p].name,
							t->core_counts[p][j],
							btc_mode_name((enum btc_mode)m), e->mean_ms,
							e->stddev_ms, e->samples);
				}
		for (int p = 0; p < t->n_pus; p++)
			for (int k = 0; k < BTC_N_TERMS; k++) {
				const struct btc_table_entry *e = &t->term[m][p * BTC_N_TERMS + k];
				if (e->present)
					fprintf(out, "%s,%s,%s,%.6f,%.6f,%d\n",
						btc_table_term_name((enum btc_table_term)k),
						dev->pus[p].name, btc_mode_name((enum btc_mode)m),
						e->mean_ms, e->stddev_ms, e->samples);
			}
		for (int st = 0; st < t->n_stages; st++)
			for (int p = 0; p < t->n_pus; p++) {
				const struct btc_table_entry *e =
					btc_table_in_chunk_at(t, (enum btc_mode)m, st, p);
				if (e->present)
					fprintf(out, BTC_TABLE_IN_CHUNK "%s,%s,%s,%.6f,%.6f,%d\n",
						app->stages[st].name, dev->pus[p].name,
						btc_mode_name((enum btc_mode)m), e->mean_ms,
						e->stddev_ms, e->samples);
			}
		const struct btc_table_entry *io[] = {&t->io[m], &t->io_load[m], &t->io_check[m]};
		static const char *const io_names[] = {"@io", "@io_load", "@io_check"};
		for (int k = 0; k < 3; k++)
			if (io[k]->present)
				fprintf(out, "%s,io,%s,%.6f,%.6f,%d\n", io_names[k],
					btc_mode_name((enum btc_mode)m), io[k]->mean_ms,
					io[k]->stddev_ms, io[k]->samples);
		btc_table_write_corun(t, dev, (enum btc_mode)m, out);
		btc_table_write_share(t, dev, (enum btc_mode)m, out);
	}
}

bool btc_table_replace_rows(const char *path, const struct btc_app *app,
			    const struct btc_device *dev, const char *row_prefix,
			    const char *with_prefix, const char *with,
			    void (*write_rows)(const void *ctx, FILE *out), const void *ctx,
			    struct btc_diag *d)
{
	char *text = btc_read_file(path, NULL);
	if (!text) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "cannot read the table");
		return false;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		btc_panic("out of memory");
	size_t n_row = strlen(row_prefix), n_with = strlen(with_prefix);
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, row_prefix, n_row) && strncmp(line, with_prefix, n_with))
			fprintf(f, "%s\n", line);
	fprintf(f, "%s%s\n", with_prefix, with);
	write_rows(ctx, f);
	fclose(f);
	free(text);
	struct btc_table *back = btc_table_load(path, buf, app, dev, BTC_MODE_INTERFERENCE, d);
	bool ok = back && btc_write_file_atomic(path, buf, len, 0, d);
	btc_table_free(back);
	free(buf);
	return ok;
}
