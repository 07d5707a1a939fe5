/* The joint plan of a workload (sched/joint_plan.h): loading the apps,
 * their tables and single-app plans, the joint problem, its top K, bound
 * and naive co-location, and each app's schedules for a generated
 * program. Moved here from `btc schedule` (cli/cmd_workload.c) so that
 * gen/ and the workload job take the same plan. */
#include "sched/joint_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "front/app.h"
#include "front/device.h"
#include "front/table.h"
#include "sched/model.h"
#include "util/infile.h"
#include "util/out.h"
#include "util/str.h"

struct btc_loc btc_joint_app_name_loc(const char *path)
{
	struct btc_loc loc = {path, 1, 1};
	FILE *f = btc_fopen_regular(path, "r", NULL);
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
bool btc_joint_names_app(const struct btc_joint_plan *w, int a, const char *key, size_t len)
{
	char st[256];
	stem(w->wl.apps[a].path, st, sizeof(st));
	const char *name = w->apps[a].app->name;
	return (strlen(name) == len && !strncmp(name, key, len)) ||
	       (strlen(st) == len && !strncmp(st, key, len));
}

/* APP=VALUE of option `opt`: the app's index, and VALUE. */
static int app_value(const struct btc_joint_plan *w, const char *arg, const char *opt,
		     const char **value, struct btc_diag *d)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1]) {
		btc_error(d, (struct btc_loc){0}, "%s '%s': expected APP=VALUE", opt, arg);
		return -1;
	}
	for (int a = 0; a < w->n_apps; a++)
		if (btc_joint_names_app(w, a, arg, (size_t)(eq - arg))) {
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
static bool overrides(const struct btc_joint_request *o, struct btc_joint_plan *w,
		      struct btc_diag *d)
{
	int errors = d->errors;
	const char *v;
	double x;
	for (int i = 0; i < o->n_streams; i++) {
		int a = app_value(w, o->streams[i], "--streams", &v, d);
		if (a >= 0 && (!positive(v, &x) || x != floor(x) || x > 64))
			btc_error(d, (struct btc_loc){0}, "--streams '%s': N must be 1..64",
				  o->streams[i]);
		else if (a >= 0)
			w->wl.apps[a].streams = (int)x;
	}
	for (int i = 0; i < o->n_weights; i++) {
		int a = app_value(w, o->weights[i], "--weight", &v, d);
		if (a >= 0 && !positive(v, &x))
			btc_error(d, (struct btc_loc){0}, "--weight '%s': W must be positive",
				  o->weights[i]);
		else if (a >= 0)
			w->wl.apps[a].weight = x;
	}
	for (int i = 0; i < o->n_rates; i++) {
		int a = app_value(w, o->rates[i], "--rate", &v, d);
		if (a >= 0 && !positive(v, &x))
			btc_error(d, (struct btc_loc){0}, "--rate '%s': tasks/s must be positive",
				  o->rates[i]);
		else if (a >= 0)
			w->wl.apps[a].rate_per_s = x;
	}
	for (int i = 0; i < o->n_app_tables; i++) {
		int a = app_value(w, o->app_tables[i], "--app-table", &v, d);
		if (a >= 0) {
			free(w->wl.apps[a].table);
			w->wl.apps[a].table = btc_xstrdup(v);
		}
	}
	return d->errors == errors;
}

/* Every stage needs a kernel for some PU the workload may use. */
static bool every_stage_placeable(const struct btc_joint_plan *w, int a, uint32_t forbid,
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

static char *table_path(const struct btc_joint_request *o, const struct btc_joint_plan *w, int a)
{
	const struct btc_workload_entry *e = &w->wl.apps[a];
	if (e->table)
		return btc_xstrdup(e->table);
	if (o->tables_dir) {
		char name[256];
		stem(e->path, name, sizeof(name));
		const char *mode = btc_mode_name(o->plan.mode);
		size_t n = strlen(o->tables_dir) + strlen(name) + strlen(mode) + 8;
		char *p = btc_xmalloc(n);
		snprintf(p, n, "%s/%s/%s.csv", o->tables_dir, name, mode);
		return p;
	}
	if (o->table && w->n_apps == 1)
		return btc_xstrdup(o->table);
	/* the table `btc profile A.yaml B.yaml --device DEV` cached (with its
	 * @corun rows), when there is one */
	return o->cached ? o->cached(w->apps[a].app, w->dev, o->cached_ctx) : NULL;
}

/* The app's single-app plan: its lowest-period schedule (a candidate or a
 * baseline) in the joint problem's space and its period, the solo best.
 * Its joint vector comes later (solo_vectors: the problem's options). */
static bool solo(const struct btc_joint_request *o, struct btc_joint_plan *w, int a,
		 struct btc_diag *d)
{
	struct btc_joint_app *x = &w->apps[a];
	struct btc_plan_options po = o->plan;
	po.n_specs = 0;
	po.candidate_modes = 0;
	po.period_slice = 0;
	po.space = false;
	po.sched.objective = BTC_SCHED_LATENCY;
	po.sched.top_k = 1;
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
		x->n_solo_chunks = r->candidates[0].n_chunks;
		memcpy(x->solo_chunks, r->candidates[0].chunks,
		       (size_t)x->n_solo_chunks * sizeof(x->solo_chunks[0]));
	}
	if (r->best_baseline >= 0 && r->baselines[r->best_baseline].period_ms < x->solo_ms) {
		x->solo_ms = r->baselines[r->best_baseline].period_ms;
		x->n_solo_chunks = 1;
		x->solo_chunks[0] = (struct btc_sched_chunk){
			r->baselines[r->best_baseline].pu, 0, x->app->n_stages - 1, 0, 0, 0};
	}
	return isfinite(x->solo_ms);
}

/* Each app's solo-best schedule as its streams' part of a joint vector. */
static bool solo_vectors(struct btc_joint_plan *w, struct btc_diag *d)
{
	for (int a = 0; a < w->n_apps; a++) {
		struct btc_joint_app *x = &w->apps[a];
		int s = 0;
		while (s < w->n_streams && w->streams[s].app != a)
			s++;
		if (s == w->n_streams ||
		    !btc_multi_stream_encode(&w->m, s, x->solo_chunks, x->n_solo_chunks, x->solo)) {
			btc_error(d, w->wl.apps[a].loc,
				  "app '%s': its solo-best schedule is outside the joint space",
				  x->app->name);
			return false;
		}
	}
	return true;
}

static bool load_apps(const struct btc_joint_request *o, struct btc_joint_plan *w,
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
							    ? btc_joint_app_name_loc(e->path)
							    : e->loc;
				btc_error(d, at, "two apps named '%s' in the workload (the other: %s)",
					  w->apps[a].app->name, w->wl.apps[b].path);
			}
	}
	if (d->errors != errors || !overrides(o, w, d))
		return false;
	for (int a = 0; a < w->n_apps; a++) {
		struct btc_joint_app *x = &w->apps[a];
		x->table_path = table_path(o, w, a);
		if (!x->table_path) {
			btc_error(d, w->wl.apps[a].loc,
				  "no profiling table for app '%s' (give --app-table %s=FILE, "
				  "--tables DIR or `table:` in the workload, or profile the apps "
				  "here: btc profile A.yaml B.yaml --device DEV)",
				  x->app->name, x->app->name);
			continue;
		}
		x->table = btc_table_load(x->table_path, NULL, x->app, w->dev, o->plan.mode,
					  d);
	}
	return d->errors == errors;
}

/* The same-PU capacities kappa_p(n), n = 2..S (sched/multi.h), with
 * --same-pu probe only (else every factor 1): the request's measured table, else the first app table with @share rows
 * in the scheduled mode, else isolated ones (what the probe writes);
 * btc_table_share_factor fills counts not measured from the largest one
 * below. NULL when every factor is 1. */
static void build_capacity(const struct btc_joint_request *o, struct btc_joint_plan *w)
{
	w->same_pu = o->same_pu;
	if (o->same_pu != BTC_SAME_PU_PROBE)
		return;
	const struct btc_table *t = o->share;
	enum btc_mode mode = BTC_MODE_ISOLATED;
	int from = -1;
	for (int a = 0; !t && a < w->n_apps; a++) {
		const struct btc_table *x = w->apps[a].table;
		if (x->has_share[o->plan.mode] || x->has_share[BTC_MODE_ISOLATED]) {
			t = x;
			from = a;
		}
	}
	if (!t)
		return;
	if (t->has_share[o->plan.mode])
		mode = o->plan.mode;
	else if (!t->has_share[BTC_MODE_ISOLATED])
		for (int k = 0; k < BTC_N_MODES; k++)
			if (t->has_share[k])
				mode = (enum btc_mode)k;
	int S = w->n_streams, np = w->m.n_pus;
	double *cap = btc_xcalloc((size_t)np * (size_t)(S + 1), sizeof(double));
	bool any = false;
	for (int c = 0; c < np; c++)
		for (int n = 0; n <= S; n++) {
			cap[c * (S + 1) + n] = btc_table_share_factor(t, mode, c, n);
			any |= cap[c * (S + 1) + n] != 1.0;
		}
	if (!any) {
		free(cap);
		return;
	}
	w->capacity = cap;
	w->m.capacity = cap;
	if (from < 0)
		w->share_source = btc_xasprintf("measured by this job's probe (%s)",
						btc_mode_name(mode));
	else
		w->share_source = btc_xasprintf("%s's @share rows (%s%s%s)", w->apps[from].app->name,
						btc_mode_name(mode),
						t->share_with ? "; measured with " : "",
						t->share_with ? t->share_with : "");
}

/* The joint problem: streams in app order, each app's streams together. */
static bool build_problem(const struct btc_joint_request *o, struct btc_joint_plan *w,
			  struct btc_diag *d)
{
	int errors = d->errors;
	struct btc_multi_problem *m = &w->m;
	m->objective = o->objective;
	m->top_k = o->top_k ? o->top_k : BTC_SCHED_DEFAULT_K;
	m->farms = o->plan.sched.farms;
	m->core_splits = o->plan.sched.core_splits;
	m->farm_max_pus = o->plan.sched.farm_max_pus;
	m->n_pus = w->dev->n_pus;
	for (int a = 0; a < w->n_apps; a++) {
		const struct btc_workload_entry *e = &w->wl.apps[a];
		struct btc_joint_app *x = &w->apps[a];
		if (m->objective == BTC_MULTI_RATES && !(e->rate_per_s > 0))
			btc_error(d, e->loc, "objective rates: app '%s' has no target rate (--rate %s=R "
					     "or `rate:`)",
				  x->app->name, x->app->name);
		m->forbid_mask |= x->plan->sched.forbid_mask;
		const struct btc_sched_problem *p = btc_plan_solved_problem(x->plan);
		/* The scheduled mode's @corun rows, else the isolated ones
		 * (what btc profile A B measures: a ratio, applied to the
		 * scheduled mode's times; docs/scheduler.md "Several apps"). */
		x->corun_mode = o->plan.mode;
		if (!x->table->has_corun[o->plan.mode] && x->table->has_corun[BTC_MODE_ISOLATED])
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
	build_capacity(o, w);
	return d->errors == errors;
}

/* Index of vector v (n entries) in app x's list, appended when new. */
static int add_vector(struct btc_joint_app *x, const int *v, int n)
{
	for (int i = 0; i < x->n_vectors; i++)
		if (!memcmp(x->vectors[i], v, (size_t)n * sizeof(int)))
			return i;
	x->vectors = btc_xrealloc(x->vectors, (size_t)(x->n_vectors + 1) * sizeof(*x->vectors));
	x->vectors[x->n_vectors] = btc_xmalloc((size_t)n * sizeof(int));
	memcpy(x->vectors[x->n_vectors], v, (size_t)n * sizeof(int));
	return x->n_vectors++;
}

/* Each app's schedules and each candidate's choice among them. */
static void collect_schedules(struct btc_joint_plan *w)
{
	int S = w->n_streams;
	w->schedule = btc_xcalloc((size_t)w->result.n * (size_t)S, sizeof(int));
	for (int k = 0; k < w->result.n; k++)
		for (int s = 0; s < S; s++) {
			struct btc_joint_app *x = &w->apps[w->streams[s].app];
			w->schedule[k * S + s] = add_vector(
				x, w->result.c[k].a + btc_multi_offset(&w->m, s), x->app->n_stages);
		}
	for (int a = 0; a < w->n_apps; a++) {
		struct btc_joint_app *x = &w->apps[a];
		x->solo_vector = add_vector(x, x->solo, x->app->n_stages);
	}
}

struct btc_joint_plan *btc_joint_plan_make(const struct btc_joint_request *o,
					   const struct btc_device *dev, struct btc_diag *d)
{
	struct btc_joint_plan *w = btc_xcalloc(1, sizeof(*w));
	w->dev = dev;
	w->plan = o->plan;
	if (o->workload && !btc_workload_load(o->workload, NULL, &w->wl, d))
		goto fail;
	for (int i = 0; i < o->n_apps; i++)
		if (!btc_workload_add(&w->wl, o->apps[i], d))
			goto fail;
	if (w->wl.n_apps == 0) {
		btc_error(d, (struct btc_loc){0}, "a workload needs at least one app");
		goto fail;
	}
	if (!load_apps(o, w, d))
		goto fail;
	uint32_t gpu_mask = 0;
	if (!btc_plan_gpu_mask(w->dev, o->plan.gpu, &gpu_mask, d))
		goto fail;
	for (int k = 0; k < o->plan.n_forbid; k++) {
		int c = btc_device_pu_index(w->dev, o->plan.forbid[k]);
		if (c >= 0)
			gpu_mask |= 1u << c; /* unknown names: reported by the plan */
	}
	bool ok = true;
	for (int a = 0; a < w->n_apps; a++)
		ok &= every_stage_placeable(w, a, gpu_mask, d);
	for (int a = 0; ok && a < w->n_apps; a++)
		ok &= solo(o, w, a, d);
	if (!ok || !build_problem(o, w, d) || !solo_vectors(w, d))
		goto fail;
	enum btc_status st = o->solver == 1   ? btc_multi_solve_exhaustive(&w->m, &w->result, d)
			     : o->solver == 2 ? btc_multi_solve_bb(&w->m, &w->result, d)
			     : o->solver == 3 ? btc_multi_solve_z3(&w->m, &w->result, d)
					      : btc_multi_solve(&w->m, &w->result, d);
	if (st != BTC_OK || w->result.n == 0)
		goto fail;
	w->has_bound = btc_multi_bound(&w->m, &w->bound, d) == BTC_OK;
	w->naive = btc_xcalloc((size_t)btc_multi_offset(&w->m, w->n_streams), sizeof(int));
	for (int s = 0; s < w->n_streams; s++) {
		const struct btc_joint_app *x = &w->apps[w->streams[s].app];
		memcpy(w->naive + btc_multi_offset(&w->m, s), x->solo,
		       (size_t)x->app->n_stages * sizeof(int));
	}
	w->has_naive = btc_multi_evaluate(&w->m, w->naive, &w->naive_eval);
	w->evals = btc_xcalloc((size_t)w->result.n, sizeof(*w->evals));
	for (int k = 0; k < w->result.n; k++)
		btc_multi_evaluate(&w->m, w->result.c[k].a, &w->evals[k]);
	collect_schedules(w);
	return w;
fail:
	btc_joint_plan_free(w);
	return NULL;
}

double btc_joint_normalised(const struct btc_joint_plan *j, const struct btc_multi_eval *e, int s)
{
	return e->rate[s] * j->apps[j->streams[s].app].solo_ms;
}

double btc_joint_min_normalised(const struct btc_joint_plan *j, const struct btc_multi_eval *e)
{
	double v = INFINITY;
	for (int s = 0; s < j->n_streams; s++)
		v = fmin(v, btc_joint_normalised(j, e, s));
	return v;
}

const char *btc_same_pu_name(enum btc_same_pu s)
{
	return s == BTC_SAME_PU_PROBE ? "probe" : "none";
}

char *btc_joint_share_text(const struct btc_joint_plan *j)
{
	if (j->same_pu != BTC_SAME_PU_PROBE)
		return btc_xstrdup("none (--same-pu none: factor 1)");
	if (!j->capacity)
		return btc_xstrdup("none measured (factor 1)");
	struct btc_out o;
	btc_out_init(&o);
	int S = j->n_streams;
	const char *sep = "measured: ";
	for (int c = 0; c < j->m.n_pus; c++) {
		bool any = false;
		for (int n = 2; n <= S; n++)
			any |= j->capacity[c * (S + 1) + n] != 1.0;
		if (!any)
			continue;
		btc_outf(&o, "%s%s", sep, j->dev->pus[c].name);
		for (int n = 2; n <= S; n++)
			btc_outf(&o, "%s x%.3f at %d streams", n > 2 ? "," : "",
				 j->capacity[c * (S + 1) + n], n);
		sep = "; ";
	}
	btc_outf(&o, "; %s", j->share_source ? j->share_source : "measured");
	return o.buf;
}

char *btc_joint_spec(const struct btc_joint_plan *j, int a, const int *v)
{
	int s = 0;
	while (s < j->n_streams && j->streams[s].app != a)
		s++;
	struct btc_out o;
	btc_out_init(&o);
	struct btc_sched_chunk *ch = btc_xcalloc((size_t)j->apps[a].app->n_stages, sizeof(*ch));
	int n = s < j->n_streams ? btc_multi_stream_schedule(&j->m, s, v, ch) : -1;
	for (int k = 0; k < n; k++) {
		const struct btc_sched_chunk *c = &ch[k];
		btc_outf(&o, "%s", k ? "," : "");
		if (c->farm) {
			btc_outf(&o, "{");
			for (int u = 0, first = 1; u < j->dev->n_pus; u++)
				if (c->farm & (1u << u)) {
					btc_outf(&o, "%s%s", first ? "" : ",", j->dev->pus[u].name);
					first = 0;
				}
			btc_outf(&o, "}");
		} else {
			btc_outf(&o, "%s", j->dev->pus[c->pu].name);
			if (c->cores)
				btc_outf(&o, "[%d]", c->cores);
		}
		if (c->last_stage == c->first_stage)
			btc_outf(&o, ":%d", c->first_stage);
		else
			btc_outf(&o, ":%d-%d", c->first_stage, c->last_stage);
	}
	free(ch);
	return o.buf;
}

void btc_joint_plan_free(struct btc_joint_plan *w)
{
	if (!w)
		return;
	for (int a = 0; a < w->n_apps; a++) {
		struct btc_joint_app *x = &w->apps[a];
		btc_plan_free(x->plan);
		btc_table_free(x->table);
		btc_app_free(x->app);
		free(x->table_path);
		free(x->solo);
		free(x->slowdown);
		for (int i = 0; i < x->n_vectors; i++)
			free(x->vectors[i]);
		free(x->vectors);
	}
	for (int k = 0; w->evals && k < w->result.n; k++)
		btc_multi_eval_free(&w->evals[k]);
	free(w->evals);
	btc_multi_result_free(&w->result);
	btc_multi_eval_free(&w->naive_eval);
	free(w->naive);
	free(w->schedule);
	free(w->capacity);
	free(w->share_source);
	btc_workload_free(&w->wl);
	free(w);
}
