/* The btc command line: subcommands in the style of git/meson. */
#ifndef BTC_CLI_H
#define BTC_CLI_H

/* Runs `btc ARGS...`; returns the process exit status (0 ok, 1 user
 * error, 2 usage error). */
int btc_cli_main(int argc, char **argv);

#endif
