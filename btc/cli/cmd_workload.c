/* `btc schedule A.yaml B.yaml ... --device DEV` and `btc schedule
 * --workload W.yaml --device DEV`: several apps and streams on one chip
 * (issue 27; docs/scheduler.md "Several apps"). Loads the workload, each
 * app's table and single-app plan (its solo best schedule), builds the
 * joint problem (sched/multi.h), solves it, bounds it and prints it
 * (cli/workload_print.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/workload.h"
#include "driver/cache.h"
#include "sched/model.h"

bool btc_cli_is_workload(const struct btc_cli_options *o)
{
	return o->workload || o->n_positional > 1 || o->streams.n || o->weights.n || o->rates.n ||
	       o->app_tables.n || o->tables_dir || o->objective >= BTC_CLI_OBJECTIVE_MAXMIN;
}

struct btc_loc btc_cli_app_name_loc(const char *path)
{
	struct btc_loc loc = {path, 1, 1};
	FILE *f = fopen(path, "r");
	if (!f)
		return loc;
	char line[512];
	for (int n = 1; fgets(line, sizeof(line), f); n++)
		if (!strncmp(line, "app:", 4)) {
			int col = 5;
			while (line[col - 1] == ' ')
				col++;
			loc = (struct btc_loc){path, n, col};
			break;
		}
	fclose(f);
	return loc;
}

/* The app file's name without directory and .yaml: "alexnet-dense". */
static void stem(const char *path, char *out, size_t size)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".yaml"))
		n -= 5;
	snprintf(out, size, "%.*s", (int)n, b);
}

/* Whether `key` (len bytes) names app a: its `name:` or its file's stem. */
static bool names_app(const struct btc_cli_workload *w, int a, const char *key, size_t len)
{
	char st[256];
	stem(w->wl.apps[a].path, st, sizeof(st));
	const char *name = w->apps[a].app->name;
	return (strlen(name) == len && !strncmp(name, key, len)) ||
	       (strlen(st) == len && !strncmp(st, key, len));
}

/* APP=VALUE of option `opt`: the app's index, and VALUE. */
static int app_value(const struct btc_cli_workload *w, const char *arg, const char *opt,
		     const char **value, struct btc_diag *d)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1]) {
		btc_error(d, (struct btc_loc){0}, "%s '%s': expected APP=VALUE", opt, arg);
		return -1;
	}
	for (int a = 0; a < w->n_apps; a++)
		if (names_app(w, a, arg, (size_t)(eq - arg))) {
			*value = eq + 1;
			return a;
		}
	btc_error(d, (struct btc_loc){0}, "%s '%s': no app of that name in the workload", opt, arg);
	return -1;
}

static bool positive(const char *s, double *v)
{
	char *end;
	*v = strtod(s, &end);
	return *s && !*end && isfinite(*v) && *v > 0;
}

/* --streams, --weight, --rate, --app-table. */
static bool overrides(const struct btc_cli_options *o, struct btc_cli_workload *w,
		      struct btc_diag *d)
{
	int errors = d->errors;
	const char *v;
	double x;
	for (int i = 0; i < o->streams.n; i++) {
		int a = app_value(w, o->streams.v[i], "--streams", &v, d);
		if (a >= 0 && (!positive(v, &x) || x != floor(x) || x > 64))
			btc_error(d, (struct btc_loc){0}, "--streams '%s': N must be 1..64",
				  o->streams.v[i]);
		else if (a >= 0)
			w->wl.apps[a].streams = (int)x;
	}
	for (int i = 0; i < o->weights.n; i++) {
		int a = app_value(w, o->weights.v[i], "--weight", &v, d);
		if (a >= 0 && !positive(v, &x))
			btc_error(d, (struct btc_loc){0}, "--weight '%s': W must be positive",
				  o->weights.v[i]);
		else if (a >= 0)
			w->wl.apps[a].weight = x;
	}
	for (int i = 0; i < o->rates.n; i++) {
		int a = app_value(w, o->rates.v[i], "--rate", &v, d);
		if (a >= 0 && !positive(v, &x))
			btc_error(d, (struct btc_loc){0}, "--rate '%s': tasks/s must be positive",
				  o->rates.v[i]);
		else if (a >= 0)
			w->wl.apps[a].rate_per_s = x;
	}
	for (int i = 0; i < o->app_tables.n; i++) {
		int a = app_value(w, o->app_tables.v[i], "--app-table", &v, d);
		if (a >= 0) {
			free(w->wl.apps[a].table);
			w->wl.apps[a].table = btc_xstrdup(v);
		}
	}
	return d->errors == errors;
}

/* Every stage needs a kernel for some PU the workload may use. */
static bool every_stage_placeable(const struct btc_cli_workload *w, int a, uint32_t forbid,
				  struct btc_diag *d)
{
	const struct btc_app *app = w->apps[a].app;
	int errors = d->errors;
	for (int i = 0; i < app->n_stages; i++) {
		bool any = false;
		for (int c = 0; c < w->dev->n_pus; c++)
			any |= !(forbid & (1u << c)) &&
			       btc_stage_has(&app->stages[i], w->dev->pus[c].kind);
		if (!any)
			btc_error(d, app->stages[i].loc,
				  "stage '%s' of app '%s' has no kernel for any PU of device '%s' "
				  "that the workload may use",
				  app->stages[i].name, app->name, w->dev->name);
	}
	return d->errors == errors;
}

static char *table_path(const struct btc_cli_options *o, const struct btc_cli_workload *w, int a)
{
	const struct btc_workload_entry *e = &w->wl.apps[a];
	if (e->table)
		return btc_xstrdup(e->table);
	if (o->tables_dir) {
		char name[256];
		stem(e->path, name, sizeof(name));
		const char *mode = btc_mode_name((enum btc_mode)o->mode);
		size_t n = strlen(o->tables_dir) + strlen(name) + strlen(mode) + 8;
		char *p = btc_xmalloc(n);
		snprintf(p, n, "%s/%s/%s.csv", o->tables_dir, name, mode);
		return p;
	}
	if (o->table && w->n_apps == 1)
		return btc_xstrdup(o->table);
	/* the table `btc profile A.yaml B.yaml --device DEV` cached (with its
	 * @corun rows), when there is one */
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	char *cached = btc_cache_table_path(o->cache ? o->cache : BTC_CACHE_DEFAULT_DIR,
					    w->apps[a].app, w->dev, &quiet);
	if (cached && access(cached, R_OK) == 0)
		return cached;
	free(cached);
	return NULL;
}

/* The stage-to-PU vector of a paper-space schedule. */
static void vector_of(const struct btc_schedule *s, int *a)
{
	for (int k = 0; k < s->n_chunks; k++)
		for (int i = s->chunks[k].first_stage; i <= s->chunks[k].last_stage; i++)
			a[i] = s->chunks[k].pu;
}

/* The app's single-app plan: its lowest-period schedule (a candidate or a
 * baseline), the solo-best period and vector. */
static bool solo(const struct btc_cli_options *o, struct btc_cli_workload *w, int a,
		 struct btc_diag *d)
{
	struct btc_cli_app *x = &w->apps[a];
	struct btc_plan_options po;
	btc_cli_plan_options(o, &po);
	po.sched.objective = BTC_SCHED_LATENCY;
	po.sched.top_k = 1;
	po.sched.farms = po.sched.core_splits = false;
	po.ranking = true;
	po.baselines = false;
	po.exhaustive = false;
	x->plan = btc_plan(x->app, w->dev, x->table, x->table_path, &po, d);
	if (!x->plan)
		return false;
	const struct btc_sched_result *r = &x->plan->result;
	x->solo = btc_xcalloc((size_t)x->app->n_stages, sizeof(int));
	x->solo_ms = INFINITY;
	if (r->n_candidates) {
		x->solo_ms = r->candidates[0].period_ms;
		vector_of(&r->candidates[0], x->solo);
	}
	if (r->best_baseline >= 0 && r->baselines[r->best_baseline].period_ms < x->solo_ms) {
		x->solo_ms = r->baselines[r->best_baseline].period_ms;
		for (int i = 0; i < x->app->n_stages; i++)
			x->solo[i] = r->baselines[r->best_baseline].pu;
	}
	return isfinite(x->solo_ms);
}

static bool load_apps(const struct btc_cli_options *o, struct btc_cli_workload *w,
		      struct btc_diag *d)
{
	int errors = d->errors;
	w->n_apps = w->wl.n_apps;
	for (int a = 0; a < w->n_apps; a++) {
		const struct btc_workload_entry *e = &w->wl.apps[a];
		w->apps[a].app = btc_app_load(e->path, NULL, NULL, 0, d);
		if (!w->apps[a].app)
			continue;
		for (int b = 0; b < a; b++)
			if (w->apps[b].app && !strcmp(w->apps[b].app->name, w->apps[a].app->name)) {
				struct btc_loc at = e->loc.line == 1 && e->loc.col == 1
							    ? btc_cli_app_name_loc(e->path)
							    : e->loc;
				btc_error(d, at, "two apps named '%s' in the workload (the other: %s)",
					  w->apps[a].app->name, w->wl.apps[b].path);
			}
	}
	if (d->errors != errors || !overrides(o, w, d))
		return false;
	for (int a = 0; a < w->n_apps; a++) {
		struct btc_cli_app *x = &w->apps[a];
		x->table_path = table_path(o, w, a);
		if (!x->table_path) {
			btc_error(d, w->wl.apps[a].loc,
				  "no profiling table for app '%s' (give --app-table %s=FILE, "
				  "--tables DIR or `table:` in the workload, or profile the apps "
				  "here: btc profile A.yaml B.yaml --device DEV)",
				  x->app->name, x->app->name);
			continue;
		}
		x->table = btc_table_load(x->table_path, NULL, x->app, w->dev, (enum btc_mode)o->mode,
					  d);
	}
	return d->errors == errors;
}

/* The joint problem: streams in app order, each app's streams together. */
static bool build_problem(const struct btc_cli_options *o, struct btc_cli_workload *w,
			  struct btc_diag *d)
{
	int errors = d->errors;
	struct btc_multi_problem *m = &w->m;
	m->objective = o->objective >= BTC_CLI_OBJECTIVE_MAXMIN
			       ? (enum btc_multi_objective)(o->objective - BTC_CLI_OBJECTIVE_MAXMIN)
			       : BTC_MULTI_MAXMIN;
	m->top_k = o->top_k ? o->top_k : BTC_SCHED_DEFAULT_K;
	m->n_pus = w->dev->n_pus;
	for (int a = 0; a < w->n_apps; a++) {
		const struct btc_workload_entry *e = &w->wl.apps[a];
		struct btc_cli_app *x = &w->apps[a];
		if (m->objective == BTC_MULTI_RATES && !(e->rate_per_s > 0))
			btc_error(d, e->loc, "objective rates: app '%s' has no target rate (--rate %s=R "
					     "or `rate:`)",
				  x->app->name, x->app->name);
		m->forbid_mask |= x->plan->sched.forbid_mask;
		const struct btc_sched_problem *p = btc_plan_solved_problem(x->plan);
		/* The scheduled mode's @corun rows, else the isolated ones
		 * (what btc profile A B measures: a ratio, applied to the
		 * scheduled mode's times; docs/scheduler.md "Several apps"). */
		x->corun_mode = (enum btc_mode)o->mode;
		if (!x->table->has_corun[o->mode] && x->table->has_corun[BTC_MODE_ISOLATED])
			x->corun_mode = BTC_MODE_ISOLATED;
		if (x->table->has_corun[x->corun_mode]) {
			x->slowdown = btc_xcalloc((size_t)m->n_pus * (size_t)m->n_pus, sizeof(double));
			for (int c = 0; c < m->n_pus; c++)
				for (int q = 0; q < m->n_pus; q++)
					x->slowdown[c * m->n_pus + q] =
						btc_table_corun_factor(x->table, x->corun_mode, c, q);
		}
		for (int k = 0; k < e->streams; k++) {
			if (w->n_streams == BTC_MULTI_MAX_STREAMS) {
				btc_error(d, e->loc, "a workload has at most %d streams",
					  BTC_MULTI_MAX_STREAMS);
				return false;
			}
			int s = w->n_streams++;
			snprintf(w->names[s], sizeof(w->names[s]), "%s#%d", x->app->name, k);
			w->streams[s] = (struct btc_multi_stream){
				/* normalised: maxmin's lambda is each stream's share
				 * of its app's solo-best rate (1 / solo_ms) per unit
				 * weight; sum adds weight x r_s x solo_ms */
				.p = p, .app = a,
				.weight = m->objective == BTC_MULTI_SUM ? e->weight * x->solo_ms
									: e->weight / x->solo_ms,
				.rate = e->rate_per_s / 1000.0,
				.name = w->names[s], .slowdown = x->slowdown};
		}
	}
	m->n_streams = w->n_streams;
	m->streams = w->streams;
	return d->errors == errors;
}

int btc_cmd_workload(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	static const enum btc_cli_opt single_only[] = {
		BTC_OPT_PIN,	    BTC_OPT_FARMS,	 BTC_OPT_CORE_SPLITS, BTC_OPT_MIN_UTIL,
		BTC_OPT_MAX_CHUNKS, BTC_OPT_TIME_BUDGET, BTC_OPT_DEFINE,
	};
	for (size_t k = 0; k < sizeof(single_only) / sizeof(single_only[0]); k++)
		if (btc_cli_given(o, single_only[k])) {
			fprintf(stderr, "btc: %s applies to one app, not to a workload\n",
				btc_cli_opt_spelling(single_only[k]));
			return 2;
		}
	struct btc_cli_workload *w = btc_xcalloc(1, sizeof(*w));
	int rc = 1;
	if (o->workload && !btc_workload_load(o->workload, NULL, &w->wl, &d))
		goto out;
	for (int i = 0; i < o->n_positional; i++)
		if (!btc_workload_add(&w->wl, o->positional[i], &d))
			goto out;
	if (w->wl.n_apps == 0) {
		fprintf(stderr, "btc: missing argument\n");
		btc_cli_command_usage(BTC_CMD_SCHEDULE, stderr);
		rc = 2;
		goto out;
	}
	w->dev = btc_cli_load_device(o->device, o, &d);
	if (!w->dev || !load_apps(o, w, &d))
		goto out;
	uint32_t gpu_mask = 0;
	if (!btc_plan_gpu_mask(w->dev, btc_cli_gpu_name(o), &gpu_mask, &d))
		goto out;
	for (int k = 0; k < o->forbid.n; k++) {
		int c = btc_device_pu_index(w->dev, o->forbid.v[k]);
		if (c >= 0)
			gpu_mask |= 1u << c; /* unknown names: reported by the plan */
	}
	bool ok = true;
	for (int a = 0; a < w->n_apps; a++)
		ok &= every_stage_placeable(w, a, gpu_mask, &d);
	for (int a = 0; ok && a < w->n_apps; a++)
		ok &= solo(o, w, a, &d);
	if (!ok || !build_problem(o, w, &d))
		goto out;
	enum btc_status st = o->solver == 1 ? btc_multi_solve_exhaustive(&w->m, &w->result, &d)
					    : btc_multi_solve(&w->m, &w->result, &d);
	if (st != BTC_OK || w->result.n == 0)
		goto out;
	w->has_bound = btc_multi_bound(&w->m, &w->bound, &d) == BTC_OK;
	w->naive = btc_xcalloc((size_t)btc_multi_offset(&w->m, w->n_streams), sizeof(int));
	for (int s = 0; s < w->n_streams; s++) {
		const struct btc_cli_app *x = &w->apps[w->streams[s].app];
		memcpy(w->naive + btc_multi_offset(&w->m, s), x->solo,
		       (size_t)x->app->n_stages * sizeof(int));
	}
	w->has_naive = btc_multi_evaluate(&w->m, w->naive, &w->naive_eval);
	rc = btc_cli_workload_print(stdout, o, w) ? 1 : 0;
out:
	btc_cli_workload_free(w);
	return rc;
}
