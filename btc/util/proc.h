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

/* btc_run_io, bounded: when timeout_s > 0 and the child still runs
 * timeout_s seconds after it started, its whole process group gets
 * SIGTERM, and SIGKILL 2 s later; *timed_out is then true and the status
 * is that of the killed child (128+15 or 128+9). A child's own SIGTERM
 * death is not taken for an interrupt of btc after a timeout. */
int btc_run_bounded(char *const argv[], const struct btc_run_io *io, double timeout_s,
		    bool *timed_out);

/* The most children btc_run_together runs at once. */
#define BTC_RUN_MAX_TOGETHER 64

/* Runs n (1..BTC_RUN_MAX_TOGETHER) programs at once, argv[i] with io[i],
 * each in a process group of its own (started one after another without
 * waiting), and waits for all of them, as btc_run_bounded does for one:
 * a SIGINT or SIGTERM is forwarded to every group, a run still going
 * timeout_s (> 0) seconds after the start gets SIGTERM and 2 s later
 * SIGKILL on every group still there (*timed_out true), and nothing of
 * any group survives an interrupt or a timeout. status[i] is child i's
 * exit status (128+N for signal N, 127 when it could not start). Returns
 * how many did not exit 0 (-1 for an n out of range, every status 127).
 * Used for naive co-location (driver/colocate.h). */
int btc_run_together(char *const *const argv[], const struct btc_run_io io[], int n,
		     double timeout_s, int status[], bool *timed_out);

/* btc_run_together that also calls tick(ctx, exited) every 20 ms while
 * any child runs, exited the number of children that have exited so far
 * (naive co-location's start gate: driver/colocate.c). */
int btc_run_together_tick(char *const *const argv[], const struct btc_run_io io[], int n,
			  double timeout_s, int status[], bool *timed_out,
			  void (*tick)(void *ctx, int exited), void *ctx);

/* A status of btc_run* in words, for messages: "exited with status N",
 * "was killed by signal N (SIGSEGV)", into buf[n]. */
const char *btc_status_text(int status, char *buf, int n);

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

/* A child running beside btc while btc runs others (a co-run's occupant:
 * driver/profile_corun.c): its pid (-1: none) and the read end of a pipe
 * from its stdout. One at a time. */
struct btc_bg {
	int pid;
	int out_fd;
};

/* Starts argv[0] (looked up on PATH) with argv in a process group of its
 * own, its stdout into bg->out_fd, its stderr to stderr_path (NULL:
 * btc's). btc's SIGINT / SIGTERM handler forwards to its group as to
 * btc_run's child, and the child gets SIGTERM when btc dies
 * (PR_SET_PDEATHSIG), so it never outlives btc. Returns false when it
 * cannot start, btc was interrupted, or another runs already. */
bool btc_bg_start(char *const argv[], const char *stderr_path, struct btc_bg *bg);

/* Reads bg's stdout until a line beginning with prefix: true; false when
 * timeout_s passes first, the child closes its stdout (it ended), or btc
 * is interrupted. */
bool btc_bg_wait_line(struct btc_bg *bg, const char *prefix, double timeout_s);

/* Ends bg: SIGTERM to its group, SIGKILL grace_s later if the leader
 * still runs, then SIGKILL to whatever is left of the group; reaps the
 * leader and closes the pipe. Returns its status as btc_run does (143
 * for a child that SIGTERM ended), 0 when none runs. */
int btc_bg_stop(struct btc_bg *bg, double grace_s);

/* Seconds on the monotonic clock (CLOCK_MONOTONIC). */
double btc_now_s(void);

/* Is prog an executable on PATH (or, with a '/', at that path)? */
bool btc_have_program(const char *prog);

#endif
