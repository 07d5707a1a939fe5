/* The btc command line: subcommands in the style of git/meson. */
#ifndef BTC_CLI_H
#define BTC_CLI_H

/* Runs `btc ARGS...`; returns the process exit status (0 ok, 1 user
 * error, 2 usage error). */
int btc_cli_main(int argc, char **argv);

/* btc's source tree (templates/, runtime/, devices/, cross/): $BTC_ROOT,
 * else the tree btc was built from, else the tree that holds the running
 * executable (build/btc/btc), so a copied checkout works too. Static
 * storage; never NULL. */
const char *btc_source_root(void);

/* Directory of the device library (devices/NAME.yaml): $BTC_DEVICE_DIR, or
 * the source tree's devices/. */
const char *btc_device_dir(void);

#endif
