/* Private to front/table*.c: the CSV reading the profiling table's two
 * layouts share (front/table.h). */
#ifndef BTC_FRONT_TABLE_CSV_H
#define BTC_FRONT_TABLE_CSV_H

#include <stdbool.h>
#include <stdio.h>

#include "front/table.h"

#define BTC_TABLE_REF_HEADER "stage,little,medium,big,vulkan,cuda,device,run"
#define BTC_TABLE_TIDY_HEADER "stage,pu,mode,mean_ms,stddev_ms,samples"
#define BTC_TABLE_MAX_FIELDS 16

/* One CSV line split in place; col[i] is the 1-based column of field i. */
struct btc_table_row {
	char *f[BTC_TABLE_MAX_FIELDS];
	int col[BTC_TABLE_MAX_FIELDS];
	int n;
};

/* A line reader: whole lines of any length (never split into rows), line
 * numbers counted, the line ending stripped. */
struct btc_table_lines {
	FILE *f;
	const char *path;
	char *buf;
	size_t cap;
	int lineno;
};

/* Splits line at commas in place; r->n counts every field, the first
 * BTC_TABLE_MAX_FIELDS are stored. */
void btc_table_split(char *line, struct btc_table_row *r);

/* Reads the next line into l->buf; false at the end of the file. A line
 * longer than BTC_TABLE_MAX_LINE bytes is reported and skipped. */
bool btc_table_next_line(struct btc_table_lines *l, struct btc_diag *d);

/* Parses a finite, non-negative time in ms; reports and returns false
 * otherwise. `what` names the cell ("stage morton on PU big"). */
bool btc_table_parse_time(const char *s, struct btc_loc loc, const char *what, double *out,
			  struct btc_diag *d);

/* Reads the reference layout (the paper's CSV, after its header) into
 * t's mode: per (stage, PU) the mean over appended runs. */
void btc_table_load_reference(struct btc_table_lines *l, const char *path, struct btc_table *t,
			      const struct btc_app *app, const struct btc_device *dev,
			      enum btc_mode mode, struct btc_diag *d);

#endif
