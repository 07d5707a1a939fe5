/* Running the tools btc drives (meson, ninja, generated programs). */
#ifndef BTC_PROC_H
#define BTC_PROC_H

#include <stdbool.h>

/* Runs argv[0] (looked up on PATH) with argv, stdout redirected to
 * stdout_path when not NULL (stderr inherited), and waits for it. Echoes
 * the command line to stderr when `echo`. Returns the exit status, 128+N
 * for a child killed by signal N, or 127 when it cannot start. While the
 * child runs, SIGINT and SIGTERM reach it (same process group) and are
 * remembered: btc_interrupted() then returns true so callers stop. */
int btc_run(char *const argv[], const char *stdout_path, bool echo);

/* True once SIGINT or SIGTERM arrived while a child ran (or at any time
 * after btc_install_signal_handlers). */
bool btc_interrupted(void);

/* Installs handlers that only record SIGINT/SIGTERM (children get the
 * signal from the terminal themselves); callers poll btc_interrupted()
 * and clean up. */
void btc_install_signal_handlers(void);

/* Is prog an executable on PATH (or, with a '/', at that path)? */
bool btc_have_program(const char *prog);

#endif
