/* What a generated program or profiler was doing when it ended, read by
 * btc after it is gone (runtime/include/btrt_status.h; docs/runtime.md,
 * "The run status"): names the stage and PU of a kernel that ended the
 * process with _exit(2) or exit_group(2), or that ran when the process
 * was killed (SIGKILL), which the program's own guard cannot report. */
#ifndef BTC_RUNSTATUS_H
#define BTC_RUNSTATUS_H

/* A status area for the next child: a memfd (not close-on-exec) of
 * sizeof(struct btrt_status) bytes, its number in BTRT_STATUS_FD in btc's
 * environment. Open one only around one btc_run_bounded: every child
 * started meanwhile inherits it. */
struct btc_runstatus {
	int fd; /* -1: none (memfd_create failed: the run is not observed) */
};

/* Makes the area and sets BTRT_STATUS_FD; on failure fd is -1 and the run
 * goes on unobserved. */
void btc_runstatus_open(struct btc_runstatus *s);

/* After the child ended with status rc (btc_run_bounded's: 128+N for
 * signal N): when the run was in progress and the program named nothing
 * itself, a sentence saying what ran, malloc'd, e.g. "stage 1 'add' on PU
 * 'cpu' (task 4) ended the process with _exit(7) or exit_group(7) after
 * 3 tasks", or "... was running when the process was killed by signal 9
 * (SIGKILL) after 3 tasks". NULL otherwise (finished, never started, the
 * program reported the fault itself, or no area). */
char *btc_runstatus_text(const struct btc_runstatus *s, int rc);

/* Closes the area and unsets BTRT_STATUS_FD. */
void btc_runstatus_close(struct btc_runstatus *s);

#endif
