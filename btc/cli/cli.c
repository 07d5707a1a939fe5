#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <sys/utsname.h>
#include <unistd.h>

#include "front/app.h"
#include "btc_config.h"
#include "cli/cmd_schedule.h"
#include "front/device.h"
#include "gen/gen.h"
#include "sched/plan.h"
#include "driver/job.h"
#include "util/proc.h"
#include "driver/report.h"
#include "util/paths.h"
#include "front/table.h"

#define MAX_OVERRIDES 32

static const char usage_text[] =
	"usage: btc <command> [options]\n"
	"       btc APP.yaml --device DEV [options]   (generate; `btc gen`)\n"
	"\n"
	"btc compiles a streaming app (stages with OpenMP, CUDA and Vulkan\n"
	"kernels) into a software pipeline for a heterogeneous device, following\n"
	"the BetterTogether method: profile, schedule (Z3), generate, tune.\n"
	"\n"
	"commands:\n"
	"  check APP.yaml [--device DEV] [--table T [--mode M]]\n"
	"                      validate an app (and device, table); print the model\n"
	"  devices             list the device library\n"
	"  device DEV          print a device description as YAML ('host' = this machine)\n"
	"  header APP.yaml [--glsl] [-o FILE]\n"
	"                      write the TaskObject header (or the GLSL layout) for kernels\n"
	"  schedule APP.yaml --device DEV --table T [--top K] [--objective O] [--format json]\n"
	"                      BT-Optimizer: the K best schedules and the baselines\n"
	"                      (`btc schedule --help` for all options)\n"
	"  gen APP.yaml --device DEV [--table T | --chunks SPEC...] [-o DIR] [--build]\n"
	"                      generate the pipeline project (the default action)\n"
	"  APP.yaml --device host --run [--report FILE]\n"
	"                      the main job: profile, schedule, build, tune, run verified\n"
	"  profile APP.yaml --device DEV [-o TABLE.csv]\n"
	"                      BT-Profiler: time every stage on every PU (cached)\n"
	"  tune APP.yaml --device DEV [--table T]\n"
	"                      schedule, build, tune and run on this machine (= --run)\n"
	"  report R.json... [--csv OUT] [--candidates OUT]\n"
	"                      tabulate main-job reports (markdown on stdout)\n"
	"\n"
	"generation and main-job options:\n"
	"  -o, --output DIR    project directory (default build/btc/APP-DEV)\n"
	"  --chunks SPEC       a schedule to build, e.g. big:0-2,gpu:3-6 (0-based\n"
	"                      inclusive stage ranges; repeat for several)\n"
	"  --top K             candidates from the optimizer (default 20)\n"
	"  --objective O       bt | gapness | latency (default bt)\n"
	"  --gpu API           cuda | vulkan: the GPU API when the device has both\n"
	"  --build             also configure and build the project (meson, ninja)\n"
	"  --run               the main job: profile (or cached table), schedule,\n"
	"                      generate, build, tune, run the winner verified\n"
	"  --report FILE       main job: write the report JSON\n"
	"  --tasks N           main job: tasks of the final run (default 64)\n"
	"  --input PATH        main job: the pipeline's input (default: the app's)\n"
	"  --reprofile         ignore the cached profiling table\n"
	"  --max-reps N        profiler repetition cap (default 30)\n"
	"  --tune-tasks N      tuning: measured tasks in the first round (default 12)\n"
	"  --no-race           tuning: measure every schedule once, none eliminated\n"
	"  --keep-going        main job: a schedule that fails its check is marked\n"
	"                      failed and left out, not fatal (exit 0 if the chosen\n"
	"                      one verified, 1 if none did)\n"

	"\n"
	"common options:\n"
	"  --device DEV        device name from the library, a YAML file, or 'host'\n"
	"  --cpu-groups N      split each CPU cluster into N PUs of consecutive cores\n"
	"  --table FILE        profiling table (btc CSV or the reference layout)\n"
	"  --mode M            isolated | interference (default interference)\n"
	"  -D NAME=VALUE       override an app param\n"
	"  -h, --help          this help;  --version  print the version\n"
	"\n"
	"environment: BTC_ROOT (btc's source tree), BTC_DEVICE_DIR (device library,\n"
	"default <source>/devices), BTC_TEMPLATE_DIR\n";

/* Options shared by the subcommands. */
struct opts {
	const char *positional[4];
	int n_positional;
	const char *device;
	const char *table;
	const char *output;
	enum btc_mode mode;
	int cpu_groups;
	bool glsl, build, run, reprofile, no_race, keep_going;
	int tune_tasks;
	const char *report, *input, *cache;
	int tasks, max_reps;
	const char *gpu;
	const char *chunks[BTC_PLAN_MAX_SPECS];
	int n_chunks;
	int top_k;
	const char *objective;
	struct btc_param_override overrides[MAX_OVERRIDES];
	int n_overrides;
};

enum { OPT_DEVICE = 256, OPT_TABLE, OPT_MODE, OPT_CPU_GROUPS, OPT_GLSL,
       OPT_BUILD, OPT_GPU, OPT_CHUNKS, OPT_TOP, OPT_OBJECTIVE, OPT_RUN,
       OPT_REPORT, OPT_INPUT, OPT_CACHE, OPT_TASKS, OPT_MAX_REPS, OPT_REPROFILE,
       OPT_NO_RACE, OPT_TUNE_TASKS, OPT_KEEP_GOING };

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"device", required_argument, NULL, OPT_DEVICE},
		{"table", required_argument, NULL, OPT_TABLE},
		{"mode", required_argument, NULL, OPT_MODE},
		{"cpu-groups", required_argument, NULL, OPT_CPU_GROUPS},
		{"glsl", no_argument, NULL, OPT_GLSL},
		{"build", no_argument, NULL, OPT_BUILD},
		{"gpu", required_argument, NULL, OPT_GPU},
		{"chunks", required_argument, NULL, OPT_CHUNKS},
		{"top", required_argument, NULL, OPT_TOP},
		{"objective", required_argument, NULL, OPT_OBJECTIVE},
		{"run", no_argument, NULL, OPT_RUN},
		{"report", required_argument, NULL, OPT_REPORT},
		{"input", required_argument, NULL, OPT_INPUT},
		{"cache", required_argument, NULL, OPT_CACHE},
		{"tasks", required_argument, NULL, OPT_TASKS},
		{"max-reps", required_argument, NULL, OPT_MAX_REPS},
		{"reprofile", no_argument, NULL, OPT_REPROFILE},
		{"no-race", no_argument, NULL, OPT_NO_RACE},
		{"tune-tasks", required_argument, NULL, OPT_TUNE_TASKS},
		{"keep-going", no_argument, NULL, OPT_KEEP_GOING},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0},
	};
	memset(o, 0, sizeof(*o));
	o->mode = BTC_MODE_INTERFERENCE;
	optind = 1;
	opterr = 1;
	int c;
	while ((c = getopt_long(argc, argv, "D:o:h", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case OPT_DEVICE: o->device = optarg; break;
		case OPT_TABLE: o->table = optarg; break;
		case 'o': o->output = optarg; break;
		case OPT_GLSL: o->glsl = true; break;
		case OPT_BUILD: o->build = true; break;
		case OPT_GPU: o->gpu = optarg; break;
		case OPT_RUN: o->run = true; break;
		case OPT_REPROFILE: o->reprofile = true; break;
		case OPT_NO_RACE: o->no_race = true; break;
		case OPT_KEEP_GOING: o->keep_going = true; break;
		case OPT_REPORT: o->report = optarg; break;
		case OPT_INPUT: o->input = optarg; break;
		case OPT_CACHE: o->cache = optarg; break;
		case OPT_TASKS:
		case OPT_TUNE_TASKS:
		case OPT_MAX_REPS: {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 2 || v > 1000000) {
				fprintf(stderr, "btc: --%s must be 2..1000000, not '%s'\n",
					c == OPT_TASKS ? "tasks" : "max-reps", optarg);
				return 2;
			}
			*(c == OPT_TASKS ? &o->tasks : c == OPT_TUNE_TASKS ? &o->tune_tasks
							    : &o->max_reps) = (int)v;
			break;
		}
		case OPT_OBJECTIVE: o->objective = optarg; break;
		case OPT_CHUNKS:
			if (o->n_chunks == BTC_PLAN_MAX_SPECS) {
				fprintf(stderr, "btc: at most %d --chunks\n", BTC_PLAN_MAX_SPECS);
				return 2;
			}
			o->chunks[o->n_chunks++] = optarg;
			break;
		case OPT_TOP:
			o->top_k = (int)strtol(optarg, &end, 10);
			if (*end || o->top_k < 1 || o->top_k > 1000) {
				fprintf(stderr, "btc: --top must be 1..1000, not '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_MODE:
			if (!btc_mode_parse(optarg, &o->mode)) {
				fprintf(stderr, "btc: --mode must be isolated or interference, not '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_CPU_GROUPS:
			o->cpu_groups = (int)strtol(optarg, &end, 10);
			if (*end || o->cpu_groups < 1 || o->cpu_groups > 64) {
				fprintf(stderr, "btc: --cpu-groups must be 1..64, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'D': {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || o->n_overrides == MAX_OVERRIDES) {
				fprintf(stderr, "btc: -D expects NAME=VALUE, not '%s'\n", optarg);
				return 2;
			}
			*eq = '\0';
			errno = 0;
			long long v = strtoll(eq + 1, &end, 10);
			if (*end || !eq[1] || errno) {
				fprintf(stderr, "btc: -D %s: '%s' is not an integer\n", optarg, eq + 1);
				return 2;
			}
			o->overrides[o->n_overrides++] =
				(struct btc_param_override){optarg, v};
			break;
		}
		case 'h': fputs(usage_text, stdout); exit(0);
		default: return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (o->n_positional == 4) {
			fprintf(stderr, "btc: too many arguments\n");
			return 2;
		}
		o->positional[o->n_positional++] = argv[i];
	}
	return 0;
}

static struct btc_device *load_device(const struct opts *o, struct btc_diag *d)
{
	struct btc_device *dev = btc_device_load(o->device, btc_device_dir(), NULL, d);
	if (dev && o->cpu_groups > 1 && !btc_device_split_cpus(dev, o->cpu_groups, d)) {
		btc_device_free(dev);
		return NULL;
	}
	return dev;
}

static void print_app(const struct btc_app *app, FILE *out)
{
	fprintf(out, "app %s (%s): %d stages, %d buffers, %d params\n", app->name,
		app->path, app->n_stages, app->n_buffers, app->n_params);
	if (app->n_params) {
		fputs("params:\n", out);
		for (int i = 0; i < app->n_params; i++)
			fprintf(out, "  %-20s %lld\n", app->params[i].name,
				(long long)app->params[i].value);
	}
	fputs("buffers (TaskObject layout):\n", out);
	int64_t total = 0;
	for (int i = 0; i < app->n_buffers; i++) {
		const struct btc_buffer *b = &app->buffers[i];
		int64_t bytes = b->count_value * btc_elem_size(b->elem);
		total += bytes;
		fprintf(out, "  %2d %-20s %-4s x %-12lld %10.1f KiB  %-8s  count: %s\n", i,
			b->name, btc_elem_name(b->elem), (long long)b->count_value,
			(double)bytes / 1024.0, btc_placement_name(b->placement),
			btc_expr_text(b->count));
	}
	fprintf(out, "  TaskObject size: %.1f KiB\n", (double)total / 1024.0);
	fputs("stages:\n", out);
	for (int i = 0; i < app->n_stages; i++) {
		const struct btc_stage *s = &app->stages[i];
		fprintf(out, "  %2d %-16s kernels:", i, s->name);
		for (int b = 0; b < BTC_N_BACKENDS; b++)
			if (btc_stage_has(s, (enum btc_backend)b))
				fprintf(out, " %s", btc_backend_name((enum btc_backend)b));
		if (s->n_vk) {
			int64_t n = 0;
			for (int k = 0; k < s->n_vk; k++)
				n += s->vk[k].repeat;
			fprintf(out, " (%lld dispatches)", (long long)n);
		}
		fputs("\n       reads:", out);
		for (int k = 0; k < s->n_reads; k++)
			fprintf(out, " %s", app->buffers[s->reads[k]].name);
		fputs("  writes:", out);
		for (int k = 0; k < s->n_writes; k++)
			fprintf(out, " %s", app->buffers[s->writes[k]].name);
		fputc('\n', out);
	}
}

static void print_device(const struct btc_device *dev, FILE *out)
{
	fprintf(out, "device %s (%s, %s): %d PUs\n", dev->name, dev->os, dev->arch,
		dev->n_pus);
	for (int p = 0; p < dev->n_pus; p++) {
		const struct btc_pu *pu = &dev->pus[p];
		fprintf(out, "  %-10s %-6s", pu->name, btc_backend_name(pu->kind));
		if (pu->kind == BTC_BACKEND_CPU) {
			fputs(" cores", out);
			for (int c = 0; c < pu->n_cores; c++)
				fprintf(out, "%s%d", c ? "," : " ", pu->cores[c]);
			if (pu->core_type)
				fprintf(out, "  %s", pu->core_type);
			if (pu->max_freq_mhz)
				fprintf(out, " @ %d MHz", pu->max_freq_mhz);
		} else {
			fprintf(out, " %s", pu->gpu_name ? pu->gpu_name : "GPU");
			if (pu->subgroup_size)
				fprintf(out, ", subgroup %d", pu->subgroup_size);
			if (pu->cpu_backed)
				fputs(", CPU-backed (shares the CPU cores)", out);
			else if (pu->unified_memory)
				fputs(", unified memory", out);
		}
		fputc('\n', out);
	}
}

static void print_table(const struct btc_table *t, const struct btc_app *app,
			const struct btc_device *dev, FILE *out)
{
	for (int m = 0; m < BTC_N_MODES; m++) {
		if (!t->has_mode[m])
			continue;
		fprintf(out, "profiling table (%s, ms):\n  %-16s",
			btc_mode_name((enum btc_mode)m), "stage");
		for (int p = 0; p < dev->n_pus; p++)
			fprintf(out, " %10s", dev->pus[p].name);
		fputc('\n', out);
		for (int s = 0; s < app->n_stages; s++) {
			fprintf(out, "  %-16s", app->stages[s].name);
			for (int p = 0; p < dev->n_pus; p++) {
				const struct btc_table_entry *e =
					btc_table_at(t, (enum btc_mode)m, s, p);
				if (e->present && btc_stage_has(&app->stages[s], dev->pus[p].kind))
					fprintf(out, " %10.4f", e->mean_ms);
				else
					fprintf(out, " %10s", "-");
			}
			fputc('\n', out);
		}
	}
}

static int cmd_check(int argc, char **argv)
{
	struct opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	if (o.n_positional != 1) {
		fputs("usage: btc check APP.yaml [--device DEV] [--table FILE [--mode M]]\n", stderr);
		return 2;
	}
	if (o.table && !o.device) {
		fputs("btc: --table needs --device\n", stderr);
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(o.positional[0], NULL, o.overrides,
					   o.n_overrides, &d);
	struct btc_device *dev = o.device ? load_device(&o, &d) : NULL;
	struct btc_table *t = NULL;
	if (app && dev && o.table)
		t = btc_table_load(o.table, NULL, app, dev, o.mode, &d);
	if (app)
		print_app(app, stdout);
	if (dev)
		print_device(dev, stdout);
	if (app && dev) {
		for (int s = 0; s < app->n_stages; s++) {
			bool any = false;
			for (int p = 0; p < dev->n_pus; p++)
				any |= btc_stage_has(&app->stages[s], dev->pus[p].kind);
			if (!any)
				btc_error(&d, app->stages[s].loc,
					  "stage '%s' has no kernel for any PU of device '%s'",
					  app->stages[s].name, dev->name);
		}
	}
	if (t)
		print_table(t, app, dev, stdout);
	if (d.errors)
		fprintf(stderr, "btc: %d error%s\n", d.errors, d.errors == 1 ? "" : "s");
	else
		puts("ok");
	btc_table_free(t);
	btc_device_free(dev);
	btc_app_free(app);
	return d.errors ? 1 : 0;
}

static int cmd_devices(int argc, char **argv)
{
	struct opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	return btc_device_list(btc_device_dir(), stdout, &d) ? 1 : 0;
}

static int cmd_device(int argc, char **argv)
{
	struct opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	if (o.n_positional != 1) {
		fputs("usage: btc device DEV [--cpu-groups N]\n", stderr);
		return 2;
	}
	o.device = o.positional[0];
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_device *dev = load_device(&o, &d);
	if (!dev)
		return 1;
	btc_device_write_yaml(dev, stdout);
	btc_device_free(dev);
	return 0;
}

static int cmd_header(int argc, char **argv)
{
	struct opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	if (o.n_positional != 1) {
		fputs("usage: btc header APP.yaml [--glsl] [-o FILE] [-D NAME=VALUE]\n", stderr);
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(o.positional[0], NULL, o.overrides,
					   o.n_overrides, &d);
	if (!app)
		return 1;
	struct btc_out out;
	btc_out_init(&out);
	if (o.glsl)
		btc_gen_layout_glsl(&out, app);
	else
		btc_gen_task_header(&out, app);
	bool ok = true;
	if (o.output)
		ok = btc_out_write_file(&out, o.output, &d);
	else
		fputs(out.buf, stdout);
	btc_out_free(&out);
	btc_app_free(app);
	return ok ? 0 : 1;
}

static int cmd_gen(int argc, char **argv)
{
	struct opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	if (o.n_positional != 1 || !o.device) {
		fputs("usage: btc gen APP.yaml --device DEV [--table T | --chunks SPEC...] [-o DIR] [--build]\n", stderr);
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(o.positional[0], NULL, o.overrides,
					   o.n_overrides, &d);
	struct btc_device *dev = load_device(&o, &d);
	struct btc_table *t = NULL;
	if (app && dev && o.table)
		t = btc_table_load(o.table, NULL, app, dev, o.mode, &d);
	struct btc_plan_options po;
	btc_plan_options_init(&po);
	po.mode = o.mode;
	po.gpu = o.gpu;
	if (o.top_k)
		po.sched.top_k = o.top_k;
	if (o.objective && btc_sched_objective_parse(o.objective, &po.sched.objective)) {
		btc_error(&d, (struct btc_loc){0}, "--objective must be bt, gapness or latency, not '%s'",
			  o.objective);
	}
	for (int i = 0; i < o.n_chunks; i++)
		po.specs[po.n_specs++] = o.chunks[i];
	struct btc_gen_schedule *scheds = NULL;
	int n_scheds = 0;
	char *provenance = NULL;
	struct btc_gen_ctx ctx = {0};
	char *dir = NULL;
	if (!app || !dev || (o.table && !t) || d.errors)
		goto out;
	if (o.run || !strcmp(argv[0], "profile") || !strcmp(argv[0], "tune")) {
		struct btc_job_options jo;
		btc_job_options_init(&jo);
		jo.plan = po;
		jo.out_dir = o.output;
		jo.table = o.table;
		jo.reprofile = o.reprofile;
		jo.cache_dir = o.cache;
		jo.input = o.input;
		jo.report = o.report;
		jo.keep_going = o.keep_going;
		if (o.tasks)
			jo.final_tasks = o.tasks;
		if (o.max_reps)
			jo.profile_max_reps = o.max_reps;
		if (o.tune_tasks)
			jo.tune.tasks = o.tune_tasks;
		if (o.no_race)
			jo.tune.rounds = 1; /* every schedule measured alike */
		if (!strcmp(argv[0], "profile")) {
			struct btc_table *pt = NULL;
			char *path = NULL;
			jo.out_dir = NULL;
			if (btc_job_profile(app, dev, &jo, &pt, &path, &d)) {
				printf("profiling table: %s\n", path);
				if (o.output) {
					FILE *f = fopen(o.output, "w");
					if (!f)
						btc_error(&d, (struct btc_loc){o.output, 0, 0}, "cannot write: %s",
							  strerror(errno));
					else {
						pt->btc_version = btc_xstrdup(BTC_VERSION);
						btc_table_write(pt, app, dev, f);
						fclose(f);
					}
				}
			}
			btc_table_free(pt);
			free(path);
		} else {
			int st = btc_job_main(app, dev, &jo, &d);
			if (st) /* 1, or 130 when interrupted */
				rc = st;
		}
		goto out;
	}
	if (!btc_plan(app, dev, t, o.table, &po, &scheds, &n_scheds, &provenance, &d))
		goto out;
	ctx = (struct btc_gen_ctx){app, dev, scheds, n_scheds, NULL, 0, provenance};
	bool has_vk = false;
	for (int u = 0; u < dev->n_pus; u++)
		has_vk |= dev->pus[u].kind == BTC_BACKEND_VULKAN;
	if (has_vk && !btc_gen_compile_shaders(&ctx, &d))
		goto out;
	dir = btc_job_dir(o.output, app, dev, &d);
	if (!dir || !btc_gen_project(&ctx, dir, &d))
		goto out;
	printf("generated %s: %d schedule%s (%s), %d shader%s\n", dir, n_scheds,
	       n_scheds == 1 ? "" : "s", scheds[0].baseline ? "baselines" : "candidates + baselines",
	       ctx.n_shaders, ctx.n_shaders == 1 ? "" : "s");
	bool built;
	if (o.build)
		btc_job_build(dir, dev, &built, &d);
out:
	btc_gen_free_shaders(&ctx);
	free(dir);
	free(scheds);
	free(provenance);
	btc_table_free(t);
	btc_device_free(dev);
	btc_app_free(app);
	if (btc_interrupted())
		return BTC_EXIT_INTERRUPTED;
	return rc ? rc : d.errors ? 1 : 0;
}

/* btc report R.json... [--csv OUT] [--candidates OUT]: tables of main jobs. */
static int cmd_report(int argc, char **argv)
{
	const char *csv_path = NULL, *cand_path = NULL;
	char *files[256];
	int n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv") && i + 1 < argc)
			csv_path = argv[++i];
		else if (!strcmp(argv[i], "--candidates") && i + 1 < argc)
			cand_path = argv[++i];
		else if (argv[i][0] == '-' || n == 256) {
			fputs("usage: btc report REPORT.json... [--csv OUT.csv] [--candidates OUT.csv]\n", stderr);
			return 2;
		} else
			files[n++] = argv[i];
	}
	if (!n) {
		fputs("usage: btc report REPORT.json... [--csv OUT.csv] [--candidates OUT.csv]\n", stderr);
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
	FILE *cand = cand_path ? fopen(cand_path, "w") : NULL;
	if ((csv_path && !csv) || (cand_path && !cand)) {
		fprintf(stderr, "btc: cannot write %s: %s\n", csv ? cand_path : csv_path, strerror(errno));
		return 1;
	}
	btc_report_tables(files, n, stdout, csv, cand, &d);
	if (csv)
		fclose(csv);
	if (cand)
		fclose(cand);
	return d.errors ? 1 : 0;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{"check", cmd_check},
	{"devices", cmd_devices},
	{"device", cmd_device},
	{"header", cmd_header},
	{"gen", cmd_gen},
	{"schedule", btc_cmd_schedule},
	{"report", cmd_report},
	{"profile", cmd_gen},
	{"tune", cmd_gen},
};

int btc_cli_main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("btc %s (runtime btrt %d.%d)\n", BTC_VERSION, BTC_RUNTIME_MAJOR,
		       BTC_RUNTIME_MINOR);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	/* The default action: `btc APP.yaml --device DEV ...` generates. */
	size_t n = strlen(argv[1]);
	if (n > 5 && !strcmp(argv[1] + n - 5, ".yaml"))
		return cmd_gen(argc, argv);
	fprintf(stderr, "btc: unknown command '%s' (see btc --help)\n", argv[1]);
	return 2;
}
