/* The btc command line: subcommands in the style of git/meson. */
#ifndef BTC_CLI_H
#define BTC_CLI_H

/* Runs `btc ARGS...`; returns the process exit status: 0 ok, 1 an input
 * error (reported), 2 a usage error, 130 interrupted (docs/conventions.md,
 * "Errors and diagnostics"). */
int btc_cli_main(int argc, char **argv);

#endif
