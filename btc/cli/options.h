/* The command line's one options struct and its table-driven parser: every
 * option of every subcommand is one row of a table (cli/options.c) giving
 * its names, its argument kind, the field it sets and the subcommands that
 * accept it (docs/conventions.md, "Command line"). */
#ifndef BTC_CLI_OPTIONS_H
#define BTC_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "front/app.h"

/* The subcommands; a row's `cmds` is a mask of BTC_CMD_BIT(cmd). The main
 * job (`btc APP.yaml --run`) is BTC_CMD_TUNE. */
enum btc_cli_cmd {
	BTC_CMD_CHECK,
	BTC_CMD_DEVICES,
	BTC_CMD_DEVICE,
	BTC_CMD_HEADER,
	BTC_CMD_GEN,
	BTC_CMD_SCHEDULE,
	BTC_CMD_PROFILE,
	BTC_CMD_TUNE,
	BTC_CMD_REPORT,
	BTC_CLI_N_CMDS
};
#define BTC_CMD_BIT(c) (1u << (c))

/* Option identities: bits of btc_cli_options.given, and what conflicts
 * name. Several rows may share one (the same option, described per
 * subcommand). */
enum btc_cli_opt {
	BTC_OPT_DEVICE,
	BTC_OPT_CPU_GROUPS,
	BTC_OPT_TABLE,
	BTC_OPT_MODE,
	BTC_OPT_DEFINE,
	BTC_OPT_OUTPUT,
	BTC_OPT_GLSL,
	BTC_OPT_CHUNKS,
	BTC_OPT_TOP,
	BTC_OPT_OBJECTIVE,
	BTC_OPT_MIN_UTIL,
	BTC_OPT_FORBID,
	BTC_OPT_PIN,
	BTC_OPT_MAX_CHUNKS,
	BTC_OPT_TIME_BUDGET,
	BTC_OPT_GPU,
	BTC_OPT_SOLVER,
	BTC_OPT_FORMAT,
	BTC_OPT_NO_TIME,
	BTC_OPT_BUILD,
	BTC_OPT_RUN,
	BTC_OPT_REPORT,
	BTC_OPT_TASKS,
	BTC_OPT_INPUT,
	BTC_OPT_REPROFILE,
	BTC_OPT_MAX_REPS,
	BTC_OPT_TUNE_TASKS,
	BTC_OPT_NO_RACE,
	BTC_OPT_NO_PLAYOFF,
	BTC_OPT_NO_BOUND_ROUND,
	BTC_OPT_NO_IO_ROUND,
	BTC_OPT_EXHAUSTIVE,
	BTC_OPT_REGRET_ROUND,
	BTC_OPT_KEEP_GOING,
	BTC_OPT_ADAPT,
	BTC_OPT_SEED,
	BTC_OPT_CACHE,
	BTC_OPT_CSV,
	BTC_OPT_CANDIDATES,
	BTC_OPT_PAPER_MODEL,
	BTC_OPT_TUNE_BUDGET,
	BTC_OPT_MEASUREMENTS,
	BTC_OPT_FIT_CSV,
	BTC_OPT_CORE_COUNTS,
	BTC_OPT_FARMS,
	BTC_OPT_CORE_SPLITS,
	BTC_OPT_COMPARE,
	BTC_OPT_SVG,
	BTC_OPT_SPEEDUP_SVG,
	BTC_OPT_FORCE,
	BTC_OPT_RUN_TIMEOUT_FACTOR,
	BTC_OPT_WORKLOAD,
	BTC_OPT_STREAMS,
	BTC_OPT_WEIGHT,
	BTC_OPT_RATE,
	BTC_OPT_APP_TABLE,
	BTC_OPT_TABLES,
	BTC_OPT_SAME_PU,
	BTC_OPT_REPLAY,
	BTC_OPT_RULES,
	BTC_OPT_BUDGET,
	BTC_OPT_MIN_ROUNDS,
	BTC_OPT_WARMUP_S,
	BTC_OPT_SPEEDUP_PRECISION,
	BTC_CLI_N_OPTS
};
_Static_assert(BTC_CLI_N_OPTS <= 64, "btc_cli_options.given is a 64-bit mask of options");

#define BTC_CLI_MAX_LIST 64
/* --objective maxmin|rates|sum: the workload objectives follow the
 * single-app ones in the option's names. */
#define BTC_CLI_OBJECTIVE_MAXMIN 3
#define BTC_CLI_MAX_DEFINES 32
#define BTC_CLI_MAX_POSITIONAL 256

/* A repeatable string option, in command-line order. */
struct btc_cli_list {
	const char *v[BTC_CLI_MAX_LIST];
	int n;
};

/* -D NAME=VALUE, in command-line order (names point into argv). */
struct btc_cli_defines {
	struct btc_param_override v[BTC_CLI_MAX_DEFINES];
	int n;
};

/* Everything any subcommand takes. Strings borrow argv. An integer or enum
 * not given keeps its initial value (-1 for the enums, 0 otherwise): test
 * btc_cli_given() where 0 is a valid value. Enums hold an index into their
 * row's names. */
struct btc_cli_options {
	const char *positional[BTC_CLI_MAX_POSITIONAL];
	int n_positional;
	/* the model */
	const char *device;
	int cpu_groups;
	const char *table;
	int mode; /* enum btc_mode */
	struct btc_cli_defines defines;
	const char *output;
	bool glsl;
	/* schedules */
	struct btc_cli_list chunks;
	int top_k;
	int objective; /* enum btc_sched_objective; for a workload (several
			* apps) BTC_CLI_OBJECTIVE_MAXMIN + enum btc_multi_objective */
	int min_util;
	struct btc_cli_list forbid, pin;
	int max_chunks;
	int time_budget_ms;
	int gpu;    /* index into {"cuda", "vulkan"} */
	int solver; /* index into {"z3", "exhaustive", "bb", "z3-only"} (the last two:
		     * workloads) */
	int format; /* index into {"text", "json"} */
	bool no_time;
	bool paper_model; /* chunk time = sum of stage times only */
	bool farms, core_splits; /* the larger space (issue 16) */
	/* build and the main job */
	bool build, run;
	const char *report;
	int tasks;
	const char *input;
	bool reprofile;
	bool core_counts; /* profile CPU stages on 1, 2, 4, ... cores too */
	int max_reps, tune_tasks;
	bool no_race, keep_going, adapt;
	bool no_playoff;     /* --no-playoff: the tuning's winner by median alone */
	bool no_bound_round; /* --no-bound-round: the job measures no schedule past the plan's */
	bool no_io_round;    /* --no-io-round: the job keeps the plan's io farms */
	bool exhaustive; /* btc tune --exhaustive: the paper's space measured */
	bool regret_round; /* --regret-round: the regret against the best measured */
	unsigned seed;
	const char *cache;
	int tune_budget_s;
	int min_rounds; /* --min-rounds N (1..30); 0: not given */
	bool force;                /* -o: replace files without btc's banner */
	double run_timeout_factor; /* --run-timeout-factor, < 0: not given */
	double warmup_s;           /* --warmup-s S (the workload job), if given */
	double speedup_precision;  /* --speedup-precision R, if given */
	struct btc_cli_list measurements;
	/* a workload of several apps (btc schedule; front/workload.h) */
	const char *workload;                          /* --workload FILE */
	struct btc_cli_list streams, weights, rates;    /* APP=N, APP=W, APP=TASKS/S */
	struct btc_cli_list app_tables;                 /* APP=FILE */
	const char *tables_dir;                         /* --tables DIR */
	int same_pu; /* enum btc_same_pu (--same-pu none|probe); -1: not given, none */
	/* btc report */
	const char *csv, *candidates, *fit_csv;
	bool compare;                        /* positionals are pairs A B */
	const char *svg, *speedup_svg;       /* the pictures over all reports */
	bool replay;        /* --replay: the tuner's rules on each report's runs */
	const char *rules;  /* --rules old,new,...: the rule sets replayed (NULL: old, new) */
	double budget_s;    /* --budget: the replayed budget in s (when given) */

	uint64_t given; /* bit BTC_OPT_*: on the command line */
};

/* Parses argv[first..argc-1] for subcommand cmd into o (initialised here).
 * `name` is how the subcommand is spelt in messages ("btc gen"). Returns
 * 0, or 2 after printing a usage error (an unknown option, an option cmd
 * does not take, a missing or bad value, too many arguments, conflicting
 * options), or -1 when --help / -h was given (nothing else is checked). */
int btc_cli_parse(enum btc_cli_cmd cmd, const char *name, int argc, char **argv, int first,
		  struct btc_cli_options *o);

static inline bool btc_cli_given(const struct btc_cli_options *o, enum btc_cli_opt id)
{
	return o->given & (UINT64_C(1) << id);
}

/* "--device", "-D": how option id is spelt (static storage, overwritten
 * by the next call). */
const char *btc_cli_opt_spelling(enum btc_cli_opt id);

/* The --gpu value ("cuda", "vulkan") or NULL when not given. */
const char *btc_cli_gpu_name(const struct btc_cli_options *o);

/* Writes the option list of cmd (the rows that accept it, in table order,
 * then -h, --help), one option per line, help text from column 23. */
void btc_cli_print_options(enum btc_cli_cmd cmd, FILE *out);

/* Every option once, with the subcommands that take it (named by
 * cmd_names[cmd]), for `btc --help`. */
void btc_cli_print_option_index(const char *const cmd_names[BTC_CLI_N_CMDS], FILE *out);

#endif
