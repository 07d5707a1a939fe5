/* `btc gen A.yaml B.yaml... --device DEV [--streams A=N] [--top K] [-o DIR]
 * [--build]`: a workload project, one program that runs every stream of
 * every app at once (gen.h, btc_gen_workload_project), over the joint
 * plan's top K (sched/joint_plan.h, btc_gen_joint_project in
 * driver/joint_project.h); with `--chunks A=SPEC --chunks B=SPEC` one
 * stream per app on the given schedules instead. Either way every app's
 * kernel symbols are checked first, as by single-app `btc gen` and `btc
 * check` (gen/symbol_check.h): a misspelling is an error at its YAML line
 * and nothing is written. */
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/workload.h"
#include "driver/joint_project.h"
#include "driver/build.h"
#include "driver/claim.h"
#include "gen/gen.h"
#include "gen/symbol_check.h"
#include "util/str.h"

#define MAX_APPS 16

/* The app a "NAME=SPEC" value names, and its spec; -1 when none. */
static int spec_app(struct btc_app *const *apps, int n, const char *v, const char **spec)
{
	const char *eq = strchr(v, '=');
	if (!eq)
		return -1;
	for (int i = 0; i < n; i++)
		if (strlen(apps[i]->name) == (size_t)(eq - v) &&
		    !strncmp(apps[i]->name, v, (size_t)(eq - v))) {
			*spec = eq + 1;
			return i;
		}
	return -1;
}

/* btc_gen_check_symbols of each of apps[0..n); true when none reported an
 * error. */
static bool symbols_ok(struct btc_app *const *apps, int n, struct btc_diag *d)
{
	bool ok = true;
	for (int i = 0; i < n; i++)
		ok &= btc_gen_check_symbols(apps[i], d);
	return ok;
}

/* btc_joint_project_make's arguments, for btc_job_dir_make. */
struct joint_args {
	const struct btc_joint_plan *j;
	bool force;
	struct btc_diag *d;
};

static bool make_joint(const char *dir, void *arg)
{
	struct joint_args *a = arg;
	return btc_joint_project_make(a->j, dir, a->force, a->d);
}

/* btc_gen_workload_project's arguments, for btc_job_dir_make. */
struct workload_args {
	struct btc_gen_ctx *ctxs;
	int n;
	struct btc_diag *d;
};

static bool make_workload(const char *dir, void *arg)
{
	struct workload_args *a = arg;
	return btc_gen_workload_project(a->ctxs, a->n, NULL, dir, a->d);
}

/* The joint plan's project, published whole as single-app `btc gen`'s
 * (btc_job_dir_make). */
static int gen_joint(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_device *dev;
	struct btc_joint_request r;
	int rc = btc_cli_workload_start(o, BTC_CMD_GEN, &d, &dev, &r);
	if (rc)
		return rc;
	if (!r.top_k)
		r.top_k = BTC_JOINT_PROGRAM_K;
	struct btc_joint_plan *j = btc_joint_plan_make(&r, dev, &d);
	char *dir = NULL;
	if (!j)
		goto out;
	struct btc_app *apps[BTC_WORKLOAD_MAX_APPS];
	for (int a = 0; a < j->n_apps; a++)
		apps[a] = j->apps[a].app;
	if (!symbols_ok(apps, j->n_apps, &d))
		goto out;
	dir = o->output ? btc_xstrdup(o->output) : btc_joint_project_dir(j);
	bool built;
	struct joint_args a = {j, o->force, &d};
	if (btc_job_dir_make(dir, make_joint, &a, &d)) {
		printf("generated %s: %d apps, %d streams, %d joint candidates\n", dir, j->n_apps,
		       j->n_streams, j->result.n);
		if (o->build)
			btc_job_build(dir, dev, &built, &d);
	}
out:
	free(dir);
	btc_joint_plan_free(j);
	btc_device_free(dev);
	return d.errors ? 1 : 0;
}

int btc_cmd_gen_workload(const struct btc_cli_options *o)
{
	if (!o->chunks.n)
		return gen_joint(o);
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	int n = o->n_positional;
	struct btc_app *apps[MAX_APPS] = {0};
	struct btc_plan *plans[MAX_APPS] = {0};
	struct btc_gen_ctx ctxs[MAX_APPS];
	memset(ctxs, 0, sizeof ctxs);
	struct btc_device *dev = NULL;
	char *dir = NULL;
	if (n > MAX_APPS) {
		btc_error(&d, (struct btc_loc){0}, "at most %d apps in one workload", MAX_APPS);
		goto out;
	}
	if (o->table) {
		btc_error(&d, (struct btc_loc){0},
			  "several apps: --table is not read; give each app's schedule with "
			  "--chunks APP=SPEC");
		goto out;
	}
	for (int i = 0; i < n; i++)
		apps[i] = btc_app_load(o->positional[i], NULL, o->defines.v, o->defines.n, &d);
	dev = btc_cli_load_device(o->device, o, &d);
	if (d.errors || !symbols_ok(apps, n, &d))
		goto out;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(apps[i]->name, apps[k]->name))
				btc_error(&d, (struct btc_loc){apps[i]->path, 0, 0},
					  "app '%s' is also %s: the apps of a workload need "
					  "different names", apps[i]->name, apps[k]->path);
	struct btc_plan_options po[MAX_APPS];
	for (int i = 0; i < n; i++) {
		btc_cli_plan_options(o, &po[i]);
		po[i].n_specs = 0;
	}
	for (int c = 0; c < o->chunks.n; c++) {
		const char *spec = NULL;
		int a = spec_app(apps, n, o->chunks.v[c], &spec);
		if (a < 0) {
			btc_error(&d, (struct btc_loc){0},
				  "--chunks '%s': several apps need APP=SPEC, APP one of their "
				  "names", o->chunks.v[c]);
			continue;
		}
		if (po[a].n_specs < BTC_PLAN_MAX_SPECS)
			po[a].specs[po[a].n_specs++] = spec;
	}
	for (int i = 0; i < n; i++)
		if (!d.errors && po[i].n_specs == 0)
			btc_error(&d, (struct btc_loc){apps[i]->path, 0, 0},
				  "app '%s' has no schedule: give it one with --chunks %s=SPEC",
				  apps[i]->name, apps[i]->name);
	for (int i = 0; !d.errors && i < n; i++) {
		plans[i] = btc_plan(apps[i], dev, NULL, NULL, &po[i], &d);
		if (!plans[i])
			break;
		ctxs[i] = (struct btc_gen_ctx){.app = apps[i], .dev = dev, .plan = plans[i],
					       .scheds = plans[i]->schedules,
					       .n_scheds = plans[i]->n_schedules,
					       .provenance = plans[i]->provenance,
					       .force = o->force};
	}
	if (d.errors)
		goto out;
	if (o->output) {
		dir = btc_xstrdup(o->output);
	} else {
		struct btc_out name;
		btc_out_init(&name);
		for (int i = 0; i < n; i++)
			btc_outf(&name, "%s%s", i ? "+" : "", apps[i]->name);
		btc_outf(&name, "-%s", dev->name);
		dir = name.buf;
	}
	struct workload_args a = {ctxs, n, &d};
	if (!btc_job_dir_make(dir, make_workload, &a, &d))
		goto out;
	printf("generated %s: %d apps, one stream each\n", dir, n);
	bool built;
	if (o->build)
		btc_job_build(dir, dev, &built, &d);
out:
	free(dir);
	for (int i = 0; i < n && i < MAX_APPS; i++) {
		btc_gen_free_shaders(&ctxs[i]);
		btc_plan_free(plans[i]);
		btc_app_free(apps[i]);
	}
	btc_device_free(dev);
	return d.errors ? 1 : 0;
}
