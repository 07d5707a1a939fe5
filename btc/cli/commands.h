/* The subcommands of btc: their table (cli/cli.c), their help
 * (cli/help.c) and their functions (cli/cmd_*.c). Each function gets the
 * parsed options, with the positional arguments and the required options
 * already checked, and returns the exit status: 0 ok, 1 an input error
 * (reported), 2 a usage error. */
#ifndef BTC_CLI_COMMANDS_H
#define BTC_CLI_COMMANDS_H

#include <stdio.h>

#include "cli/options.h"

struct btc_cli_command {
	const char *name; /* "gen" */
	int (*run)(const struct btc_cli_options *o);
	const char *synopsis;   /* what follows "btc NAME" in a usage line */
	const char *summary;    /* what it does; '\n' continues the text */
	int min_args, max_args; /* positional arguments */
	uint64_t required;      /* BTC_OPT_* bits that must be given */
};

/* Indexed by enum btc_cli_cmd. */
extern const struct btc_cli_command btc_cli_commands[BTC_CLI_N_CMDS];

/* `btc --help`: every command, one list. */
void btc_cli_usage(FILE *out);
/* `btc CMD --help`: its usage line, what it does and exactly its options. */
void btc_cli_command_help(enum btc_cli_cmd cmd, FILE *out);
/* "usage: btc CMD SYNOPSIS" and where the help is, for usage errors. */
void btc_cli_command_usage(enum btc_cli_cmd cmd, FILE *out);

int btc_cmd_check(const struct btc_cli_options *o);
int btc_cmd_devices(const struct btc_cli_options *o);
int btc_cmd_device(const struct btc_cli_options *o);
int btc_cmd_header(const struct btc_cli_options *o);
int btc_cmd_gen(const struct btc_cli_options *o);
/* btc gen with several apps: a workload project (cmd_gen_workload.c). */
int btc_cmd_gen_workload(const struct btc_cli_options *o);
int btc_cmd_schedule(const struct btc_cli_options *o);
int btc_cmd_profile(const struct btc_cli_options *o);
int btc_cmd_tune(const struct btc_cli_options *o);
int btc_cmd_report(const struct btc_cli_options *o);

#endif
