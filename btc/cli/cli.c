/* The command table and the dispatcher: find the subcommand, parse its
 * options (cli/options.c), check its arguments, run it. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "btc_config.h"
#include "cli/commands.h"
#include "gen/gen.h"
#include "util/str.h"

#define OPT(id) (UINT64_C(1) << BTC_OPT_##id)

const struct btc_cli_command btc_cli_commands[BTC_CLI_N_CMDS] = {
	[BTC_CMD_CHECK] = {"check", btc_cmd_check, "APP.yaml [--device DEV] [--table T [--mode M]]",
			   "validate an app (and device, table); print the model", 1, 1, 0},
	[BTC_CMD_DEVICES] = {"devices", btc_cmd_devices, "", "list the device library", 0, 0, 0},
	[BTC_CMD_DEVICE] = {"device", btc_cmd_device, "DEV [--format json]",
			    "print a device description as YAML ('host' = this machine); "
			    "--format json: as JSON, with the generated program's service cores",
			    1, 1, 0},
	[BTC_CMD_HEADER] = {"header", btc_cmd_header, "APP.yaml [--glsl] [-o FILE]",
			    "write the TaskObject header (or the GLSL layout) for kernels", 1, 1,
			    0},
	[BTC_CMD_SCHEDULE] =
		{"schedule", btc_cmd_schedule,
		 "APP.yaml --device DEV --table T [--top K] [--objective O] [--format json];\n"
		 "       btc schedule A.yaml B.yaml... | --workload W.yaml --device DEV",
		 "BT-Optimizer: the K best schedules and the baselines\n"
		 "(docs/scheduler.md); several apps: the joint schedules",
		 0, BTC_CLI_MAX_POSITIONAL, OPT(DEVICE)},
	[BTC_CMD_GEN] = {"gen", btc_cmd_gen,
			 "APP.yaml --device DEV [--table T | --chunks SPEC...] [-o DIR] [--build];\n"
			 "       btc gen A.yaml B.yaml... | --workload W.yaml --device DEV [--streams A=N]\n"
			 "       [--top K] [--chunks A=SPEC --chunks B=SPEC...]",
			 "generate the pipeline project (the default action:\n"
			 "btc APP.yaml --device DEV ...); several apps: one workload program\n"
			 "of the joint plan's top K (or of the given schedules)",
			 0, BTC_CLI_MAX_POSITIONAL, OPT(DEVICE)},
	[BTC_CMD_PROFILE] = {"profile", btc_cmd_profile,
			     "APP.yaml --device DEV [-o TABLE.csv];\n"
			     "       btc profile A.yaml B.yaml... --device DEV",
			     "BT-Profiler: time every stage on every PU (cached); several\n"
			     "apps: each app's table, then its co-run slowdowns (@corun rows)\n"
			     "and the GPU's same-PU factor for --streams (@share rows)",
			     1, BTC_CLI_MAX_POSITIONAL, OPT(DEVICE)},
	[BTC_CMD_TUNE] = {"tune", btc_cmd_tune, "APP.yaml --device DEV [--table T] [--report FILE];\n"
			  "       btc tune A.yaml B.yaml... | --workload W.yaml --device DEV\n"
			  "       [--streams A=N] [--app-table A=T] [--top K] [--report FILE]",
			  "the main job on this machine: profile (or cached table),\n"
			  "schedule, generate, build, tune, run the winner verified\n"
			  "(= btc APP.yaml --device DEV --run); several apps: the\n"
			  "joint top K against naive co-location and time multiplexing",
			  0, BTC_CLI_MAX_POSITIONAL, OPT(DEVICE)},
	[BTC_CMD_REPORT] = {"report", btc_cmd_report, "R.json... [--csv OUT] [--svg OUT]; --compare A.json B.json...;\n"
			    "       --replay R.json... [--rules old,new] [--budget S]",
			    "tabulate main-job reports (markdown on stdout); --compare:\n"
			    "two leases side by side; --replay: the tuner's rules on the\n"
			    "recorded runs", 1,
			    BTC_CLI_MAX_POSITIONAL, 0},
};

/* Is the main job asked for (`--run` before any `--`)? */
static bool wants_run(int argc, char **argv, int first)
{
	for (int i = first; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--run"))
			return true;
	return false;
}

static int run_command(enum btc_cli_cmd cmd, int argc, char **argv, int first)
{
	const struct btc_cli_command *c = &btc_cli_commands[cmd];
	char name[40];
	snprintf(name, sizeof(name), "btc %s", c->name);
	struct btc_cli_options o;
	int rc = btc_cli_parse(cmd, name, argc, argv, first, &o);
	if (rc < 0) {
		btc_cli_command_help(cmd, stdout);
		return 0;
	}
	if (rc)
		return rc;
	if (o.n_positional < c->min_args || o.n_positional > c->max_args) {
		fprintf(stderr, "btc: %s\n",
			o.n_positional < c->min_args ? "missing argument" : "too many arguments");
		btc_cli_command_usage(cmd, stderr);
		return 2;
	}
	for (int id = 0; id < BTC_CLI_N_OPTS; id++)
		if ((c->required & (UINT64_C(1) << id)) &&
		    !btc_cli_given(&o, (enum btc_cli_opt)id)) {
			fprintf(stderr, "btc: '%s' needs %s\n", name,
				btc_cli_opt_spelling((enum btc_cli_opt)id));
			btc_cli_command_usage(cmd, stderr);
			return 2;
		}
	return c->run(&o);
}

int btc_cli_main(int argc, char **argv)
{
	if (argc < 2) {
		btc_cli_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		btc_cli_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("btc %s (runtime btrt %d.%d)\n", BTC_VERSION, BTC_RUNTIME_MAJOR,
		       BTC_RUNTIME_MINOR);
		return 0;
	}
	for (int c = 0; c < BTC_CLI_N_CMDS; c++)
		if (!strcmp(argv[1], btc_cli_commands[c].name)) {
			if (c == BTC_CMD_GEN && wants_run(argc, argv, 2))
				c = BTC_CMD_TUNE;
			return run_command((enum btc_cli_cmd)c, argc, argv, 2);
		}
	/* The default action: `btc APP.yaml --device DEV ...` generates, and
	 * with --run is the main job. */
	if (strlen(argv[1]) > 5 && btc_str_ends_with(argv[1], ".yaml"))
		return run_command(wants_run(argc, argv, 1) ? BTC_CMD_TUNE : BTC_CMD_GEN, argc,
				   argv, 1);
	fprintf(stderr, "btc: unknown command '%s' (see btc --help)\n", argv[1]);
	return 2;
}
