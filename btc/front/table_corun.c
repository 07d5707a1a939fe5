/* Co-run slowdown rows of a profiling table (issue 27): `@corun,P/Q,...`,
 * the factor by which a stage on PU P slows while another app's stage
 * occupies PU Q (front/table.h, docs/app-format.md "Co-run rows"). */
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

#include "front/table.h"

struct btc_table_entry *btc_table_corun_entry(struct btc_table *t, enum btc_mode m,
					      const char *field, const struct btc_device *dev,
					      struct btc_loc loc, struct btc_diag *d)
{
	const char *slash = strchr(field, '/');
	char name[128];
	size_t len = slash ? (size_t)(slash - field) : 0;
	if (!slash || len == 0 || len >= sizeof(name) || !slash[1] || strchr(slash + 1, '/')) {
		btc_error(d, loc, "@corun rows name a pair of PUs 'P/Q', not '%s'", field);
		return NULL;
	}
	memcpy(name, field, len);
	name[len] = '\0';
	int p = btc_device_pu_index(dev, name);
	if (p < 0) {
		btc_error(d, loc, "unknown PU '%s' (device '%s')", name, dev->name);
		return NULL;
	}
	int q = btc_device_pu_index(dev, slash + 1);
	if (q < 0) {
		loc.col += (int)len + 1;
		btc_error(d, loc, "unknown PU '%s' (device '%s')", slash + 1, dev->name);
		return NULL;
	}
	if (p == q) {
		btc_error(d, loc,
			  "@corun '%s': a PU shared by two apps is time-shared (the model's "
			  "utilisation), not a co-run pair; name two distinct PUs",
			  field);
		return NULL;
	}
	t->has_corun[m] = true;
	return &t->corun[m][p * t->n_pus + q];
}

double btc_table_corun_factor(const struct btc_table *t, enum btc_mode m, int p, int q)
{
	if (p == q || !t->corun[m])
		return 1.0;
	const struct btc_table_entry *e = &t->corun[m][p * t->n_pus + q];
	return e->present && e->mean_ms > 1.0 ? e->mean_ms : 1.0;
}

void btc_table_write_corun(const struct btc_table *t, const struct btc_device *dev,
			   enum btc_mode m, FILE *out)
{
	for (int p = 0; p < t->n_pus; p++)
		for (int q = 0; q < t->n_pus; q++) {
			const struct btc_table_entry *e = &t->corun[m][p * t->n_pus + q];
			if (e->present)
				fprintf(out, "@corun,%s/%s,%s,%.6f,%.6f,%d\n", dev->pus[p].name,
					dev->pus[q].name, btc_mode_name(m), e->mean_ms,
					e->stddev_ms, e->samples);
		}
}

bool btc_table_corun_with_read(const char *line, struct btc_table *t)
{
	size_t n = strlen(BTC_TABLE_CORUN_WITH);
	if (strncmp(line, BTC_TABLE_CORUN_WITH, n))
		return false;
	free(t->corun_with);
	t->corun_with = btc_xstrdup(line + n);
	return true;
}
