/* What the program's threads are running, and the process's guard over it
 * (docs/runtime.md, "Faults in kernels, and a stop that hangs"): the
 * dispatchers publish the stage, PU and task they run (btrt_watch_*); the
 * guard (btrt_guard_*) names them when a kernel crashes (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT), calls exit() during the run, or keeps a
 * SIGINT/SIGTERM stop from completing within BTRT_STOP_TIMEOUT_S seconds:
 * one line on stderr, the failure JSON (--failure) when a path was given,
 * then the signal's default action, exit status 1, or _exit(128 + the
 * signal). Everything the guard does after a fault is async-signal-safe
 * (write, open, rename, _exit; no stdio, no malloc). Internal to the
 * runtime. */
#ifndef BTRT_WATCHDOG_H
#define BTRT_WATCHDOG_H

#include <stdint.h>

/* Seconds a SIGINT/SIGTERM stop may take before the guard ends the
 * process (a kernel in an endless loop, an input open() blocked on a
 * FIFO never return to the pipeline's stop), unless the environment's
 * BTRT_STOP_TIMEOUT_S (btrt_env.h) says otherwise. */
#define BTRT_STOP_TIMEOUT_S 5u

/* The calling thread runs stage (app index; -1: none) named stage_name on
 * PU pu, for task seq, until btrt_watch_end; pu NULL: not a kernel,
 * stage_name says what ("the input's open of PATH"). The strings must outlive the
 * run (the program's static tables). Claims one of a fixed table's slots
 * for the thread on first use (none left: not published). */
void btrt_watch_begin(int stage, const char *stage_name, const char *pu, uint64_t seq);
/* Gives the calling thread an alternate signal stack (64 KiB, kept until
 * btrt_watch_leave or the thread's end) and notes where its stack ends, so
 * that a stack overflow on it is handled and named "(stack overflow)".
 * btrt_watch_begin calls it; a CPU PU's dispatcher calls it on each
 * OpenMP worker of its team, which runs kernel code but claims no slot
 * (such a crash is blamed on the dispatcher's busy slot); a thread that a
 * prepared thread creates (an OpenMP worker beyond the team, a kernel's
 * own thread) is prepared before it starts (btrt_altstack.c, glibc
 * without a sanitizer). Idempotent; best effort (without a stack the
 * overflow dies of SIGSEGV unnamed). */
void btrt_watch_thread_prepare(void);
/* Unmaps the calling thread's alternate stack and forgets its stack's end
 * (btrt_watch_leave). */
void btrt_watch_thread_release(void);
/* Is addr where a stack overflow of the calling thread faults: in the
 * lowest page of its stack or at most 1 MiB below it? 0 when the thread
 * was not prepared. Async-signal-safe (a SIGSEGV is delivered to the
 * thread that faulted). */
int btrt_watch_stack_overflow_at(uintptr_t addr);
/* The calling thread runs no kernel now. */
void btrt_watch_end(void);
/* The calling thread leaves the run: its slot is free for another. */
void btrt_watch_leave(void);

/* The run status shared with a parent (btrt_status.h, btrt_status.c).
 * btrt_status_map: maps the descriptor named by BTRT_STATUS_FD (if any)
 * and marks it idle; from btrt_guard_install. btrt_status_state: enum
 * btrt_status_state. btrt_status_begin/end: slot i of the watch table
 * enters / leaves a stage (leave: the thread gives the slot up).
 * btrt_status_task_done: a task passed the sink. Each a no-op when
 * nothing is mapped. */
void btrt_status_map(const char *phase);
void btrt_status_state(unsigned state);
void btrt_status_begin(int slot, int stage, const char *name, const char *pu, uint64_t seq);
void btrt_status_end(int slot, int leave);
void btrt_status_task_done(void);

struct btrt_guard {
	const char *argv0;   /* message prefix; must outlive the process */
	const char *phase;   /* "run", "profile": what the message says ran */
	const char *failure; /* --failure path, or NULL; copied */
	long schedule;       /* for the failure JSON; -1: none */
	/* The profiler: SIGINT and SIGTERM (unless ignored at start) remove
	 * the temporary file (btrt_guard_tmp) and take the default action at
	 * once; nothing it measured is kept. */
	int die_on_stop;
	/* Seconds a stop may take (btrt_guard_stop), 1..3600; 0: the
	 * default BTRT_STOP_TIMEOUT_S. */
	unsigned stop_timeout_s;
};

/* Installs the crash handlers and the exit() check, and keeps g for them.
 * Once per process, before the threads start. */
void btrt_guard_install(const struct btrt_guard *g);
/* A temporary output file (btrt_fsafe.h) to remove when the guard ends
 * the process (a crash, exit(), the stop's time-out, die_on_stop); NULL:
 * none. Copied. */
void btrt_guard_tmp(const char *path);
/* on != 0 while a run is in progress: an exit() then is a kernel's and is
 * reported (the process ends with status 1). */
void btrt_guard_running(int on);
/* From a SIGINT/SIGTERM handler (async-signal-safe): the stop of the run
 * has the guard's stop_timeout_s seconds (alarm(2)) before the guard reports what
 * is still running and ends the process with 128 + sig. */
void btrt_guard_stop(int sig);

#endif
