/* Profiling tables (front/table.h): the table, its tidy layout read and
 * checked; the reference layout is read in table_ref.c, the CSV lines of
 * both in table_csv.c, the writer is table_write.c. */
#include "front/table.h"
#include "front/table_csv.h"
#include "front/table_origin.h"
#include "util/num.h"
#include "util/infile.h"

#include <btrt_model.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const term_names[] = {"@fixed", "@in_latency", "@in_per_mib", "@out_latency",
					 "@out_per_mib"};

const char *btc_table_term_name(enum btc_table_term k)
{
	return term_names[k];
}

struct btc_table *btc_table_new(const struct btc_app *app, const struct btc_device *dev)
{
	struct btc_table *t = btc_xcalloc(1, sizeof(*t));
	t->n_stages = app->n_stages;
	t->n_pus = dev->n_pus;
	t->n_buffers = app->n_buffers;
	for (int m = 0; m < BTC_N_MODES; m++) {
		t->e[m] = btc_xcalloc((size_t)(t->n_stages * t->n_pus),
				      sizeof(struct btc_table_entry));
		t->term[m] = btc_xcalloc((size_t)(t->n_pus * BTC_N_TERMS),
					 sizeof(struct btc_table_entry));
		t->cores[m] = btc_xcalloc((size_t)(t->n_stages * t->n_pus) *
						  BTC_TABLE_MAX_CORE_COUNTS,
					  sizeof(struct btc_table_entry));
		t->corun[m] = btc_xcalloc((size_t)(t->n_pus * t->n_pus),
					  sizeof(struct btc_table_entry));
		t->in_chunk[m] = btc_xcalloc((size_t)(t->n_stages * t->n_pus),
					     sizeof(struct btc_table_entry));
	}
	t->io_loaded = btc_xcalloc((size_t)app->n_buffers + 1, sizeof(bool));
	t->in_place = btc_xcalloc((size_t)app->n_buffers + 1, sizeof(bool));
	t->touched = btc_xcalloc((size_t)app->n_buffers + 1, sizeof(double));
	for (int k = 0; k < app->n_buffers; k++)
		t->touched[k] = -1;
	return t;
}

void btc_table_free(struct btc_table *t)
{
	if (!t)
		return;
	for (int m = 0; m < BTC_N_MODES; m++) {
		free(t->e[m]);
		free(t->term[m]);
		free(t->cores[m]);
		free(t->corun[m]);
		free(t->in_chunk[m]);
		free(t->share[m]);
	}
	free(t->io_loaded);
	free(t->in_place);
	free(t->touched);
	free(t->corun_with);
	free(t->share_with);
	free(t->app);
	free(t->device);
	free(t->btc_version);
	free(t);
}

int btc_table_core_slot(struct btc_table *t, int p, int k, bool add)
{
	int n = t->n_core_counts[p], j = 0;
	while (j < n && t->core_counts[p][j] < k)
		j++;
	if (j < n && t->core_counts[p][j] == k)
		return j;
	if (!add || n == BTC_TABLE_MAX_CORE_COUNTS)
		return -1;
	memmove(&t->core_counts[p][j + 1], &t->core_counts[p][j], sizeof(int) * (size_t)(n - j));
	t->core_counts[p][j] = k;
	t->n_core_counts[p]++;
	for (int m = 0; m < BTC_N_MODES; m++)
		for (int s = 0; s < t->n_stages; s++) {
			struct btc_table_entry *e = btc_table_cores_at(t, (enum btc_mode)m, s, p,
								       0);
			memmove(&e[j + 1], &e[j], sizeof(*e) * (size_t)(n - j));
			e[j] = (struct btc_table_entry){0};
		}
	return j;
}

/* Mean, stddev and samples of a tidy row (fields 3..5); reports and
 * returns false on a bad field. */
static bool parse_stats(const struct btc_table_row *r, const char *path, int lineno,
			const char *what, struct btc_table_entry *e, struct btc_diag *d)
{
	double mean, sd;
	bool ok = btc_table_parse_time(r->f[3], (struct btc_loc){path, lineno, r->col[3]}, what,
				       &mean, d);
	ok &= btc_table_parse_time(r->f[4], (struct btc_loc){path, lineno, r->col[4]}, what, &sd,
				   d);
	long n;
	if (!btc_parse_int(r->f[5], 1, 100000000, &n)) {
		btc_error(d, (struct btc_loc){path, lineno, r->col[5]},
			  "%s: samples must be a positive integer, not '%s'", what, r->f[5]);
		ok = false;
	}
	if (ok)
		*e = (struct btc_table_entry){mean, sd, (int)n, true};
	return ok;
}

/* The PU field of a stage row: `NAME` (*cores = 0) or `NAME[k]`, k cores
 * of CPU PU NAME, 1 <= k < its size. Returns the PU index, or -1 after
 * reporting. */
static int pu_field(const char *field, const struct btc_device *dev, int *cores, struct btc_loc loc,
		    struct btc_diag *d)
{
	const char *br = strchr(field, '[');
	*cores = 0;
	if (!br) {
		int p = btc_device_pu_index(dev, field);
		if (p < 0)
			btc_error(d, loc, "unknown PU '%s' (device '%s')", field, dev->name);
		return p;
	}
	char name[128];
	char *end;
	errno = 0;
	long k = strtol(br + 1, &end, 10);
	size_t len = (size_t)(br - field);
	if (len == 0 || len >= sizeof(name) || end == br + 1 || *end != ']' || end[1] ||
	    errno == ERANGE || br[1] == '+' || br[1] == '-' || br[1] == ' ') {
		btc_error(d, loc, "PU field '%s' is not NAME or NAME[CORES]", field);
		return -1;
	}
	memcpy(name, field, len);
	name[len] = '\0';
	int p = btc_device_pu_index(dev, name);
	if (p < 0) {
		btc_error(d, loc, "unknown PU '%s' (device '%s')", name, dev->name);
		return -1;
	}
	const struct btc_pu *pu = &dev->pus[p];
	if (pu->kind != BTC_BACKEND_CPU) {
		btc_error(d, loc, "'%s': core counts apply to CPU PUs only, and '%s' is %s", field,
			  name, btc_backend_name(pu->kind));
		return -1;
	}
	if (k < 1 || k >= pu->n_cores) {
		btc_error(d, loc,
			  "'%s': core count %ld outside 1..%d (PU '%s' has %d cores; "
			  "'%s' alone means all of them)",
			  field, k, pu->n_cores - 1, name, pu->n_cores, name);
		return -1;
	}
	*cores = (int)k;
	return p;
}

double btc_table_io_ms(const struct btc_table *t, enum btc_mode m, uint32_t k_load,
		       uint32_t k_check, double *load_ms, double *check_ms)
{
	bool apart = t->io_load[m].present && t->io_check[m].present;
	if (load_ms)
		*load_ms = apart ? t->io_load[m].mean_ms : NAN;
	if (check_ms)
		*check_ms = apart ? t->io_check[m].mean_ms : NAN;
	if (apart)
		return btrt_model_io_ms(t->io_load[m].mean_ms, t->io_check[m].mean_ms, k_load, k_check);
	return t->io[m].present ? t->io[m].mean_ms : 0;
}

/* The entry of an `@in_chunk:STAGE,PU,...` row: STAGE a stage of the app,
 * PU a GPU PU whose backend has a kernel for it; NULL after reporting. */
static struct btc_table_entry *in_chunk_entry(const struct btc_table_row *r, const char *path,
					      int lineno, struct btc_table *t, enum btc_mode m,
					      const struct btc_app *app, const struct btc_device *dev,
					      struct btc_diag *d)
{
	const char *name = r->f[0] + strlen(BTC_TABLE_IN_CHUNK);
	int s = btc_app_stage_index(app, name);
	if (s < 0) {
		btc_error(d, (struct btc_loc){path, lineno, r->col[0]},
			  "%s: unknown stage '%s' (app '%s')", r->f[0], name, app->name);
		return NULL;
	}
	int p = btc_device_pu_index(dev, r->f[1]);
	if (p < 0) {
		btc_error(d, (struct btc_loc){path, lineno, r->col[1]}, "unknown PU '%s' (device '%s')",
			  r->f[1], dev->name);
		return NULL;
	}
	const struct btc_pu *pu = &dev->pus[p];
	if (pu->kind == BTC_BACKEND_CPU || !btc_stage_has(&app->stages[s], pu->kind)) {
		btc_error(d, (struct btc_loc){path, lineno, r->col[1]},
			  "%s: in-chunk rows name a GPU PU with a kernel for the stage, "
			  "and '%s' is %s%s",
			  r->f[0], r->f[1], btc_backend_name(pu->kind),
			  pu->kind == BTC_BACKEND_CPU ? "" : " without one");
		return NULL;
	}
	return btc_table_in_chunk_at(t, m, s, p);
}

/* A chunk-model term row: `@term,PU,mode,...`, `@io,io,mode,...`
 * (`@io_load`, `@io_check` likewise) or `@in_chunk:STAGE,PU,mode,...`. */
static void load_term_row(const struct btc_table_row *r, const char *path, int lineno,
			  struct btc_table *t, const struct btc_app *app,
			  const struct btc_device *dev, struct btc_diag *d)
{
	enum btc_mode m;
	if (!btc_mode_parse(r->f[2], &m)) {
		btc_error(d, (struct btc_loc){path, lineno, r->col[2]},
			  "unknown mode '%s' (expected isolated, interference or placed)", r->f[2]);
		return;
	}
	struct btc_table_entry *e = NULL;
	bool io = !strcmp(r->f[0], "@io"), load = !strcmp(r->f[0], "@io_load"),
	     check = !strcmp(r->f[0], "@io_check");
	if (io || load || check) {
		if (strcmp(r->f[1], "io")) {
			btc_error(d, (struct btc_loc){path, lineno, r->col[1]},
				  "%s rows name the PU 'io', not '%s'", r->f[0], r->f[1]);
			return;
		}
		e = io ? &t->io[m] : load ? &t->io_load[m] : &t->io_check[m];
	} else if (!strncmp(r->f[0], BTC_TABLE_IN_CHUNK, strlen(BTC_TABLE_IN_CHUNK))) {
		e = in_chunk_entry(r, path, lineno, t, m, app, dev, d);
		if (!e)
			return;
	} else if (!strcmp(r->f[0], "@share")) {
		e = btc_table_share_entry(t, m, r->f[1], dev, (struct btc_loc){path, lineno, r->col[1]},
					  d);
		if (!e)
			return;
	} else if (!strcmp(r->f[0], "@corun")) {
		e = btc_table_corun_entry(t, m, r->f[1], dev, (struct btc_loc){path, lineno, r->col[1]},
					  d);
		if (!e)
			return;
	} else {
		int k = 0;
		while (k < BTC_N_TERMS && strcmp(term_names[k], r->f[0]))
			k++;
		if (k == BTC_N_TERMS) {
			btc_error(d, (struct btc_loc){path, lineno, r->col[0]},
				  "unknown term '%s' (expected @fixed, @in_latency, "
				  "@in_per_mib, @out_latency, @out_per_mib, @io, @io_load, "
				  "@io_check, @in_chunk:STAGE, @corun or @share)",
				  r->f[0]);
			return;
		}
		int p = btc_device_pu_index(dev, r->f[1]);
		if (p < 0) {
			btc_error(d, (struct btc_loc){path, lineno, r->col[1]},
				  "unknown PU '%s' (device '%s')", r->f[1], dev->name);
			return;
		}
		e = &t->term[m][p * BTC_N_TERMS + k];
	}
	char what[160];
	snprintf(what, sizeof(what), "%s on %s", r->f[0], r->f[1]);
	if (e->present) {
		btc_error(d, (struct btc_loc){path, lineno, 1}, "duplicate row for %s (%s)", what,
			  r->f[2]);
		return;
	}
	if (parse_stats(r, path, lineno, what, e, d) && strcmp(r->f[0], "@corun") &&
	    strcmp(r->f[0], "@share"))
		t->has_terms[m] = true;
}

static void load_tidy(struct btc_table_lines *l, const char *path, struct btc_table *t,
		      const struct btc_app *app, const struct btc_device *dev, struct btc_diag *d)
{
	while (btc_table_next_line(l, d)) {
		char *line = l->buf;
		int lineno = l->lineno;
		if (line[0] == '#' && !btc_table_corun_with_read(line, t)) /* after the rows */
			btc_table_share_with_read(line, t);
		if (!line[0] || line[0] == '#')
			continue;
		struct btc_table_row r;
		btc_table_split(line, &r);
		if (r.n != 6) {
			btc_error(d, (struct btc_loc){path, lineno, 1},
				  "expected 6 fields (" BTC_TABLE_TIDY_HEADER "), found %d", r.n);
			continue;
		}
		if (r.f[0][0] == '@') {
			load_term_row(&r, path, lineno, t, app, dev, d);
			continue;
		}
		int s = btc_app_stage_index(app, r.f[0]);
		enum btc_mode m;
		if (s < 0) {
			btc_error(d, (struct btc_loc){path, lineno, r.col[0]},
				  "unknown stage '%s' (app '%s')", r.f[0], app->name);
			continue;
		}
		int k = 0; /* core count, 0: all cores */
		int p = pu_field(r.f[1], dev, &k, (struct btc_loc){path, lineno, r.col[1]}, d);
		if (p < 0)
			continue; /* reported by pu_field */
		if (!btc_mode_parse(r.f[2], &m)) {
			btc_error(d, (struct btc_loc){path, lineno, r.col[2]},
				  "unknown mode '%s' (expected isolated, interference or placed)",
				  r.f[2]);
			continue;
		}
		char what[160];
		snprintf(what, sizeof(what), "stage %s on PU %s", r.f[0], r.f[1]);
		double mean, sd;
		bool ok = btc_table_parse_time(r.f[3], (struct btc_loc){path, lineno, r.col[3]},
					       what, &mean, d);
		ok &= btc_table_parse_time(r.f[4], (struct btc_loc){path, lineno, r.col[4]}, what,
					   &sd, d);
		long n;
		if (!btc_parse_int(r.f[5], 1, 100000000, &n)) {
			btc_error(d, (struct btc_loc){path, lineno, r.col[5]},
				  "%s: samples must be a positive integer, not '%s'", what, r.f[5]);
			ok = false;
		}
		if (!ok)
			continue;
		struct btc_table_entry *e = btc_table_at(t, m, s, p);
		if (k) {
			int j = btc_table_core_slot(t, p, k, true);
			if (j < 0) {
				btc_error(d, (struct btc_loc){path, lineno, r.col[1]},
					  "PU '%s': more than %d core counts", dev->pus[p].name,
					  BTC_TABLE_MAX_CORE_COUNTS);
				continue;
			}
			e = btc_table_cores_at(t, m, s, p, j);
		}
		if (e->present) {
			btc_error(d, (struct btc_loc){path, lineno, 1}, "duplicate row for %s (%s)",
				  what, r.f[2]);
			continue;
		}
		*e = (struct btc_table_entry){mean, sd, (int)n, true};
		t->has_mode[m] = true;
	}
}

/* `# io_loads: a,b` / `# in_place: a,b`: a list of buffer names into
 * flags[n_buffers]; `what` names the line in errors. */
static void read_buffer_list(const char *what, const char *list, bool *flags,
			     const struct btc_app *app, struct btc_loc loc, struct btc_diag *d)
{
	char *copy = btc_xstrdup(list), *save = NULL;
	for (char *b = strtok_r(copy, ", ", &save); b; b = strtok_r(NULL, ", ", &save)) {
		int k = 0;
		while (k < app->n_buffers && strcmp(app->buffers[k].name, b))
			k++;
		if (k == app->n_buffers)
			btc_error(d, loc, "%s: unknown buffer '%s' (app '%s')", what, b, app->name);
		else
			flags[k] = true;
	}
	free(copy);
}

/* `# touched: a=BYTES,b=BYTES`: the bytes of each buffer one task touches
 * (the profiler's btrt_probe_touched). */
static void read_touched(const char *list, struct btc_table *t, const struct btc_app *app,
			 struct btc_loc loc, struct btc_diag *d)
{
	char *copy = btc_xstrdup(list), *save = NULL;
	for (char *b = strtok_r(copy, ", ", &save); b; b = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(b, '='), *end = NULL;
		double v = eq ? strtod(eq + 1, &end) : NAN;
		if (!eq || !btc_is_decimal(eq + 1) || end == eq + 1 || *end || !(v >= 0) ||
		    isinf(v)) { /* decimal only: strtod also reads 0x10 */
			btc_error(d, loc, "touched: expected BUFFER=BYTES, got '%s'", b);
			continue;
		}
		*eq = '\0';
		int k = 0;
		while (k < app->n_buffers && strcmp(app->buffers[k].name, b))
			k++;
		if (k == app->n_buffers)
			btc_error(d, loc, "touched: unknown buffer '%s' (app '%s')", b, app->name);
		else
			t->touched[k] = v;
	}
	free(copy);
}

static void read_meta(char *line, struct btc_table *t, const struct btc_app *app,
		      struct btc_loc loc, struct btc_diag *d)
{
	char *p = line + 1;
	while (*p == ' ')
		p++;
	if (!strncmp(p, "io_loads: ", 10)) {
		read_buffer_list("io_loads", p + 10, t->io_loaded, app, loc, d);
		return;
	}
	if (!strncmp(p, "in_place: ", 10)) {
		read_buffer_list("in_place", p + 10, t->in_place, app, loc, d);
		return;
	}
	if (!strncmp(p, "touched: ", 9)) {
		read_touched(p + 9, t, app, loc, d);
		return;
	}
	char **slot = !strncmp(p, "app: ", 5)      ? &t->app
		      : !strncmp(p, "device: ", 8) ? &t->device
		      : !strncmp(p, "btc: ", 5)    ? &t->btc_version
						   : NULL;
	if (btc_table_corun_with_read(line, t) || btc_table_share_with_read(line, t))
		return;
	if (!slot)
		return;
	free(*slot);
	*slot = btc_xstrdup(strchr(p, ' ') + 1);
}

static void check_complete(const char *path, const struct btc_table *t, const struct btc_app *app,
			   const struct btc_device *dev, struct btc_diag *d)
{
	for (int m = 0; m < BTC_N_MODES; m++) {
		if (!t->has_mode[m])
			continue;
		for (int s = 0; s < app->n_stages; s++)
			for (int p = 0; p < dev->n_pus; p++)
				if (btc_stage_has(&app->stages[s], dev->pus[p].kind) &&
				    !btc_table_at(t, (enum btc_mode)m, s, p)->present)
					btc_error(d, (struct btc_loc){path, 0, 0},
						  "table lacks stage %d '%s' on PU '%s' (%s)",
						  s + 1, app->stages[s].name, dev->pus[p].name,
						  btc_mode_name((enum btc_mode)m));
		/* a core count timed in a mode times every stage there */
		for (int p = 0; p < dev->n_pus; p++)
			for (int j = 0; j < t->n_core_counts[p]; j++) {
				bool any = false;
				for (int s = 0; s < app->n_stages; s++)
					any |= btc_table_cores_at(t, (enum btc_mode)m, s, p, j)
						       ->present;
				for (int s = 0; any && s < app->n_stages; s++)
					if (btc_stage_has(&app->stages[s], dev->pus[p].kind) &&
					    !btc_table_cores_at(t, (enum btc_mode)m, s, p, j)
						     ->present)
						btc_error(
							d, (struct btc_loc){path, 0, 0},
							"table lacks stage %d '%s' on PU '%s[%d]' (%s)",
							s + 1, app->stages[s].name,
							dev->pus[p].name, t->core_counts[p][j],
							btc_mode_name((enum btc_mode)m));
			}
	}
}

struct btc_table *btc_table_load(const char *path, const char *text, const struct btc_app *app,
				 const struct btc_device *dev, enum btc_mode ref_mode,
				 struct btc_diag *d)
{
	int before = d->errors;
	FILE *f = text ? fmemopen((void *)text, strlen(text), "r") : btc_open_input(path, "r", d);
	if (!f) {
		if (text) /* fmemopen: out of memory */
			btc_error(d, (struct btc_loc){path, 0, 0}, "cannot open: %s",
				  strerror(errno));
		return NULL;
	}
	struct btc_table *t = btc_table_new(app, dev);
	struct btc_table_lines l = {.f = f, .path = path};
	bool found_header = false;
	while (btc_table_next_line(&l, d)) {
		char *line = l.buf;
		int lineno = l.lineno;
		if (line[0] == '#') {
			read_meta(line, t, app, (struct btc_loc){path, lineno, 1}, d);
			continue;
		}
		if (!line[0])
			continue;
		found_header = true;
		if (!strcmp(line, BTC_TABLE_REF_HEADER))
			btc_table_load_reference(&l, path, t, app, dev, ref_mode, d);
		else if (!strcmp(line, BTC_TABLE_TIDY_HEADER))
			load_tidy(&l, path, t, app, dev, d);
		else
			btc_error(d, (struct btc_loc){path, lineno, 1},
				  "unknown table header (expected '" BTC_TABLE_TIDY_HEADER
				  "' or the reference layout '" BTC_TABLE_REF_HEADER "')");
		break;
	}
	free(l.buf);
	fclose(f);
	if (!found_header)
		btc_error(d, (struct btc_loc){path, 0, 0}, "empty profiling table");
	if (d->errors == before && t->reference_layout && !t->app)
		btc_table_check_ref_origin(path, app, d);
	if (d->errors == before && t->app && strcmp(t->app, app->name))
		btc_error(d, (struct btc_loc){path, 0, 0},
			  "table was measured for app '%s', not '%s'", t->app, app->name);
	/* "host" (a detected machine) is whatever device file describes it */
	if (d->errors == before && t->device && strcmp(t->device, dev->name) &&
	    strcmp(t->device, "host") && strcmp(dev->name, "host"))
		btc_error(d, (struct btc_loc){path, 0, 0},
			  "table was measured on device '%s', not '%s' (its '# device:' line)",
			  t->device, dev->name);
	if (d->errors == before)
		check_complete(path, t, app, dev, d);
	btc_diag_flush(d);
	if (d->errors != before) {
		btc_table_free(t);
		return NULL;
	}
	return t;
}

/* `PREFIXa,b` for the flagged buffers; nothing when none is. */
