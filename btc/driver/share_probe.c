/* Same-PU capacities measured (driver/share_probe.h). */
#include "driver/share_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/build.h"
#include "driver/claim.h"
#include "driver/joint_project.h"
#include "front/app.h"
#include "front/device.h"
#include "util/fsafe.h"
#include "util/out.h"
#include "util/proc.h"

bool btc_share_probe_wanted(const struct btc_joint_plan *j)
{
	for (int c = 0; c < j->dev->n_pus; c++) {
		enum btc_backend k = j->dev->pus[c].kind;
		if (k == BTC_BACKEND_CPU || (j->m.forbid_mask & (1u << c)))
			continue;
		int n = 0;
		for (int s = 0; s < j->n_streams; s++) {
			const struct btc_sched_problem *p = j->streams[s].p;
			bool any = false;
			for (int i = 0; i < p->n_stages && !any; i++)
				any = p->time_ms[i * p->n_pus + c] == p->time_ms[i * p->n_pus + c];
			n += any;
		}
		if (n >= 2)
			return true;
	}
	return false;
}

char *btc_share_with(const struct btc_joint_plan *j)
{
	struct btc_out o;
	btc_out_init(&o);
	for (int a = 0; a < j->n_apps; a++)
		btc_outf(&o, "%s%s*%d", a ? "," : "", j->apps[a].app->name, j->wl.apps[a].streams);
	return o.buf;
}

bool btc_share_cached(const struct btc_joint_plan *j)
{
	char *with = btc_share_with(j);
	bool hit = true;
	for (int a = 0; a < j->n_apps && hit; a++) {
		const struct btc_table *t = j->apps[a].table;
		hit = t->has_share[BTC_MODE_ISOLATED] && t->share_with && !strcmp(t->share_with, with);
	}
	free(with);
	return hit;
}

/* Reads the @share rows of the probe's output text into t. */
static bool read_rows(const char *prog, char *text, struct btc_table *t,
		      const struct btc_device *dev, int *rows, struct btc_diag *d)
{
	int lineno = 0;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (strncmp(line, "@share,", 7))
			continue;
		char field[160], mode[32];
		double mean, sd;
		int n;
		struct btc_loc loc = {prog, lineno, 8};
		if (sscanf(line + 7, "%159[^,],%31[^,],%lf,%lf,%d", field, mode, &mean, &sd, &n) != 5 ||
		    strcmp(mode, "isolated") || !(mean >= 0) || !(sd >= 0) || n < 1) {
			btc_error(d, loc, "--share-probe printed a row btc cannot read: %s", line);
			return false;
		}
		struct btc_table_entry *e =
			btc_table_share_entry(t, BTC_MODE_ISOLATED, field, dev, loc, d);
		if (!e)
			return false;
		*e = (struct btc_table_entry){mean, sd, n, true};
		(*rows)++;
	}
	return true;
}

bool btc_share_probe_run(const struct btc_joint_plan *j, const char *prog, struct btc_table **out,
			 double *secs, struct btc_diag *d)
{
	*out = NULL;
	char *tmp = btc_xasprintf("%s.share-probe.%ld.txt", prog, (long)getpid());
	char *argv[] = {(char *)prog, "--share-probe", NULL};
	struct btc_run_io io = {tmp, NULL, false};
	bool timed_out = false;
	double t0 = btc_now_s();
	printf("share-probe: %s --share-probe (the same-PU factor of the GPU, docs/scheduler.md)\n",
	       prog);
	fflush(stdout);
	int rc = btc_run_bounded(argv, &io, BTC_SHARE_PROBE_BOUND_S, &timed_out);
	*secs = btc_now_s() - t0;
	char *text = btc_read_file(tmp, NULL);
	unlink(tmp);
	free(tmp);
	if (text) {
		fputs(text, stdout);
		fflush(stdout);
	}
	bool ok = false;
	char how[96];
	if (btc_interrupted()) {
		/* nothing measured */
	} else if (rc || !text) {
		btc_error(d, (struct btc_loc){prog, 0, 0}, "--share-probe %s",
			  timed_out ? "ran past its time limit and was killed"
			  : rc      ? btc_status_text(rc, how, sizeof(how))
				    : "wrote nothing");
	} else {
		struct btc_table *t = btc_table_new(j->apps[0].app, j->dev);
		int rows = 0;
		ok = read_rows(prog, text, t, j->dev, &rows, d);
		if (ok && rows > 0) {
			t->share_with = btc_share_with(j);
			*out = t;
		} else {
			btc_table_free(t);
		}
	}
	free(text);
	return ok;
}

struct share_rows {
	const struct btc_table *t;
	const struct btc_device *dev;
};

static void write_share(const void *ctx, FILE *out)
{
	const struct share_rows *x = ctx;
	btc_table_write_share(x->t, x->dev, BTC_MODE_ISOLATED, out);
}

bool btc_share_write_rows(const char *path, const struct btc_app *app,
			  const struct btc_device *dev, const struct btc_table *t, const char *with,
			  struct btc_diag *d)
{
	struct share_rows x = { t, dev };
	return btc_table_replace_rows(path, app, dev, "@share,", BTC_TABLE_SHARE_WITH, with,
				      write_share, &x, d);
}

bool btc_profile_share(const struct btc_joint_request *r, const struct btc_device *dev,
		       const char *dir, bool force, bool reprofile, struct btc_diag *d)
{
	struct btc_joint_plan *j = btc_joint_plan_make(r, dev, d);
	if (!j)
		return false;
	bool ok = true;
	char *with = btc_share_with(j);
	if (!btc_share_probe_wanted(j)) {
		printf("profile: same-PU factor: nothing to measure (no GPU with kernels of two "
		       "streams)\n");
	} else if (!reprofile && btc_share_cached(j)) {
		printf("profile: same-PU factor: cached @share rows (measured with %s)\n", with);
	} else {
		char *base = btc_joint_project_dir(j);
		char *pdir = dir ? btc_xstrdup(dir) : btc_xasprintf("build/btc/%s", base);
		for (char *c = base; *c; c++)
			if (*c == '+')
				*c = '-';
		char *prog = btc_xasprintf("%s/build/%s-workload", pdir, base);
		bool built = false;
		ok = btc_job_dir_claim(pdir, d) && btc_joint_project_make(j, pdir, force, d) &&
		     btc_job_build(pdir, dev, &built, d);
		struct btc_table *t = NULL;
		double secs = 0;
		if (ok && built)
			ok = btc_share_probe_run(j, prog, &t, &secs, d) && !btc_interrupted();
		for (int a = 0; ok && t && a < j->n_apps; a++)
			ok = btc_share_write_rows(j->apps[a].table_path, j->apps[a].app, dev, t, with, d);
		if (ok && t)
			printf("profile: same-PU factor: @share rows (isolated; with %s; %.1f s) in "
			       "every app's table\n", with, secs);
		btc_table_free(t);
		free(base);
		free(pdir);
		free(prog);
	}
	free(with);
	btc_joint_plan_free(j);
	return ok;
}
