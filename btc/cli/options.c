/* The option table and its parser (cli/options.h). */
#include "cli/options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "front/table.h"
#include "sched/optimizer.h"
#include "sched/joint_plan.h"
#include "sched/multi.h"
#include "sched/plan.h"
#include "util/num.h"

enum kind {
	KIND_FLAG,   /* bool */
	KIND_STRING, /* const char * */
	KIND_INT,    /* int in min..max */
	KIND_UINT,   /* unsigned in min..max */
	KIND_ENUM,   /* int: index of the value in enum_name(0, 1, ...) */
	KIND_LIST,   /* struct btc_cli_list, at most max values */
	KIND_DEFINE, /* struct btc_cli_defines: NAME=INTEGER */
	KIND_NUMBER, /* double in min..max, decimal (no hex, inf or nan) */
};

struct row {
	enum btc_cli_opt id;
	const char *name; /* long name, without "--" */
	char short_name;  /* or 0 */
	enum kind kind;
	size_t offset;                   /* of the field in struct btc_cli_options */
	unsigned cmds;                   /* BTC_CMD_BIT mask of the subcommands taking it */
	const char *arg;                 /* the value's name in --help (NULL: generated) */
	const char *help;                /* '\n' continues on the next line */
	long long min, max;              /* KIND_INT, KIND_UINT: range; KIND_LIST: max count */
	const char *(*enum_name)(int i); /* KIND_ENUM: NULL past the last */
};

#define F(field) offsetof(struct btc_cli_options, field)
#define C(cmd) BTC_CMD_BIT(BTC_CMD_##cmd)

static const char *mode_name(int i)
{
	return i >= 0 && i < BTC_N_MODES ? btc_mode_name((enum btc_mode)i) : NULL;
}

static const char *objective_name(int i)
{
	if (i >= 0 && i <= BTC_SCHED_LATENCY)
		return btc_sched_objective_name((enum btc_sched_objective)i);
	if (i >= BTC_CLI_OBJECTIVE_MAXMIN && i <= BTC_CLI_OBJECTIVE_MAXMIN + BTC_MULTI_SUM)
		return btc_multi_objective_name((enum btc_multi_objective)(i - BTC_CLI_OBJECTIVE_MAXMIN));
	return NULL;
}

static const char *gpu_name(int i)
{
	static const char *const names[] = {"cuda", "vulkan", NULL};
	return i >= 0 && i < 2 ? names[i] : NULL;
}

static const char *solver_name(int i)
{
	static const char *const names[] = {"z3", "exhaustive", "bb", "z3-only", NULL};
	return i >= 0 && i < 4 ? names[i] : NULL;
}

static const char *same_pu_name(int i)
{
	return i == BTC_SAME_PU_NONE || i == BTC_SAME_PU_PROBE ? btc_same_pu_name((enum btc_same_pu)i)
							       : NULL;
}

static const char *format_name(int i)
{
	static const char *const names[] = {"text", "json", NULL};
	return i >= 0 && i < 2 ? names[i] : NULL;
}

#define MODEL (C(CHECK) | C(GEN) | C(SCHEDULE) | C(PROFILE) | C(TUNE))

/* Row constructors: option id, long name, short name, field, subcommands,
 * value name, help, and the kind's range, maximum count or names. */
#define ROW(id_, name_, short_, kind_, field, cmds_, arg_, help_, min_, max_, names_)           \
	{                                                                                       \
		.id = BTC_OPT_##id_, .name = name_, .short_name = short_, .kind = KIND_##kind_, \
		.offset = F(field), .cmds = cmds_, .arg = arg_, .help = help_, .min = min_,     \
		.max = max_, .enum_name = names_                                                \
	}
#define FLAG(id, name, field, cmds, help) \
	ROW(id, name, 0, FLAG, field, cmds, NULL, help, 0, 0, NULL)
#define STRING(id, name, short_, field, cmds, arg, help) \
	ROW(id, name, short_, STRING, field, cmds, arg, help, 0, 0, NULL)
#define INT(id, name, field, cmds, arg, help, lo, hi) \
	ROW(id, name, 0, INT, field, cmds, arg, help, lo, hi, NULL)
#define ENUM(id, name, field, cmds, help, names) \
	ROW(id, name, 0, ENUM, field, cmds, NULL, help, 0, 0, names)
#define NUMBER(id, name, field, cmds, arg, help, lo, hi) \
	ROW(id, name, 0, NUMBER, field, cmds, arg, help, lo, hi, NULL)
#define LIST(id, name, field, cmds, arg, help, n) \
	ROW(id, name, 0, LIST, field, cmds, arg, help, 0, n, NULL)

static const struct row rows[] = {
	STRING(DEVICE, "device", 0, device, MODEL, "DEV",
	       "device name from the library, a YAML file, or 'host'"),
	INT(CPU_GROUPS, "cpu-groups", cpu_groups, MODEL | C(DEVICE), "N",
	    "split each CPU cluster into N PUs of consecutive cores", 1, 64),
	STRING(TABLE, "table", 0, table, C(CHECK) | C(GEN) | C(SCHEDULE) | C(TUNE), "FILE",
	       "profiling table (btc CSV or the reference layout)"),
	ENUM(MODE, "mode", mode, C(CHECK) | C(GEN) | C(SCHEDULE) | C(TUNE),
	     "the table's mode to read and schedule on (default\ninterference; btc tune: the top K of isolated and\ninterference, ranked by isolated)", mode_name),
	ROW(DEFINE, NULL, 'D', DEFINE, defines, MODEL | C(HEADER), "NAME=VALUE",
	    "override an app param (an integer)", 0, BTC_CLI_MAX_DEFINES, NULL),
	STRING(OUTPUT, "output", 'o', output, C(HEADER), "FILE", "write to FILE instead of stdout"),
	STRING(OUTPUT, "output", 'o', output, C(GEN) | C(TUNE), "DIR",
	       "project directory (default build/btc/APP-DEV)"),
	STRING(OUTPUT, "output", 'o', output, C(PROFILE), "FILE",
	       "also write the profiling table to FILE"),
	FLAG(GLSL, "glsl", glsl, C(HEADER), "write the GLSL layout (APP_layout.glsl) instead"),
	LIST(CHUNKS, "chunks", chunks, C(GEN) | C(TUNE), "SPEC",
	     "a schedule to build, e.g. big:0-2,gpu:3-6 (0-based\ninclusive stage ranges; "
	     "repeat for several)",
	     BTC_PLAN_MAX_SPECS),
	INT(TOP, "top", top_k, C(GEN) | C(SCHEDULE) | C(TUNE), "K",
	    "candidates from the optimizer (default 20)", 1, 1000),
	ENUM(OBJECTIVE, "objective", objective, C(GEN) | C(SCHEDULE) | C(TUNE),
	     "bt (default): lowest T_max among schedules with\ngapness <= G* + (1-U) T_max; "
	     "gapness: lowest\ngapness; latency: lowest T_max. Several apps:\nmaxmin "
	     "(default), rates, sum (docs/scheduler.md)",
	     objective_name),
	INT(MIN_UTIL, "min-util", min_util, C(SCHEDULE), "U", "U of bt, in percent (default 50)", 0,
	    100),
	LIST(FORBID, "forbid", forbid, C(SCHEDULE), "PU", "the PU runs nothing (repeatable)",
	     BTC_CLI_MAX_LIST),
	LIST(PIN, "pin", pin, C(SCHEDULE), "STAGE=PU",
	     "put a stage (name or 0-based index) on a PU\n(repeatable)", BTC_CLI_MAX_LIST),
	INT(MAX_CHUNKS, "max-chunks", max_chunks, C(SCHEDULE), "N", "at most N chunks", 1,
	    BTC_SCHED_MAX_PUS),
	INT(TIME_BUDGET, "time-budget", time_budget_ms, C(SCHEDULE), "MS",
	    "stop after MS ms with the best found so far\n(flagged not optimal)", 1, INT_MAX),
	ENUM(GPU, "gpu", gpu, C(GEN) | C(SCHEDULE) | C(PROFILE) | C(TUNE),
	     "the GPU API when the device has both", gpu_name),
	ENUM(SOLVER, "solver", solver, C(SCHEDULE), "z3 (default); exhaustive: small problems only;\nworkloads: bb (branch and bound), z3-only (no\nbranch and bound first)",
	     solver_name),
	ENUM(FORMAT, "format", format, C(SCHEDULE) | C(DEVICE) | C(REPORT),
	     "output format (default text; btc report: --replay\nonly)", format_name),
	FLAG(NO_TIME, "no-time", no_time, C(SCHEDULE), "print solve_ms as 0 (byte-stable output)"),
	FLAG(PAPER_MODEL, "paper-model", paper_model, C(SCHEDULE),
	     "chunk time = sum of the stage times, ignoring the\ntable's chunk-model terms (F, X, T_io)"),
	FLAG(FARMS, "farms", farms, C(SCHEDULE) | C(GEN) | C(TUNE),
	     "also farms: a chunk whose tasks several PUs take in\nturn ({cpu,gpu}:0-8)"),
	FLAG(CORE_SPLITS, "core-splits", core_splits, C(SCHEDULE) | C(GEN) | C(TUNE),
	     "also chunks on fewer cores of a CPU PU (big[2]:0-3),\nfrom the table's NAME[k] rows"),
	FLAG(BUILD, "build", build, C(GEN), "also configure and build the project (meson, ninja)"),
	FLAG(RUN, "run", run, C(GEN) | C(TUNE),
	     "the main job (= btc tune): profile (or cached table),\nschedule, generate, "
	     "build, tune, run the winner verified"),
	STRING(REPORT, "report", 0, report, C(TUNE), "FILE", "write the report JSON"),
	INT(TASKS, "tasks", tasks, C(TUNE), "N", "tasks of the final run (default 64)", 2, 1000000),
	STRING(INPUT, "input", 0, input, C(PROFILE) | C(TUNE), "PATH",
	       "the pipeline's input (default: the app's)"),
	FLAG(REPROFILE, "reprofile", reprofile, C(PROFILE) | C(TUNE),
	     "ignore the cached profiling table"),
	FLAG(CORE_COUNTS, "core-counts", core_counts, C(PROFILE) | C(TUNE),
	     "also profile every CPU stage on 1, 2, 4, ... of each\nCPU PU's cores (table rows PU[K])"),
	INT(MAX_REPS, "max-reps", max_reps, C(PROFILE) | C(TUNE), "N",
	    "profiler repetition cap (default 30)", 2, 1000000),
	INT(TUNE_TASKS, "tune-tasks", tune_tasks, C(TUNE), "N",
	    "tuning: measured tasks per run (default 24)", 2, 1000000),
	INT(TUNE_BUDGET, "tune-budget", tune_budget_s, C(TUNE), "SECONDS",
	    "tuning, then the head to head: each starts no\nround after SECONDS (default 60); the head to\n"
	    "head and the several-apps job go on past it to\nthe 6 rounds of exact 95 % intervals, "
	    "starting\nnone that would end past 5 x SECONDS",
	    1,
	    86400),
	INT(MIN_ROUNDS, "min-rounds", min_rounds, C(TUNE), "N",
	    "rounds at least (default 3): tuning stops by\nconvergence or racing no earlier; the head to\n"
	    "head and the several-apps job need max(N, 6)\nrounds (9: the 95 % interval drops the\n"
	    "extreme round at each end), past the budget as\nfor 6; at most 30",
	    1, 30),
	NUMBER(SPEEDUP_PRECISION, "speedup-precision", speedup_precision, C(TUNE), "R",
	       "the head to head against the best baseline,\nonce decided, goes on (within the budget "
	       "and\n30 rounds) until the speedup's 95 % interval\nlies within its median x (1 +- R) "
	       "(default\n0.10; 0: it stops when decided)",
	       0, 1),
	NUMBER(WARMUP_S, "warmup-s", warmup_s, C(TUNE), "S",
	       "the several-apps job: every run's streams warm up\nfor about S seconds before "
	       "the measured tasks\n(default 0: only the tuner's 4 tasks; naive\nco-location's separate programs then measure\napart: docs/report.md)",
	       0, 60),
	FLAG(NO_RACE, "no-race", no_race, C(TUNE),
	     "tuning: no schedule eliminated (every one runs\nevery round)"),
	FLAG(NO_PLAYOFF, "no-playoff", no_playoff, C(TUNE),
	     "tuning: no playoff (by default the best two\nfinalists race head to head, at most 12 rounds,\n"
	     "unless tuning's intervals separated them)"),
	FLAG(NO_BOUND_ROUND, "no-bound-round", no_bound_round, C(TUNE),
	     "tuning: no bound round (by default the calibrated\nmodel's best assignment, when it was not among\n"
	     "the measured schedules, is built and raced head\nto head against the tuning winner; when it was\n"
	     "measured but lost, a rematch races it unless\ntuning's intervals separate the two)"),
	FLAG(NO_IO_ROUND, "no-io-round", no_io_round, C(TUNE),
	     "tuning: no io round (by default, where the device\nhas io threads to give, a probe run measures the\n"
	     "winner's load and check; where they near its\nperiod, the program is rebuilt with more io\nthreads and raced against the build)"),
	FLAG(EXHAUSTIVE, "exhaustive", exhaustive, C(TUNE),
	     "also measure every schedule of the paper's space\n(at most 256; racing off) and report the regret:\nchosen / measured best - 1, and paired: the two\nraced head to head after the final run"),
	FLAG(REGRET_ROUND, "regret-round", regret_round, C(TUNE),
	     "after the final run, race the chosen head to head\nagainst the best measured schedule and report\n"
	     "the regret against it (paired and pooled; without\n--exhaustive over the schedules measured, not\n"
	     "the space; --exhaustive implies it)"),
	FLAG(KEEP_GOING, "keep-going", keep_going, C(TUNE),
	     "go on past a failed schedule or check"),
	FLAG(ADAPT, "adapt", adapt, C(TUNE),
	     "the final run adapts: switches among the built\nschedules when the machine changes"),
	ROW(SEED, "seed", 0, UINT, seed, C(TUNE), "N",
	    "tuning: seed of the run orders (default 0: from\nthe clock; printed)", 0, UINT32_MAX,
	    NULL),
	LIST(MEASUREMENTS, "measurements", measurements, C(TUNE), "FILE",
	     "calibrate on measurements copied from the device\n(run reports JSON, CSV "
	     "schedule_index,measured_ms, or a main\njob's report: its schedules re-judged;\n"
	     "a workload job's report: its M against the\ncalibrated bound); "
	     "runs nothing (repeatable)",
	     BTC_CLI_MAX_LIST),
	STRING(CACHE, "cache", 0, cache, C(GEN) | C(PROFILE) | C(TUNE) | C(SCHEDULE), "DIR",
	       "profiling tables cache (default build/btc/cache); gen and\nschedule over several apps: "
	       "where an app without a given table finds it"),
	FLAG(FORCE, "force", force, C(GEN) | C(TUNE),
	     "replace files in -o DIR that btc did not generate\n(no \"Generated by btc\" banner)"),
	NUMBER(RUN_TIMEOUT_FACTOR, "run-timeout-factor", run_timeout_factor, C(PROFILE) | C(TUNE),
	       "F", "kill a run after F x (3 s + its predicted time),\nthe profiler after F x 120 s "
	       "(default 10; 0: no\nlimit)",
	       0, 1000000),
	STRING(WORKLOAD, "workload", 0, workload, C(GEN) | C(SCHEDULE) | C(TUNE), "FILE",
	       "schedule the apps of a workload file together\n(docs/app-format.md)"),
	LIST(STREAMS, "streams", streams, C(GEN) | C(SCHEDULE) | C(TUNE) | C(PROFILE), "APP=N",
	     "several apps: N streams of app APP (default 1;\nbtc profile: the workload of its @share rows)",
	     BTC_CLI_MAX_LIST),
	LIST(WEIGHT, "weight", weights, C(GEN) | C(SCHEDULE) | C(TUNE), "APP=W",
	     "several apps: weight of each stream of APP\n(maxmin, sum; default 1)",
	     BTC_CLI_MAX_LIST),
	LIST(RATE, "rate", rates, C(GEN) | C(SCHEDULE) | C(TUNE), "APP=R",
	     "several apps: target tasks/s of each stream of APP\n(objective rates)",
	     BTC_CLI_MAX_LIST),
	LIST(APP_TABLE, "app-table", app_tables, C(GEN) | C(SCHEDULE) | C(TUNE), "APP=FILE",
	     "several apps: the profiling table of APP", BTC_CLI_MAX_LIST),
	STRING(TABLES, "tables", 0, tables_dir, C(GEN) | C(SCHEDULE) | C(TUNE), "DIR",
	       "several apps: APP's table is DIR/APP/MODE.csv\n(the layout of data/profiles/DEVICE)"),
	ENUM(SAME_PU, "same-pu", same_pu, C(GEN) | C(SCHEDULE) | C(PROFILE) | C(TUNE),
	     "several apps: the same-PU factor kappa of the GPU.\nnone (default): factor 1 in "
	     "the plan and its\nbound, @share rows not used; probe: measured by\nthe joint "
	     "program's --share-probe (btc profile A B,\nthe workload job) and planned with\n"
	     "(docs/scheduler.md)",
	     same_pu_name),
	STRING(CSV, "csv", 0, csv, C(REPORT), "FILE", "also write one line per report as CSV"),
	STRING(CANDIDATES, "candidates", 0, candidates, C(REPORT), "FILE",
	       "write every schedule of every report as CSV"),
	STRING(FIT_CSV, "fit-csv", 0, fit_csv, C(REPORT), "FILE",
	       "write the fit of every model of every report as CSV"),
	FLAG(COMPARE, "compare", compare, C(REPORT),
	     "the reports are pairs A.json B.json ... of two\nleases: print them side by side "
	     "against the\nreproducibility goal instead"),
	STRING(SVG, "svg", 0, svg, C(REPORT), "FILE",
	       "write measured vs calibrated (LOO) predicted ms of\nevery report's schedules as "
	       "one SVG scatter"),
	STRING(SPEEDUP_SVG, "speedup-svg", 0, speedup_svg, C(REPORT), "FILE",
	       "write every report's speedup (and best baseline /\nfluid bound) as an SVG bar chart"),
	FLAG(REPLAY, "replay", replay, C(REPORT),
	     "replay each report's recorded runs (runs_ms) under\nthe tuner's rule sets: "
	     "each one's choice and its\nregret against the measured best (runs nothing)"),
	STRING(RULES, "rules", 0, rules, C(REPORT), "LIST",
	       "--replay: the rule sets, of old, new, screen,\npoint (default old,new)"),
	NUMBER(BUDGET, "budget", budget_s, C(REPORT), "SECONDS",
	       "--replay: the tuning's budget (default the report's\ntuning.budget_s)", 1, 86400),
};
#define N_ROWS ((int)(sizeof(rows) / sizeof(rows[0])))

static const char *spelling(const struct row *r, char *buf, size_t size);

/* Pairs of options that cannot be given together, and why. */
static const struct {
	enum btc_cli_opt a, b;
	const char *why;
} conflicts[] = {
	{BTC_OPT_TABLE, BTC_OPT_REPROFILE, "a given table is not profiled"},
	{BTC_OPT_CHUNKS, BTC_OPT_TOP, "--chunks schedules are not ranked"},
	{BTC_OPT_CHUNKS, BTC_OPT_OBJECTIVE, "--chunks schedules are not ranked"},
	{BTC_OPT_MEASUREMENTS, BTC_OPT_RUN, "--measurements runs nothing"},
	{BTC_OPT_MEASUREMENTS, BTC_OPT_EXHAUSTIVE, "--measurements runs nothing"},
	{BTC_OPT_MEASUREMENTS, BTC_OPT_REGRET_ROUND, "--measurements runs nothing"},
	{BTC_OPT_CHUNKS, BTC_OPT_EXHAUSTIVE, "--exhaustive measures the space itself"},
	{BTC_OPT_MEASUREMENTS, BTC_OPT_REPROFILE, "--measurements runs nothing"},
	{BTC_OPT_COMPARE, BTC_OPT_CSV, "--compare prints the pairs only"},
	{BTC_OPT_COMPARE, BTC_OPT_CANDIDATES, "--compare prints the pairs only"},
	{BTC_OPT_COMPARE, BTC_OPT_FIT_CSV, "--compare prints the pairs only"},
	{BTC_OPT_REPLAY, BTC_OPT_COMPARE, "--replay prints the replays only"},
	{BTC_OPT_REPLAY, BTC_OPT_CSV, "--replay prints the replays only"},
	{BTC_OPT_REPLAY, BTC_OPT_CANDIDATES, "--replay prints the replays only"},
	{BTC_OPT_REPLAY, BTC_OPT_FIT_CSV, "--replay prints the replays only"},
	{BTC_OPT_REPLAY, BTC_OPT_SVG, "--replay prints the replays only"},
	{BTC_OPT_REPLAY, BTC_OPT_SPEEDUP_SVG, "--replay prints the replays only"},
};

const char *btc_cli_opt_spelling(enum btc_cli_opt id)
{
	static char buf[40];
	for (int i = 0; i < N_ROWS; i++)
		if (rows[i].id == id)
			return spelling(&rows[i], buf, sizeof(buf));
	return "?";
}

const char *btc_cli_gpu_name(const struct btc_cli_options *o)
{
	return o->gpu >= 0 ? gpu_name(o->gpu) : NULL;
}

/* "a, b or c" into buf. */
static const char *enum_names(const struct row *r, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; r->enum_name(i); i++) {
		const char *sep = i == 0 ? "" : r->enum_name(i + 1) ? ", " : " or ";
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", sep,
					r->enum_name(i));
	}
	return buf;
}

/* "--name" or "-c" as the user may spell the row. */
static const char *spelling(const struct row *r, char *buf, size_t size)
{
	if (r->name)
		snprintf(buf, size, "--%s", r->name);
	else
		snprintf(buf, size, "-%c", r->short_name);
	return buf;
}

/* Parses a base-10 integer, all of s, into *v; false on anything else. */
static bool parse_ll(const char *s, long long *v)
{
	long l;
	if (!btc_parse_int(s, LONG_MIN, LONG_MAX, &l)) /* digits only: no blank, '+' or wrap */
		return false;
	*v = l;
	return true;
}

static int set_value(const struct row *r, const char *opt, char *value, struct btc_cli_options *o)
{
	char *field = (char *)o + r->offset;
	long long v;
	switch (r->kind) {
	case KIND_FLAG:
		*(bool *)field = true;
		return 0;
	case KIND_STRING:
		*(const char **)field = value;
		return 0;
	case KIND_INT:
	case KIND_UINT:
		if (!parse_ll(value, &v) || v < r->min || v > r->max) {
			fprintf(stderr, "btc: %s must be %lld..%lld, not '%s'\n", opt, r->min,
				r->max, value);
			return 2;
		}
		if (r->kind == KIND_INT)
			*(int *)field = (int)v;
		else
			*(unsigned *)field = (unsigned)v;
		return 0;
	case KIND_ENUM:
		for (int i = 0; r->enum_name(i); i++)
			if (!strcmp(value, r->enum_name(i))) {
				*(int *)field = i;
				return 0;
			}
		char names[256];
		fprintf(stderr, "btc: %s must be %s, not '%s'\n", opt,
			enum_names(r, names, sizeof(names)), value);
		return 2;
	case KIND_LIST: {
		struct btc_cli_list *l = (struct btc_cli_list *)field;
		if (l->n == r->max) {
			fprintf(stderr, "btc: at most %lld %s\n", r->max, opt);
			return 2;
		}
		l->v[l->n++] = value;
		return 0;
	}
	case KIND_NUMBER: {
		char *end;
		double x = strtod(value, &end);
		if (!*value || *end || value[strspn(value, "0123456789.eE+-")] || x < r->min ||
		    x > r->max) {
			fprintf(stderr, "btc: %s must be a decimal number in %lld..%lld, not '%s'\n",
				opt, r->min, r->max, value);
			return 2;
		}
		*(double *)field = x;
		return 0;
	}
	case KIND_DEFINE: {
		struct btc_cli_defines *l = (struct btc_cli_defines *)field;
		char *eq = strchr(value, '=');
		if (!eq || eq == value) {
			fprintf(stderr, "btc: -D expects NAME=VALUE, not '%s'\n", value);
			return 2;
		}
		if (!parse_ll(eq + 1, &v)) {
			fprintf(stderr, "btc: -D %.*s: '%s' is not an integer\n", (int)(eq - value),
				value, eq + 1);
			return 2;
		}
		if (l->n == r->max) {
			fprintf(stderr, "btc: at most %lld -D\n", r->max);
			return 2;
		}
		*eq = '\0';
		l->v[l->n++] = (struct btc_param_override){value, (int64_t)v};
		return 0;
	}
	}
	return 0;
}

/* The row of an option spelt `name` (long, without "--") or `short_name`
 * for cmd; *other: whether some other subcommand takes it. */
static const struct row *find_row(enum btc_cli_cmd cmd, const char *name, size_t len,
				  char short_name, bool *other)
{
	*other = false;
	for (int i = 0; i < N_ROWS; i++) {
		const struct row *r = &rows[i];
		bool match = name ? r->name && strlen(r->name) == len &&
					     !strncmp(r->name, name, len)
				  : r->short_name == short_name;
		if (!match)
			continue;
		if (r->cmds & BTC_CMD_BIT(cmd))
			return r;
		*other = true;
	}
	return NULL;
}

static void init(struct btc_cli_options *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = BTC_MODE_INTERFERENCE;
	o->objective = -1;
	o->gpu = -1;
	o->same_pu = -1;
	o->solver = 0;
	o->format = 0;
}

int btc_cli_parse(enum btc_cli_cmd cmd, const char *cmd_name, int argc, char **argv, int first,
		  struct btc_cli_options *o)
{
	init(o);
	bool options_end = false;
	for (int i = first; i < argc; i++) {
		char *a = argv[i];
		if (options_end || a[0] != '-' || a[1] == '\0') {
			if (o->n_positional == BTC_CLI_MAX_POSITIONAL) {
				fprintf(stderr, "btc: too many arguments\n");
				return 2;
			}
			o->positional[o->n_positional++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			options_end = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return -1;
		bool is_long = a[1] == '-';
		const char *name = is_long ? a + 2 : NULL;
		char *eq = is_long ? strchr(a, '=') : NULL;
		size_t len = is_long ? (eq ? (size_t)(eq - name) : strlen(name)) : 0;
		bool other;
		const struct row *r = find_row(cmd, name, len, is_long ? 0 : a[1], &other);
		char opt[80];
		if (is_long)
			snprintf(opt, sizeof(opt), "--%.*s", (int)len, name);
		else
			snprintf(opt, sizeof(opt), "-%c", a[1]);
		if (!r) {
			if (other)
				fprintf(stderr,
					"btc: %s is not an option of '%s' (see %s --help)\n", opt,
					cmd_name, cmd_name);
			else
				fprintf(stderr, "btc: unknown option '%s' (see %s --help)\n",
					is_long ? opt : a, cmd_name);
			return 2;
		}
		spelling(r, opt, sizeof(opt));
		char *value = NULL;
		if (r->kind == KIND_FLAG) {
			if (eq || (!is_long && a[2])) {
				fprintf(stderr, "btc: %s takes no value\n", opt);
				return 2;
			}
		} else if (eq) {
			value = eq + 1;
		} else if (!is_long && a[2]) {
			value = a + 2;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			fprintf(stderr, "btc: %s needs a value\n", opt);
			return 2;
		}
		int rc = set_value(r, opt, value, o);
		if (rc)
			return rc;
		o->given |= UINT64_C(1) << r->id;
	}
	for (size_t k = 0; k < sizeof(conflicts) / sizeof(conflicts[0]); k++)
		if (btc_cli_given(o, conflicts[k].a) && btc_cli_given(o, conflicts[k].b)) {
			char a[40];
			snprintf(a, sizeof(a), "%s", btc_cli_opt_spelling(conflicts[k].a));
			const char *b = btc_cli_opt_spelling(conflicts[k].b);
			fprintf(stderr, "btc: %s and %s cannot be given together (%s)\n", a, b,
				conflicts[k].why);
			return 2;
		}
	if (o->objective >= BTC_CLI_OBJECTIVE_MAXMIN && cmd != BTC_CMD_SCHEDULE) {
		fprintf(stderr, "btc: --objective %s applies to a workload of several apps "
				"(btc schedule)\n",
			objective_name(o->objective));
		return 2;
	}
	return 0;
}

/* "-o, --output DIR", "--mode isolated|interference": the row as --help
 * shows it. */
static const char *head_of(const struct row *r, char *head, size_t size)
{
	char names[64], arg[160] = "";
	if (r->kind == KIND_ENUM) {
		size_t len = 0;
		for (int k = 0; r->enum_name(k); k++)
			len += (size_t)snprintf(arg + len,
						len < sizeof(arg) ? sizeof(arg) - len : 0, "%s%s",
						k ? "|" : "", r->enum_name(k));
	} else if (r->arg) {
		snprintf(arg, sizeof(arg), "%s", r->arg);
	}
	if (r->short_name && r->name)
		snprintf(names, sizeof(names), "-%c, --%s", r->short_name, r->name);
	else
		spelling(r, names, sizeof(names));
	snprintf(head, size, "%s%s%s", names, *arg ? " " : "", arg);
	return head;
}

void btc_cli_print_options(enum btc_cli_cmd cmd, FILE *out)
{
	for (int i = 0; i < N_ROWS; i++) {
		const struct row *r = &rows[i];
		if (!(r->cmds & BTC_CMD_BIT(cmd)))
			continue;
		char head[256];
		head_of(r, head, sizeof(head));
		fprintf(out, "  %-20s", head);
		if (strlen(head) > 19)
			fprintf(out, "\n  %-20s", "");
		for (const char *h = r->help; *h; h++) {
			fputc(*h, out);
			if (*h == '\n')
				fprintf(out, "  %-20s", "");
		}
		fputc('\n', out);
	}
	fprintf(out, "  %-20s%s\n", "-h, --help", "this help");
}

void btc_cli_print_option_index(const char *const cmd_names[BTC_CLI_N_CMDS], FILE *out)
{
	for (int i = 0; i < N_ROWS; i++) {
		const struct row *r = &rows[i];
		unsigned cmds = 0;
		bool first = true;
		for (int k = 0; k < N_ROWS; k++) {
			if (rows[k].id != r->id)
				continue;
			first &= k >= i;
			cmds |= rows[k].cmds;
		}
		if (!first)
			continue; /* listed with its first row */
		char head[256];
		head_of(r, head, sizeof(head));
		fprintf(out, "  %-20s", head);
		if (strlen(head) > 19)
			fprintf(out, "\n  %-20s", "");
		for (int c = 0; c < BTC_CLI_N_CMDS; c++)
			if (cmds & BTC_CMD_BIT(c))
				fprintf(out, " %s", cmd_names[c]);
		fputc('\n', out);
	}
}
