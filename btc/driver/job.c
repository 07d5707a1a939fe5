#include "driver/job.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "btc_config.h"
#include "util/paths.h"
#include "gen/gen.h"
#include "gen/out.h"
#include "util/proc.h"
#include "driver/report.h"
#include "sched/model.h"
#include "sched/plan.h"

void btc_job_options_init(struct btc_job_options *o)
{
	memset(o, 0, sizeof(*o));
	btc_plan_options_init(&o->plan);
	btc_tune_options_init(&o->tune);
	o->final_tasks = 64;
	o->profile_max_reps = 30;
}

char *btc_job_default_dir(const struct btc_app *app, const struct btc_device *dev)
{
	return btc_xasprintf("build/btc/%s-%s", app->name, dev->name);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool btc_job_build(const char *dir, const struct btc_device *dev, bool *built,
		   struct btc_diag *d)
{
	struct utsname u;
	const char *host_arch = uname(&u) == 0 ? u.machine : "x86_64";
	char *build = btc_xasprintf("%s/build", dir);
	char *cross = NULL;
	bool runnable = true;
	*built = false;
	if (strcmp(dev->arch, host_arch) || !strcmp(dev->os, "android")) {
		if (!dev->cross_file) {
			btc_error(d, (struct btc_loc){0}, "device '%s' (%s) has no cross_file to build with",
				  dev->name, dev->arch);
			free(build);
			return false;
		}
		cross = btc_xasprintf("%s/%s", btc_source_root(), dev->cross_file);
		/* The cross file's C compiler must exist; the Android NDK's does not here. */
		runnable = !strcmp(dev->os, "linux") && btc_have_program("aarch64-linux-gnu-gcc");
	}
	if (!runnable) {
		printf("The %s toolchain is not installed here; build the project where it is:\n"
		       "  meson setup %s %s --cross-file %s\n  ninja -C %s\n",
		       dev->os, build, dir, cross, build);
		free(build);
		free(cross);
		return true;
	}
	int rc = 0;
	char *ninja_file = btc_xasprintf("%s/build.ninja", build);
	if (access(ninja_file, F_OK) != 0) {
		/* nvcc cannot cross-compile for the boards here: CUDA is off in
		 * cross builds (build on the Jetson itself for CUDA). */
		char *argv[] = {"meson", "setup", build, (char *)dir,
				cross ? "-Dcuda=disabled" : NULL, "--cross-file", cross, NULL};
		char *log = btc_xasprintf("%s/setup.log", dir);
		rc = btc_run(argv, log, true);
		if (rc != 0) {
			fprintf(stderr, "btc: meson setup failed; its output:\n");
			char *text = btc_read_file(log, NULL);
			fputs(text ? text : "(none)\n", stderr);
			free(text);
			/* A failed configuration leaves a build dir meson will not reuse. */
			char *rm[] = {"rm", "-rf", build, NULL};
			btc_run(rm, NULL, false);
		}
		free(log);
	}
	if (rc == 0 && !btc_interrupted()) {
		char *argv[] = {"ninja", "-C", build, NULL};
		rc = btc_run(argv, "/dev/null", true);
		if (rc != 0) /* again, with the compiler's output in view */
			rc = btc_run(argv, NULL, false);
	}
	if (rc != 0)
		btc_error(d, (struct btc_loc){dir, 0, 0}, "building the generated project failed");
	*built = rc == 0;
	free(ninja_file);
	free(build);
	free(cross);
	return rc == 0;
}

/* ---- cache key: FNV-1a over everything that changes the timings ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t hash_file(uint64_t h, const char *path)
{
	size_t len;
	char *text = btc_read_file(path, &len);
	h = fnv(h, path, strlen(path));
	if (text)
		h = fnv(h, text, len);
	free(text);
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t hash_dir(uint64_t h, const char *dir)
{
	DIR *dd = opendir(dir);
	if (!dd)
		return h;
	char *names[512];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dd)) && n < 512)
		if (e->d_name[0] != '.')
			names[n++] = btc_xstrdup(e->d_name);
	closedir(dd);
	qsort(names, (size_t)n, sizeof(char *), cmp_str);
	for (int i = 0; i < n; i++) {
		char *p = btc_xasprintf("%s/%s", dir, names[i]);
		h = hash_file(h, p);
		free(p);
		free(names[i]);
	}
	return h;
}

static uint64_t profile_key(const struct btc_app *app, const struct btc_device *dev)
{
	uint64_t h = 14695981039346656037ULL;
	h = fnv(h, BTC_VERSION, strlen(BTC_VERSION));
	h = hash_file(h, app->path);
	for (int i = 0; i < app->n_params; i++)
		h = fnv(h, &app->params[i].value, sizeof(int64_t));
	for (int i = 0; i < app->n_cpu_sources; i++)
		h = hash_file(h, app->cpu_sources[i]);
	for (int i = 0; i < app->n_cuda_sources; i++)
		h = hash_file(h, app->cuda_sources[i]);
	for (int i = 0; i < app->n_includes; i++)
		h = hash_dir(h, app->includes[i]);
	for (int s = 0; s < app->n_stages; s++)
		for (int k = 0; k < app->stages[s].n_vk; k++)
			h = hash_file(h, app->stages[s].vk[k].shader_path);
	char *rt = btc_xasprintf("%s/runtime/src", btc_source_root());
	char *prof = btc_xasprintf("%s/templates/profiler.c.in", btc_source_root());
	h = hash_dir(h, rt);
	h = hash_file(h, prof);
	free(rt);
	free(prof);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	btc_device_write_yaml(dev, f);
	fclose(f);
	/* The whole description, machine name included: a table measured on
	 * one box is not reused on another with the same PUs. */
	h = fnv(h, text, len);
	free(text);
	return h;
}

/* Generates the project in dir with the given schedules and builds it. */
static bool gen_and_build(const struct btc_app *app, const struct btc_device *dev,
			  const struct btc_gen_schedule *scheds, int n_scheds,
			  const char *provenance, const char *dir, bool *built,
			  struct btc_diag *d)
{
	struct btc_gen_ctx ctx = {app, dev, scheds, n_scheds, NULL, 0, provenance};
	bool has_vk = false;
	for (int u = 0; u < dev->n_pus; u++)
		has_vk |= dev->pus[u].kind == BTC_BACKEND_VULKAN;
	bool ok = (!has_vk || btc_gen_compile_shaders(&ctx, d)) &&
		  btc_gen_project(&ctx, dir, d) && btc_job_build(dir, dev, built, d);
	btc_gen_free_shaders(&ctx);
	return ok;
}

bool btc_job_profile(const struct btc_app *app, const struct btc_device *dev,
		     const struct btc_job_options *opt, struct btc_table **table,
		     char **path, struct btc_diag *d)
{
	const char *cache_dir = opt->cache_dir ? opt->cache_dir : "build/btc/cache";
	uint64_t key = profile_key(app, dev);
	char *cached = btc_xasprintf("%s/%s-%s-%016llx.csv", cache_dir, app->name,
				     dev->name, (unsigned long long)key);
	if (!opt->reprofile && access(cached, R_OK) == 0) {
		struct btc_diag quiet;
		btc_diag_init(&quiet, stderr);
		*table = btc_table_load(cached, NULL, app, dev, BTC_MODE_INTERFERENCE, &quiet);
		if (*table) {
			printf("profile: cached table %s (same app, device and kernel sources)\n", cached);
			*path = cached;
			return true;
		}
		fprintf(stderr, "btc: ignoring the unreadable cached table %s\n", cached);
	}

	/* A project with the baselines only: the profiler lives beside them. */
	char *dir = opt->out_dir ? btc_xstrdup(opt->out_dir) : btc_job_default_dir(app, dev);
	struct btc_plan_options po = opt->plan;
	po.n_specs = 0;
	po.baselines_only = true;
	struct btc_gen_schedule *scheds = NULL;
	int n = 0;
	char *prov = NULL;
	bool built = false, ok = false;
	if (!btc_plan(app, dev, NULL, NULL, &po, &scheds, &n, &prov, d) ||
	    !gen_and_build(app, dev, scheds, n, prov, dir, &built, d))
		goto out;
	if (!built || strcmp(dev->name, "host")) {
		printf("profile: the profiler for %s is in %s; build it for the device, run\n"
		       "  %s-profiler -o %s-%s.csv\n"
		       "there, and pass the table back with --table.\n",
		       dev->name, dir, app->name, app->name, dev->name);
		goto out;
	}
	if (!btc_mkdirs(cache_dir, d))
		goto out;
	char *prog = btc_xasprintf("%s/build/%s-profiler", dir, app->name);
	char *tmp = btc_xasprintf("%s.tmp.%ld", cached, (long)getpid());
	char reps[16];
	snprintf(reps, sizeof(reps), "%d", opt->profile_max_reps);
	char *argv[] = {prog, "-o", tmp, "--max-reps", reps,
			opt->input ? "--input" : NULL, (char *)opt->input, NULL};
	printf("profile: %s on %s, every stage on every PU, isolated, under interference and placed\n",
	       app->name, dev->name);
	fflush(stdout);
	int rc = btc_run(argv, NULL, false);
	if (rc == 0 && !btc_interrupted()) {
		*table = btc_table_load(tmp, NULL, app, dev, BTC_MODE_INTERFERENCE, d);
		if (*table && rename(tmp, cached) == 0) {
			ok = true;
			*path = cached;
			cached = NULL;
		}
	} else {
		btc_error(d, (struct btc_loc){prog, 0, 0}, "%s (exit %d)",
			  btc_interrupted() ? "profiling interrupted" : "the profiler failed", rc);
	}
	unlink(tmp);
	free(tmp);
	free(prog);
out:
	free(cached);
	free(scheds);
	free(prov);
	free(dir);
	return ok;
}

static const char *pu_of(const struct btc_device *dev, const struct btc_gen_schedule *g)
{
	return dev->pus[g->s.chunks[0].pu].name;
}

/* What a main job found, for the report JSON. */
struct job_result {
	const struct btc_app *app;
	const struct btc_device *dev;
	const struct btc_gen_schedule *scheds;
	const struct btc_tune_entry *entries;
	int n, winner;
	double win_ms, speedup;
	int best_base;               /* index of the best baseline, or -1 */
	double base_ms;              /* its head-to-head time */
	double *pred[BTC_N_MODES];   /* [n] T_max under each table mode, NAN if absent */
	double *model[BTC_N_MODES];  /* [n] chunk-model period P per mode, NAN if absent */
	double r[BTC_N_MODES];       /* Pearson r of pred[mode] vs measured */
	enum btc_mode mode;          /* the mode the optimizer used */
	const char *objective, *gpu;
	bool racing;
	double phases[5];
};

static void json_num(struct btc_out *o, double v)
{
	if (isnan(v))
		btc_out_puts(o, "null");
	else
		btc_outf(o, "%.6f", v);
}

static void write_report_json(const char *path, const struct job_result *r,
			      struct btc_diag *d)
{
	const struct btc_gen_schedule *win = &r->scheds[r->winner];
	const struct btc_device *dev = r->dev;
	struct btc_out o;
	btc_out_init(&o);
	btc_outf(&o, "{\"app\": \"%s\", \"device\": \"%s\", \"mode\": \"%s\", \"objective\": \"%s\", \"gpu\": \"%s\",\n \"schedule\": {\"chunks\": [",
		 r->app->name, dev->name, btc_mode_name(r->mode), r->objective,
		 r->gpu ? r->gpu : "auto");
	for (int c = 0; c < win->s.n_chunks; c++)
		btc_outf(&o, "%s{\"pu\": \"%s\", \"first_stage\": %d, \"last_stage\": %d}",
			 c ? ", " : "", dev->pus[win->s.chunks[c].pu].name,
			 win->s.chunks[c].first_stage, win->s.chunks[c].last_stage);
	btc_out_puts(&o, "]},\n \"predicted_ms\": ");
	json_num(&o, win->predicted ? win->s.period_ms : NAN);
	btc_outf(&o, ", \"measured_ms_per_task\": %.6f,\n \"baselines\": [", r->win_ms);
	int k = 0;
	for (int i = 0; i < r->n; i++)
		if (r->scheds[i].baseline && r->entries[i].ok)
			btc_outf(&o, "%s{\"pu\": \"%s\", \"measured_ms_per_task\": %.6f}", k++ ? ", " : "",
				 pu_of(dev, &r->scheds[i]), r->entries[i].measured_ms);
	btc_out_puts(&o, "],\n \"best_baseline\": ");
	if (r->best_base >= 0)
		btc_outf(&o, "{\"pu\": \"%s\", \"measured_ms_per_task\": %.6f}",
			 pu_of(dev, &r->scheds[r->best_base]), r->base_ms);
	else
		btc_out_puts(&o, "null");
	btc_outf(&o, ",\n \"speedup_vs_best_baseline\": %.4f, \"pearson_r\": ", r->speedup);
	json_num(&o, r->r[r->mode]);
	btc_out_puts(&o, ", \"pearson_r_isolated\": ");
	json_num(&o, r->r[BTC_MODE_ISOLATED]);
	btc_out_puts(&o, ", \"pearson_r_interference\": ");
	json_num(&o, r->r[BTC_MODE_INTERFERENCE]);
	btc_outf(&o, ", \"verified\": true, \"racing\": %s,\n \"phases_s\": {\"profile\": %.3f, \"schedule\": %.3f, \"build\": %.3f, \"tune\": %.3f, \"run\": %.3f},\n",
		 r->racing ? "true" : "false", r->phases[0], r->phases[1], r->phases[2],
		 r->phases[3], r->phases[4]);
	btc_out_puts(&o, " \"candidates\": [");
	for (int i = 0; i < r->n; i++) {
		char *label = btc_gen_schedule_label(&r->scheds[i].s, dev);
		btc_outf(&o, "%s\n  {\"index\": %d, \"kind\": \"%s\", \"label\": \"%s\", \"predicted_isolated_ms\": ",
			 i ? "," : "", i, r->scheds[i].baseline ? "baseline" : "candidate", label);
		json_num(&o, r->pred[BTC_MODE_ISOLATED][i]);
		btc_out_puts(&o, ", \"predicted_interference_ms\": ");
		json_num(&o, r->pred[BTC_MODE_INTERFERENCE][i]);
		btc_out_puts(&o, ", \"predicted_placed_ms\": ");
		json_num(&o, r->pred[BTC_MODE_PLACED][i]);
		for (int m = 0; m < BTC_N_MODES; m++) {
			btc_outf(&o, ", \"model_%s_ms\": ", btc_mode_name((enum btc_mode)m));
			json_num(&o, r->model[m][i]);
		}
		btc_outf(&o, ", \"measured_ms_per_task\": %.6f, \"tasks\": %d, \"rounds\": %d, \"ok\": %s}",
			 r->entries[i].measured_ms, r->entries[i].tasks, r->entries[i].rounds,
			 r->entries[i].ok ? "true" : "false");
		free(label);
	}
	btc_out_puts(&o, "]}\n");
	btc_out_write_file(&o, path, d);
	btc_out_free(&o);
}

/* Predicted period of schedule s under the table's mode m: the paper's
 * T_max (model false) or the chunk model's P (model true; equal to T_max
 * for a table without the model's terms); NAN when a time is absent. */
static double predict_in_mode(const struct btc_schedule *s, const struct btc_app *app,
			      const struct btc_device *dev, const struct btc_table *t,
			      enum btc_mode m, bool model)
{
	if (!t->has_mode[m])
		return NAN;
	struct btc_plan_buf pb;
	btc_plan_buf_init(&pb, app, dev);
	struct btc_sched_problem p;
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	double tmax = NAN;
	if (btc_plan_problem(app, dev, t, m, model, &p, &pb, &quiet)) {
		tmax = 0;
		for (int c = 0; c < s->n_chunks && !isnan(tmax); c++) {
			const struct btc_sched_chunk *ch = &s->chunks[c];
			tmax = fmax(tmax, btc_model_chunk_ms(&p, ch->pu, ch->first_stage,
							     ch->last_stage));
			for (int i = ch->first_stage; i <= ch->last_stage; i++)
				if (!btc_table_at(t, m, i, ch->pu)->present)
					tmax = NAN;
		}
		if (!isnan(tmax))
			tmax = btc_model_period_ms(&p, tmax);
	}
	btc_plan_buf_free(&pb);
	return tmax;
}

int btc_job_main(const struct btc_app *app, const struct btc_device *dev,
		 const struct btc_job_options *opt, struct btc_diag *d)
{
	double phases[5] = {0}, t = now_s(), t_all = t;
	char *dir = opt->out_dir ? btc_xstrdup(opt->out_dir) : btc_job_default_dir(app, dev);
	struct btc_table *table = NULL;
	char *table_path = NULL;
	struct btc_gen_schedule *scheds = NULL;
	char *prov = NULL;
	struct btc_tune_entry *entries = NULL;
	int n = 0, status = 1;
	btc_install_signal_handlers();

	/* 1. Profile (BT-Profiler), or reuse the cached table. */
	if (opt->table) {
		table = btc_table_load(opt->table, NULL, app, dev, opt->plan.mode, d);
		table_path = btc_xstrdup(opt->table);
	} else if (!btc_job_profile(app, dev, opt, &table, &table_path, d)) {
		goto out;
	}
	if (!table)
		goto out;
	phases[0] = now_s() - t;

	/* 2. Schedule (BT-Optimizer): the top K and the baselines. */
	t = now_s();
	if (!btc_plan(app, dev, table, table_path, &opt->plan, &scheds, &n, &prov, d))
		goto out;
	phases[1] = now_s() - t;
	int n_cand = 0;
	for (int i = 0; i < n; i++)
		n_cand += !scheds[i].baseline;
	printf("schedule: %d candidates (objective %s, %s table) + %d baselines in %.0f ms\n",
	       n_cand, btc_sched_objective_name(opt->plan.sched.objective),
	       btc_mode_name(opt->plan.mode), n - n_cand, phases[1] * 1000);

	/* 3. Generate and build the multi-schedule program. */
	t = now_s();
	bool built;
	if (!gen_and_build(app, dev, scheds, n, prov, dir, &built, d) || !built)
		goto out;
	phases[2] = now_s() - t;
	printf("build: %s (%.1f s)\n", dir, phases[2]);
	fflush(stdout);

	/* 4. Tune on the device (racing). */
	t = now_s();
	char *prog = btc_xasprintf("%s/build/%s-pipeline", dir, app->name);
	entries = btc_xcalloc((size_t)n, sizeof(*entries));
	struct btc_tune_options to = opt->tune;
	to.work_dir = dir;
	to.input = opt->input;
	to.verbose = true;
	int winner;
	bool tuned = btc_tune(prog, scheds, n, &to, entries, &winner, d);
	phases[3] = now_s() - t;
	if (!tuned) {
		free(prog);
		goto out;
	}

	/* 5. Head to head on real input, verified: the tuning winner against
	 * the best baseline, alternating (W B W B) so that drift hits both
	 * alike; the faster by its best run is chosen, so the chosen schedule
	 * is never slower than the best baseline as measured here. Then the
	 * chosen one runs once more, traced. */
	t = now_s();
	int best_base = -1;
	for (int i = 0; i < n; i++)
		if (scheds[i].baseline && entries[i].ok &&
		    (best_base < 0 || entries[i].measured_ms < entries[best_base].measured_ms))
			best_base = i;
	char *trace = btc_xasprintf("%s/trace.json", dir);
	char *run_report = btc_xasprintf("%s/run.json", dir);
	double win_ms = INFINITY, base_ms = INFINITY;
	bool verified = true;
	int h2h = best_base >= 0 && best_base != winner ? 2 : 0;
	for (int k = 0; k < h2h && verified && !btc_interrupted(); k++) {
		double ms;
		verified = btc_tune_run_once(prog, winner, to.warmup, opt->final_tasks, opt->input,
					     run_report, NULL, true, &ms, d);
		win_ms = fmin(win_ms, ms);
		verified = verified && btc_tune_run_once(prog, best_base, to.warmup, opt->final_tasks,
							 opt->input, run_report, NULL, true, &ms, d);
		base_ms = fmin(base_ms, ms);
	}
	if (h2h && verified) {
		printf("head to head (best of %d runs of %d tasks): %s %.3f ms, baseline %s %.3f ms\n",
		       h2h, opt->final_tasks, scheds[winner].baseline ? "baseline" : "candidate",
		       win_ms, pu_of(dev, &scheds[best_base]), base_ms);
		if (base_ms < win_ms) {
			winner = best_base;
			win_ms = base_ms;
		}
	}
	double traced_ms = 0;
	if (verified && !btc_interrupted())
		verified = btc_tune_run_once(prog, winner, to.warmup, opt->final_tasks, opt->input,
					     run_report, trace, false, &traced_ms, d);
	if (!h2h) {
		win_ms = base_ms = traced_ms;
	}
	phases[4] = now_s() - t;
	free(prog);
	if (!verified || btc_interrupted()) {
		free(trace);
		free(run_report);
		goto out;
	}

	/* 6. Pictures and the report. */
	char *svg = btc_xasprintf("%s/timeline.svg", dir);
	char *heat = btc_xasprintf("%s/profile.svg", dir);
	btc_report_gantt_svg(trace, svg, 10 * win_ms, d);
	btc_report_heatmap_svg(table, app, dev, opt->plan.mode, heat, d);
	struct job_result res = {
		.app = app, .dev = dev, .scheds = scheds, .entries = entries, .n = n,
		.winner = winner, .win_ms = win_ms, .mode = opt->plan.mode,
		.objective = btc_sched_objective_name(opt->plan.sched.objective),
		.gpu = opt->plan.gpu, .racing = to.rounds > 1,
	};
	double *py = btc_xcalloc((size_t)n, sizeof(double)), *px = btc_xcalloc((size_t)n, sizeof(double));
	for (int m = 0; m < BTC_N_MODES; m++) {
		res.pred[m] = btc_xcalloc((size_t)n, sizeof(double));
		res.model[m] = btc_xcalloc((size_t)n, sizeof(double));
		int np = 0;
		for (int i = 0; i < n; i++) {
			res.model[m][i] = predict_in_mode(&scheds[i].s, app, dev, table,
							  (enum btc_mode)m, true);
			res.pred[m][i] = predict_in_mode(&scheds[i].s, app, dev, table,
							 (enum btc_mode)m, false);
			if (entries[i].ok && !isnan(res.pred[m][i])) {
				px[np] = res.pred[m][i];
				py[np++] = entries[i].measured_ms;
			}
		}
		res.r[m] = btc_pearson(px, py, np);
	}
	double r = res.r[opt->plan.mode];
	int np = 0;
	for (int i = 0; i < n; i++)
		np += entries[i].ok && !isnan(res.pred[opt->plan.mode][i]);
	double speedup = base_ms > 0 && win_ms > 0 ? base_ms / win_ms : 0;
	const struct btc_gen_schedule *w = &scheds[winner];
	char *label = btc_gen_schedule_label(&w->s, dev);

	printf("\n== btc report: %s on %s ==\n", app->name, dev->name);
	printf("%-4s %-9s %-34s %12s %12s %6s\n", "N", "kind", "schedule (PU:stages)", "predicted_ms",
	       "measured_ms", "rounds");
	for (int i = 0; i < n; i++) {
		char *l = btc_gen_schedule_label(&scheds[i].s, dev);
		printf("%-4d %-9s %-34s %12.3f %12.3f %6d%s\n", i,
		       scheds[i].baseline ? "baseline" : "candidate", l, entries[i].predicted_ms,
		       entries[i].measured_ms, entries[i].rounds, i == winner ? "  <- chosen" : "");
		free(l);
	}
	printf("chosen: %s, %.3f ms/task (%.1f tasks/s), predicted %.3f ms\n", label, win_ms,
	       1000.0 / win_ms, w->predicted ? w->s.period_ms : 0.0);
	if (best_base >= 0)
		printf("best baseline: %s, %.3f ms/task measured head to head: speedup %.2fx\n",
		       pu_of(dev, &scheds[best_base]), base_ms, speedup);
	printf("prediction: Pearson r = %.3f over %d schedules (%s table; isolated %.3f, interference %.3f)\n",
	       r, np, btc_mode_name(opt->plan.mode), res.r[BTC_MODE_ISOLATED],
	       res.r[BTC_MODE_INTERFERENCE]);
	printf("verified: every task of every run matched the sequential reference\n");
	printf("phases: profile %.1f s, schedule %.3f s, build %.1f s, tune %.1f s, run %.1f s (total %.1f s)\n",
	       phases[0], phases[1], phases[2], phases[3], phases[4], now_s() - t_all);
	printf("files: %s (Perfetto), %s, %s%s%s\n", trace, svg, heat,
	       opt->report ? ", " : "", opt->report ? opt->report : "");
	res.speedup = speedup;
	res.best_base = best_base;
	res.base_ms = base_ms;
	memcpy(res.phases, phases, sizeof(phases));
	if (opt->report)
		write_report_json(opt->report, &res, d);
	for (int m = 0; m < BTC_N_MODES; m++) {
		free(res.pred[m]);
		free(res.model[m]);
	}
	free(label);
	free(px);
	free(py);
	free(svg);
	free(heat);
	free(trace);
	free(run_report);
	status = d->errors ? 1 : 0;
out:
	if (btc_interrupted()) {
		fprintf(stderr, "btc: interrupted\n");
		status = 130;
	}
	free(entries);
	free(scheds);
	free(prov);
	free(table_path);
	btc_table_free(table);
	free(dir);
	return status;
}
