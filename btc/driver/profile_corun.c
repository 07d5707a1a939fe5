/* Co-run slowdowns measured (driver/profile_corun.h): app A's profiler
 * times A's stages on PU p alone and while app B's profiler occupies PU q
 * (`--occupy q`, in a process group of its own beside btc); the per-stage
 * ratios become the `@corun,p/q,isolated,...` rows of A's table. */
#include "driver/profile_corun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/profile.h"
#include "front/table.h"
#include "report/stats.h"
#include "util/fsafe.h"
#include "util/out.h"
#include "util/proc.h"

/* One app's side of the measurements. */
struct corun_side {
	const struct btc_corun_app *a;
	char *prog;     /* its generated profiler */
};

/* The state of one btc_profile_corun call. */
struct corun_run {
	const struct btc_device *dev;
	const struct btc_request *opt;
	struct corun_side *sides; /* [n] */
	int n;
	double bound_s;           /* one run's time limit; 0: none */
	char reps[16], min_reps[16];
	char *tmp, *log;          /* A's --pus table; the occupant's stderr */
};

/* Whether app has a kernel for some stage on PU p. */
static bool runs_on(const struct btc_app *app, const struct btc_device *dev, int p)
{
	for (int s = 0; s < app->n_stages; s++)
		if (btc_stage_has(&app->stages[s], dev->pus[p].kind))
			return true;
	return false;
}

/* The stage rows of PU `pu` in the profiler's table at path into ms[s]
 * (NAN where there is none). Returns how many were read. */
static int read_times(const char *path, const struct btc_app *app, const char *pu, double *ms)
{
	for (int s = 0; s < app->n_stages; s++)
		ms[s] = NAN;
	char *text = btc_read_file(path, NULL);
	int n = 0;
	for (char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char stage[128], p[128], mode[32];
		double mean;
		if (line[0] == '#' || line[0] == '@' ||
		    sscanf(line, "%127[^,],%127[^,],%31[^,],%lf", stage, p, mode, &mean) != 4 ||
		    strcmp(p, pu) || strcmp(mode, "isolated"))
			continue;
		int s = btc_app_stage_index(app, stage);
		if (s >= 0 && isfinite(mean) && mean > 0) {
			ms[s] = mean;
			n++;
		}
	}
	free(text);
	return n;
}

/* Runs side x's profiler on PU p (isolated, its stage rows only) into
 * ms[n_stages]. Returns false after reporting. */
static bool time_stages(struct corun_run *r, const struct corun_side *x, int p, double *ms,
			struct btc_diag *d)
{
	const char *pu = r->dev->pus[p].name;
	char *argv[20] = {x->prog, "-o", r->tmp, "--modes", "isolated", "--pus", (char *)pu,
			  "--warmup", "1", "--min-reps", r->min_reps, "--max-reps", r->reps,
			  "--quiet"};
	int n = 14;
	if (x->a->input) {
		argv[n++] = "--input";
		argv[n++] = (char *)x->a->input;
	}
	argv[n] = NULL;
	struct btc_run_io io = {NULL, NULL, false};
	bool timed_out;
	int rc = btc_run_bounded(argv, &io, r->bound_s, &timed_out);
	char how[96];
	bool ok = rc == 0 && !btc_interrupted() && read_times(r->tmp, x->a->app, pu, ms) > 0;
	if (!ok && !btc_interrupted())
		btc_error(d, (struct btc_loc){x->prog, 0, 0},
			  "co-run profiling: timing '%s' on PU '%s' %s", x->a->app->name, pu,
			  timed_out ? "ran past its time limit and was killed"
			  : rc    ? btc_status_text(rc, how, sizeof(how))
				  : "gave no stage rows");
	unlink(r->tmp);
	return ok;
}

/* The first line the occupant wrote on stderr (caller frees), or "". */
static char *occupant_said(const struct corun_run *r)
{
	char *said = btc_read_file(r->log, NULL);
	if (!said)
		return btc_xstrdup("");
	said[strcspn(said, "\n")] = '\0';
	return said;
}

/* Starts side y's occupant of PU q and waits until it loops. Returns
 * false after reporting (the occupant is stopped then). */
static bool occupy(struct corun_run *r, const struct corun_side *y, int q, struct btc_bg *bg,
		   struct btc_diag *d)
{
	char secs[32];
	/* it outlives no measurement (a run's bound, twice, and its start) and
	 * never lives a day (--run-timeout-factor 0: no bound) */
	double wait_s = r->bound_s > 0 ? r->bound_s : 86400;
	snprintf(secs, sizeof(secs), "%.0f", r->bound_s > 0 ? 3 * r->bound_s : 86400);
	char *argv[12] = {y->prog, "--occupy", (char *)r->dev->pus[q].name, "--occupy-s", secs};
	int n = 5;
	if (y->a->input) {
		argv[n++] = "--input";
		argv[n++] = (char *)y->a->input;
	}
	argv[n] = NULL;
	if (!btc_bg_start(argv, r->log, bg)) {
		if (!btc_interrupted())
			btc_error(d, (struct btc_loc){y->prog, 0, 0}, "cannot start the occupant");
		return false;
	}
	if (btc_bg_wait_line(bg, "occupying ", wait_s))
		return true;
	int rc = btc_bg_stop(bg, 2.0);
	if (!btc_interrupted()) {
		char how[96], *said = occupant_said(r);
		btc_error(d, (struct btc_loc){y->prog, 0, 0},
			  "co-run profiling: '%s' did not start occupying PU '%s' (%s)%s%s",
			  y->a->app->name, r->dev->pus[q].name,
			  btc_status_text(rc, how, sizeof(how)), *said ? ": " : "", said);
		free(said);
	}
	return false;
}

/* The median, standard deviation and count of the finite per-stage
 * ratios co / ((before + after) / 2): the co-run time over the mean of the
 * solo times taken just before and just after it (drift of the machine's
 * other load cancels to first order). */
static struct btc_table_entry ratios(const double *co, const double *before, const double *after,
				     int n_stages)
{
	double *v = btc_xcalloc((size_t)n_stages + 1, sizeof(double));
	int n = 0;
	double mean = 0, ss = 0;
	for (int s = 0; s < n_stages; s++) {
		double solo = (before[s] + after[s]) / 2;
		bool ok = isfinite(co[s]) && isfinite(solo) && solo > 0;
		v[s] = ok ? co[s] / solo : NAN;
		n += ok;
		mean += ok ? v[s] : 0;
	}
	struct btc_table_entry e = {btc_stats_median(v, n_stages), 0, n, n > 0};
	mean /= n > 0 ? n : 1;
	for (int s = 0; s < n_stages; s++)
		ss += isnan(v[s]) ? 0 : (v[s] - mean) * (v[s] - mean);
	e.stddev_ms = n > 1 ? sqrt(ss / (n - 1)) : 0;
	free(v);
	return e;
}

/* "B,C": the other apps' names, in workload order (caller frees). */
static char *others_list(const struct corun_run *r, int a)
{
	char *list = btc_xstrdup("");
	for (int b = 0; b < r->n; b++) {
		if (b == a)
			continue;
		char *l = btc_xasprintf("%s%s%s", list, *list ? "," : "", r->sides[b].a->app->name);
		free(list);
		list = l;
	}
	return list;
}

struct corun_rows {
	const struct btc_device *dev;
	const struct btc_table_entry *rows; /* [n_pus * n_pus] */
};

static void write_corun(const void *ctx, FILE *out)
{
	const struct corun_rows *x = ctx;
	int n = x->dev->n_pus;
	for (int p = 0; p < n; p++)
		for (int q = 0; q < n; q++)
			if (x->rows[p * n + q].present)
				fprintf(out, "@corun,%s/%s,isolated,%.6f,%.6f,%d\n",
					x->dev->pus[p].name, x->dev->pus[q].name,
					x->rows[p * n + q].mean_ms, x->rows[p * n + q].stddev_ms,
					x->rows[p * n + q].samples);
}

/* Replaces the @corun rows and `# corun_with:` of app a's table by rows
 * [n_pus * n_pus] (isolated), checked by loading the result. */
static bool write_rows(struct corun_run *r, int a, const struct btc_table_entry *rows,
		       const char *with, struct btc_diag *d)
{
	const struct btc_corun_app *x = r->sides[a].a;
	struct corun_rows ctx = { r->dev, rows };
	return btc_table_replace_rows(x->table_path, x->app, r->dev, "@corun,",
				      BTC_TABLE_CORUN_WITH, with, write_corun, &ctx, d);
}

/* Whether app a's table holds isolated @corun rows measured against
 * exactly `with`. */
static bool cached(const struct corun_run *r, int a, const char *with)
{
	const struct btc_corun_app *x = r->sides[a].a;
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	struct btc_table *t = btc_table_load(x->table_path, NULL, x->app, r->dev,
					     BTC_MODE_INTERFERENCE, &quiet);
	bool hit = t && t->corun_with && !strcmp(t->corun_with, with) &&
		   t->has_corun[BTC_MODE_ISOLATED];
	btc_table_free(t);
	return hit;
}

/* Every pair (p, q) of app a against every other app. Returns false after
 * reporting. */
static bool measure_app(struct corun_run *r, int a, struct btc_diag *d)
{
	const struct corun_side *x = &r->sides[a];
	const struct btc_app *app = x->a->app;
	const struct btc_device *dev = r->dev;
	int n = dev->n_pus, n_stages = app->n_stages;
	char *with = others_list(r, a);
	struct btc_table_entry *rows = btc_xcalloc((size_t)(n * n), sizeof(*rows));
	/* solo[0] and solo[1] take turns: the solo run after one co-run is
	 * the one before the next */
	double *solo[2] = {btc_xcalloc((size_t)n_stages + 1, sizeof(double)),
			   btc_xcalloc((size_t)n_stages + 1, sizeof(double))};
	double *co = btc_xcalloc((size_t)n_stages + 1, sizeof(double));
	int cur = 0;
	bool ok = true;
	for (int p = 0; ok && p < n; p++) {
		if (!runs_on(app, dev, p))
			continue;
		ok = time_stages(r, x, p, solo[cur], d);
		for (int q = 0; ok && q < n; q++)
			for (int b = 0; ok && b < r->n && q != p; b++) {
				const struct corun_side *y = &r->sides[b];
				if (b == a || !runs_on(y->a->app, dev, q))
					continue;
				struct btc_bg bg;
				double t0 = btc_now_s();
				ok = occupy(r, y, q, &bg, d);
				if (!ok)
					break;
				ok = time_stages(r, x, p, co, d);
				int st = btc_bg_stop(&bg, 2.0);
				if (ok && st != 128 + 15 && !btc_interrupted()) {
					char how[96], *said = occupant_said(r);
					btc_error(d, (struct btc_loc){y->prog, 0, 0},
						  "co-run profiling: the occupant of PU '%s' (%s) %s "
						  "before it was stopped%s%s",
						  dev->pus[q].name, y->a->app->name,
						  btc_status_text(st, how, sizeof(how)),
						  *said ? ": " : "", said);
					free(said);
					ok = false;
				}
				if (ok)
					ok = time_stages(r, x, p, solo[!cur], d);
				if (!ok)
					break;
				struct btc_table_entry e = ratios(co, solo[cur], solo[!cur], n_stages);
				cur = !cur;
				printf("profile: corun %s on %s while %s occupies %s: x%.3f "
				       "(median of %d stage ratios, sd %.3f; %.1f s)\n",
				       app->name, dev->pus[p].name, y->a->app->name,
				       dev->pus[q].name, e.mean_ms, e.samples, e.stddev_ms,
				       btc_now_s() - t0);
				fflush(stdout);
				struct btc_table_entry *row = &rows[p * n + q];
				if (e.present && (!row->present || e.mean_ms > row->mean_ms))
					*row = e;
			}
	}
	if (ok)
		ok = write_rows(r, a, rows, with, d);
	if (ok)
		printf("profile: corun %s: @corun rows (isolated; against %s) in %s\n", app->name,
		       with, x->a->table_path);
	free(co);
	free(solo[0]);
	free(solo[1]);
	free(rows);
	free(with);
	return ok;
}

bool btc_profile_corun(const struct btc_corun_app *apps, int n_apps,
		       const struct btc_device *dev, const struct btc_request *opt,
		       struct btc_diag *d)
{
	if (n_apps < 2)
		return true;
	btc_install_signal_handlers();
	struct corun_run r = {.dev = dev, .opt = opt, .n = n_apps,
			      .bound_s = opt->tune.timeout_factor * BTC_CORUN_BOUND_S};
	snprintf(r.reps, sizeof(r.reps), "%d", opt->profile_max_reps);
	snprintf(r.min_reps, sizeof(r.min_reps), "%d",
		 opt->profile_max_reps < 10 ? opt->profile_max_reps : 10);
	r.sides = btc_xcalloc((size_t)n_apps, sizeof(*r.sides));
	bool *todo = btc_xcalloc((size_t)n_apps, sizeof(bool)), any = false;
	for (int a = 0; a < n_apps; a++)
		r.sides[a].a = &apps[a];
	for (int a = 0; a < n_apps; a++) {
		char *with = others_list(&r, a);
		todo[a] = opt->reprofile || !cached(&r, a, with);
		if (!todo[a])
			printf("profile: corun %s: cached rows (measured against %s) in %s\n",
			       apps[a].app->name, with, apps[a].table_path);
		any |= todo[a];
		free(with);
	}
	/* every app's profiler: the measured app's, and the others' as occupants */
	bool ok = true;
	for (int a = 0; ok && any && a < n_apps; a++)
		ok = btc_job_profiler_build(apps[a].app, dev, opt, &r.sides[a].prog, d);
	if (ok && any) {
		/* beside the first table: the cache directory, locked by
		 * btc_job_profile; swept as *.tmp.PID when btc dies */
		r.tmp = btc_xasprintf("%s.corun.tmp.%ld", apps[0].table_path, (long)getpid());
		r.log = btc_xasprintf("%s.occupant.tmp.%ld.log", apps[0].table_path,
				      (long)getpid());
		char bound[64] = "unbounded";
		if (r.bound_s > 0)
			snprintf(bound, sizeof(bound), "killed after %.0f s", r.bound_s);
		printf("profile: co-run slowdowns of %d apps on %s: every app's stages on each PU "
		       "alone and while another app occupies each other PU (--max-reps %d; "
		       "each run %s)\n",
		       n_apps, dev->name, opt->profile_max_reps, bound);
		fflush(stdout);
	}
	for (int a = 0; ok && a < n_apps; a++)
		if (todo[a])
			ok = measure_app(&r, a, d);
	free(todo);
	if (r.log)
		unlink(r.log);
	for (int a = 0; a < n_apps; a++)
		free(r.sides[a].prog);
	free(r.sides);
	free(r.tmp);
	free(r.log);
	if (btc_interrupted() && !d->errors)
		btc_error(d, (struct btc_loc){0}, "co-run profiling interrupted");
	return ok && !btc_interrupted();
}
