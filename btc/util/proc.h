/* Running the tools btc drives (meson, ninja, generated programs), and
 * what SIGINT / SIGTERM do to btc and to them. */
#ifndef BTC_PROC_H
#define BTC_PROC_H

#include <stdbool.h>

/* Where a child's output goes: NULL paths are inherited from btc. */
struct btc_run_io {
	const char *stdout_path; /* truncated and written, or NULL */
	const char *stderr_path; /* truncated and written, or NULL */
	bool echo;               /* print "+ argv..." to stderr first */
};

/* Runs argv[0] (looked up on PATH) with argv in a process group of its
 * own and waits for it. Returns its exit status, 128+N for a child killed
 * by signal N, or 127 when it cannot start. A SIGINT or SIGTERM that btc
 * receives while the child runs is forwarded to the child's whole process
 * group by the signal handler itself (so it works even where a library
 * re-installed the handler with SA_RESTART); a child still alive 5 s later
 * gets SIGKILL, and so does whatever is left of its group once it exits.
 * After an interrupt no child is started: btc_run returns 128+signal. */
int btc_run_io(char *const argv[], const struct btc_run_io *io);

/* btc_run_io with stdout to stdout_path (or inherited) and stderr inherited. */
int btc_run(char *const argv[], const char *stdout_path, bool echo);

/* True once SIGINT or SIGTERM arrived (handlers installed). */
bool btc_interrupted(void);

/* The exit status of an interrupted btc: 130 (for SIGINT and SIGTERM
 * alike, docs/report.md "Exit status"). */
#define BTC_EXIT_INTERRUPTED 130

/* Installs btc's SIGINT and SIGTERM handlers (no SA_RESTART: a blocking
 * wait returns EINTR). They record the signal and forward it to the
 * running child's process group. Idempotent: call it again after a library
 * that replaces signal handlers (Z3) has run. */
void btc_install_signal_handlers(void);

/* Is prog an executable on PATH (or, with a '/', at that path)? */
bool btc_have_program(const char *prog);

#endif
