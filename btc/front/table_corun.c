/* Co-run slowdown rows of a profiling table (issue 27): `@corun,P/Q,...`,
 * the factor by which a stage on PU P slows while another app's stage
 * occupies PU Q, and same-PU capacity rows `@share,P*N,...`, what PU P
 * delivers while N streams' chunks share it (front/table.h,
 * docs/app-format.md "Co-run rows", "Same-PU capacity rows"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

#include "front/table.h"

enum { PU_NAME_MAX = 128 }; /* bytes of a PU name in a row field, with its NUL */

/* The index of the PU named by the first len characters of field (len <
 * PU_NAME_MAX, checked by the callers), or -1 with an error at loc. */
static int pu_prefix(const struct btc_device *dev, const char *field, size_t len,
		     struct btc_loc loc, struct btc_diag *d)
{
	char name[PU_NAME_MAX];
	memcpy(name, field, len);
	name[len] = '\0';
	int p = btc_device_pu_index(dev, name);
	if (p < 0)
		btc_error(d, loc, "unknown PU '%s' (device '%s')", name, dev->name);
	return p;
}

struct btc_table_entry *btc_table_corun_entry(struct btc_table *t, enum btc_mode m,
					      const char *field, const struct btc_device *dev,
					      struct btc_loc loc, struct btc_diag *d)
{
	const char *slash = strchr(field, '/');
	size_t len = slash ? (size_t)(slash - field) : 0;
	if (!slash || len == 0 || len >= PU_NAME_MAX || !slash[1] || strchr(slash + 1, '/')) {
		btc_error(d, loc, "@corun rows name a pair of PUs 'P/Q', not '%s'", field);
		return NULL;
	}
	int p = pu_prefix(dev, field, len, loc, d);
	if (p < 0)
		return NULL;
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

struct btc_table_entry *btc_table_share_entry(struct btc_table *t, enum btc_mode m,
					      const char *field, const struct btc_device *dev,
					      struct btc_loc loc, struct btc_diag *d)
{
	const char *star = strchr(field, '*');
	size_t len = star ? (size_t)(star - field) : 0;
	char *end = NULL;
	errno = 0;
	long n = star && star[1] >= '0' && star[1] <= '9' ? strtol(star + 1, &end, 10) : -1;
	if (!star || len == 0 || len >= PU_NAME_MAX || !end || *end || errno || n < 2 ||
	    n > BTC_TABLE_MAX_SHARE) {
		btc_error(d, loc, "@share rows name a PU and a stream count 'P*N' (N from 2 to %d), "
			  "not '%s'", BTC_TABLE_MAX_SHARE, field);
		return NULL;
	}
	int p = pu_prefix(dev, field, len, loc, d);
	if (p < 0)
		return NULL;
	if (!t->share[m])
		t->share[m] = btc_xcalloc((size_t)t->n_pus * (BTC_TABLE_MAX_SHARE + 1),
					  sizeof(struct btc_table_entry));
	t->has_share[m] = true;
	return &t->share[m][p * (BTC_TABLE_MAX_SHARE + 1) + n];
}

double btc_table_share_factor(const struct btc_table *t, enum btc_mode m, int p, int n)
{
	if (!t->share[m] || n < 2)
		return 1.0;
	for (int k = n < BTC_TABLE_MAX_SHARE ? n : BTC_TABLE_MAX_SHARE; k >= 2; k--) {
		const struct btc_table_entry *e = &t->share[m][p * (BTC_TABLE_MAX_SHARE + 1) + k];
		if (e->present && e->mean_ms > 0)
			return e->mean_ms;
	}
	return 1.0;
}

bool btc_table_share_with_read(const char *line, struct btc_table *t)
{
	size_t n = strlen(BTC_TABLE_SHARE_WITH);
	if (strncmp(line, BTC_TABLE_SHARE_WITH, n))
		return false;
	free(t->share_with);
	t->share_with = btc_xstrdup(line + n);
	return true;
}

void btc_table_write_share(const struct btc_table *t, const struct btc_device *dev,
			   enum btc_mode m, FILE *out)
{
	for (int p = 0; t->share[m] && p < t->n_pus; p++)
		for (int n = 2; n <= BTC_TABLE_MAX_SHARE; n++) {
			const struct btc_table_entry *e = &t->share[m][p * (BTC_TABLE_MAX_SHARE + 1) + n];
			if (e->present)
				fprintf(out, "@share,%s*%d,%s,%.6f,%.6f,%d\n", dev->pus[p].name, n,
					btc_mode_name(m), e->mean_ms, e->stddev_ms, e->samples);
		}
}
