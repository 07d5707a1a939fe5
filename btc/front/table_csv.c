/* The CSV reading of the profiling table's two layouts (front/table_csv.h). */
#include "front/table_csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "front/table.h" /* enum btc_mode */

/* Splits line at commas; r->n counts every field, the first BTC_TABLE_MAX_FIELDS
 * are stored. */
void btc_table_split(char *line, struct btc_table_row *r)
{
	r->n = 0;
	char *p = line;
	for (;;) {
		if (r->n < BTC_TABLE_MAX_FIELDS) {
			r->f[r->n] = p;
			r->col[r->n] = (int)(p - line) + 1;
		}
		r->n++;
		char *c = strchr(p, ',');
		if (!c)
			return;
		*c = '\0';
		p = c + 1;
	}
}

/* Reads the next line into l->buf; false at the end of the file. A line
 * longer than BTC_TABLE_MAX_LINE bytes is reported and skipped. */
bool btc_table_next_line(struct btc_table_lines *l, struct btc_diag *d)
{
	for (;;) {
		ssize_t n = getline(&l->buf, &l->cap, l->f);
		if (n < 0)
			return false;
		l->lineno++;
		if (n > 0 && l->buf[n - 1] == '\n')
			n--;
		if (n > BTC_TABLE_MAX_LINE) {
			btc_error(d, (struct btc_loc){l->path, l->lineno, 1},
				  "line too long (%zd bytes; at most %d)", n, BTC_TABLE_MAX_LINE);
			continue;
		}
		l->buf[strcspn(l->buf, "\r\n")] = '\0';
		/* a UTF-8 byte order mark (spreadsheets write one) is skipped */
		if (l->lineno == 1 && !strncmp(l->buf, "\xEF\xBB\xBF", 3))
			memmove(l->buf, l->buf + 3, strlen(l->buf + 3) + 1);
		return true;
	}
}

/* Parses a finite, non-negative time in ms; reports and returns false
 * otherwise. `what` names the cell ("stage morton on PU big"). */
bool btc_table_parse_time(const char *s, struct btc_loc loc, const char *what, double *out,
			  struct btc_diag *d)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno == ERANGE) {
		btc_error(d, loc, "%s: '%s' is not a number", what, s);
		return false;
	}
	if (isnan(v) || isinf(v)) {
		btc_error(d, loc, "%s: time is %s", what, isnan(v) ? "NaN" : "infinite");
		return false;
	}
	if (!btc_is_decimal(s)) { /* strtod also reads 0x10 as 16 */
		btc_error(d, loc, "%s: '%s' is not a decimal number of ms", what, s);
		return false;
	}
	if (v < 0) {
		btc_error(d, loc, "%s: negative time %g ms", what, v);
		return false;
	}
	*out = v;
	return true;
}

/* The table modes' names, as the CSV writes them (front/table.h). */
static const char *const mode_names[] = {"isolated", "interference", "placed"};

const char *btc_mode_name(enum btc_mode m)
{
	return mode_names[m];
}

bool btc_mode_parse(const char *s, enum btc_mode *m)
{
	for (int i = 0; i < BTC_N_MODES; i++)
		if (!strcmp(s, mode_names[i])) {
			*m = (enum btc_mode)i;
			return true;
		}
	return false;
}
