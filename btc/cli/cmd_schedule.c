/* `btc schedule APP.yaml --device DEV --table TABLE [options]`: BT-Optimizer
 * on a profiling table, printing the ranked candidates and the baselines
 * (docs/scheduler.md). Option parsing only; the work is in sched*.c. */
#include "cli/cmd_schedule.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "front/app.h"
#include "util/paths.h"
#include "front/device.h"
#include "sched/plan.h"
#include "sched/optimizer.h"
#include "front/table.h"

static const char usage[] =
	"usage: btc schedule APP.yaml --device DEV --table TABLE [options]\n"
	"\n"
	"BT-Optimizer: rank pipeline schedules of APP on DEV from a profiling\n"
	"table with Z3 (docs/scheduler.md).\n"
	"\n"
	"  --top K             candidates (default 20)\n"
	"  --objective O       bt (default): lowest T_max among schedules with\n"
	"                      gapness <= G* + (1-U) T_max; gapness: lowest\n"
	"                      gapness; latency: lowest T_max\n"
	"  --min-util U        U of bt, in percent (default 50)\n"
	"  --mode M            interference (default) | isolated | placed\n"
	"  --paper-model       chunk time = sum of the stage times, ignoring\n"
	"                      the table's chunk-model terms (F, X, T_io)\n"
	"  --format F          text (default) | json\n"
	"  --forbid PU         the PU runs nothing (repeatable)\n"
	"  --pin STAGE=PU      put a stage (name or 0-based index) on a PU\n"
	"                      (repeatable)\n"
	"  --max-chunks N      at most N chunks\n"
	"  --time-budget MS    stop after MS ms with the best found so far\n"
	"                      (flagged not optimal)\n"
	"  --gpu API           cuda | vulkan: the GPU API when DEV has both\n"
	"  --solver S          z3 (default) | exhaustive (small problems only)\n"
	"  --no-time           print solve_ms as 0 (byte-stable output)\n";

enum { O_DEVICE = 256, O_TABLE, O_TOP, O_OBJECTIVE, O_UTIL, O_MODE, O_PAPER_MODEL,
       O_FORMAT, O_FORBID, O_PIN, O_MAX_CHUNKS, O_BUDGET, O_GPU, O_SOLVER,
       O_NO_TIME };

#define MAX_LIST 64

struct sched_opts {
	const char *app, *device, *table, *gpu;
	const char *forbid[MAX_LIST], *pin[MAX_LIST];
	int n_forbid, n_pin;
	enum btc_mode mode;
	bool paper_model;
	bool json, exhaustive, no_time;
	struct btc_sched_options so;
};

static bool parse_int(const char *opt, const char *s, int lo, int hi,
		      int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "btc schedule: --%s must be %d..%d, not '%s'\n",
			opt, lo, hi, s);
		return false;
	}
	*out = (int)v;
	return true;
}

static int parse(int argc, char **argv, struct sched_opts *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, O_DEVICE },
		{ "table", required_argument, NULL, O_TABLE },
		{ "top", required_argument, NULL, O_TOP },
		{ "objective", required_argument, NULL, O_OBJECTIVE },
		{ "min-util", required_argument, NULL, O_UTIL },
		{ "mode", required_argument, NULL, O_MODE },
		{ "paper-model", no_argument, NULL, O_PAPER_MODEL },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "forbid", required_argument, NULL, O_FORBID },
		{ "pin", required_argument, NULL, O_PIN },
		{ "max-chunks", required_argument, NULL, O_MAX_CHUNKS },
		{ "time-budget", required_argument, NULL, O_BUDGET },
		{ "gpu", required_argument, NULL, O_GPU },
		{ "solver", required_argument, NULL, O_SOLVER },
		{ "no-time", no_argument, NULL, O_NO_TIME },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(o, 0, sizeof(*o));
	o->mode = BTC_MODE_INTERFERENCE;
	btc_sched_options_init(&o->so);
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_DEVICE: o->device = optarg; break;
		case O_TABLE: o->table = optarg; break;
		case O_GPU: o->gpu = optarg; break;
		case O_NO_TIME: o->no_time = true; break;
		case O_TOP:
			if (!parse_int("top", optarg, 1, 100000, &o->so.top_k))
				return 2;
			break;
		case O_UTIL:
			if (!parse_int("min-util", optarg, 0, 100,
				       &o->so.util_pct))
				return 2;
			break;
		case O_MAX_CHUNKS:
			if (!parse_int("max-chunks", optarg, 1,
				       BTC_SCHED_MAX_PUS, &o->so.max_chunks))
				return 2;
			break;
		case O_BUDGET:
			if (!parse_int("time-budget", optarg, 1, INT_MAX,
				       &o->so.time_budget_ms))
				return 2;
			break;
		case O_OBJECTIVE:
			if (btc_sched_objective_parse(optarg,
						      &o->so.objective)) {
				fprintf(stderr, "btc schedule: --objective must "
						"be bt, gapness or latency, "
						"not '%s'\n", optarg);
				return 2;
			}
			break;
		case O_PAPER_MODEL:
			o->paper_model = true;
			break;
		case O_MODE:
			if (!btc_mode_parse(optarg, &o->mode)) {
				fprintf(stderr, "btc schedule: --mode must be "
						"isolated, interference or placed, "
						"not '%s'\n", optarg);
				return 2;
			}
			break;
		case O_FORMAT:
			if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
				fprintf(stderr, "btc schedule: --format must "
						"be text or json, not '%s'\n",
					optarg);
				return 2;
			}
			o->json = strcmp(optarg, "json") == 0;
			break;
		case O_SOLVER:
			if (strcmp(optarg, "z3") &&
			    strcmp(optarg, "exhaustive")) {
				fprintf(stderr, "btc schedule: --solver must "
						"be z3 or exhaustive, not "
						"'%s'\n", optarg);
				return 2;
			}
			o->exhaustive = strcmp(optarg, "exhaustive") == 0;
			break;
		case O_FORBID:
		case O_PIN: {
			int *n = c == O_FORBID ? &o->n_forbid : &o->n_pin;
			if (*n == MAX_LIST) {
				fprintf(stderr, "btc schedule: too many --%s\n",
					c == O_FORBID ? "forbid" : "pin");
				return 2;
			}
			(c == O_FORBID ? o->forbid : o->pin)[(*n)++] = optarg;
			break;
		}
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !o->device || !o->table) {
		fputs(usage, stderr);
		return 2;
	}
	o->app = argv[optind];
	return 0;
}

static int find_pu(const struct btc_device *dev, const char *name)
{
	for (int u = 0; u < dev->n_pus; u++)
		if (strcmp(dev->pus[u].name, name) == 0)
			return u;
	return -1;
}

static int find_stage(const struct btc_app *app, const char *name)
{
	for (int s = 0; s < app->n_stages; s++)
		if (strcmp(app->stages[s].name, name) == 0)
			return s;
	char *end;
	long v = strtol(name, &end, 10);
	if (*name && !*end && v >= 0 && v < app->n_stages)
		return (int)v;
	return -1;
}

/* --forbid and --pin by name, onto the options. */
static bool resolve(struct sched_opts *o, const struct btc_app *app,
		    const struct btc_device *dev, int *pin,
		    struct btc_diag *d)
{
	const struct btc_loc none = { 0 };
	for (int k = 0; k < o->n_forbid; k++) {
		int u = find_pu(dev, o->forbid[k]);
		if (u < 0)
			btc_error(d, none, "--forbid %s: device %s has no such "
				  "PU", o->forbid[k], dev->name);
		else
			o->so.forbid_mask |= 1u << u;
	}
	for (int s = 0; s < app->n_stages; s++)
		pin[s] = -1;
	for (int k = 0; k < o->n_pin; k++) {
		char buf[256];
		snprintf(buf, sizeof(buf), "%s", o->pin[k]);
		char *eq = strchr(buf, '=');
		if (!eq) {
			btc_error(d, none, "--pin %s: expected STAGE=PU",
				  o->pin[k]);
			continue;
		}
		*eq = '\0';
		int s = find_stage(app, buf), u = find_pu(dev, eq + 1);
		if (s < 0)
			btc_error(d, none, "--pin %s: app %s has no stage '%s'",
				  o->pin[k], app->name, buf);
		else if (u < 0)
			btc_error(d, none, "--pin %s: device %s has no PU '%s'",
				  o->pin[k], dev->name, eq + 1);
		else
			pin[s] = u;
	}
	o->so.pin = pin;
	return d->errors == 0;
}

int btc_cmd_schedule(int argc, char **argv)
{
	struct sched_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(o.app, NULL, NULL, 0, &d);
	struct btc_device *dev =
		btc_device_load(o.device, btc_device_dir(), NULL, &d);
	struct btc_table *t = NULL;
	struct btc_plan_buf pb = {0};
	int *pin = NULL;
	struct btc_sched_result res = { 0 };
	rc = 1;
	if (!app || !dev)
		goto out;
	t = btc_table_load(o.table, NULL, app, dev, o.mode, &d);
	if (!t)
		goto out;
	uint32_t gpu_forbid = 0;
	if (!btc_plan_gpu_mask(dev, o.gpu, &gpu_forbid, &d))
		goto out;
	o.so.forbid_mask |= gpu_forbid;
	pin = btc_xcalloc((size_t)app->n_stages, sizeof(int));
	if (!resolve(&o, app, dev, pin, &d))
		goto out;
	btc_plan_buf_init(&pb, app, dev);
	struct btc_sched_problem p;
	if (!btc_plan_problem(app, dev, t, o.mode, !o.paper_model, &p, &pb, &d))
		goto out;
	enum btc_status st =
		o.exhaustive ? btc_sched_solve_exhaustive(&p, &o.so, &res, &d)
			     : btc_sched_solve_z3(&p, &o.so, &res, &d);
	if (st != BTC_OK)
		goto out;
	if (o.json)
		btc_sched_print_json(stdout, &p, &res, !o.no_time);
	else
		btc_sched_print_text(stdout, &p, &res, !o.no_time);
	rc = fflush(stdout) ? 1 : 0;
out:
	btc_sched_result_free(&res);
	btc_plan_buf_free(&pb);
	free(pin);
	if (t)
		btc_table_free(t);
	if (dev)
		btc_device_free(dev);
	if (app)
		btc_app_free(app);
	return rc;
}
