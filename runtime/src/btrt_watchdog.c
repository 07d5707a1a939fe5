/* The watch table and the process guard (btrt_watchdog.h). After a fault
 * only async-signal-safe calls: the messages and the failure JSON are
 * built in static buffers by hand and written with write(2). */
#include "btrt_watchdog.h"
#include "btrt_program_internal.h"

#include <btrt_status.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define N_SLOTS 128

struct slot {
	atomic_int used, busy, stage;
	_Atomic(const char *) name;
	_Atomic(const char *) pu;
	_Atomic uint64_t seq;
};

static struct slot slots[N_SLOTS];
static _Thread_local int mine = -1;

void btrt_watch_begin(int stage, const char *stage_name, const char *pu, uint64_t seq)
{
	for (int i = 0; mine < 0 && i < N_SLOTS; i++) {
		int free_ = 0;
		if (atomic_compare_exchange_strong(&slots[i].used, &free_, 1))
			mine = i;
	}
	if (mine < 0)
		return;
	struct slot *s = &slots[mine];
	btrt_watch_thread_prepare();
	/* relaxed: read only by a fault report of this process, which may
	 * see a mix of two tasks' fields at worst (a message, not data). */
	atomic_store_explicit(&s->stage, stage, memory_order_relaxed);
	atomic_store_explicit(&s->name, stage_name, memory_order_relaxed);
	atomic_store_explicit(&s->pu, pu, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq, memory_order_relaxed);
	atomic_store_explicit(&s->busy, 1, memory_order_release);
	btrt_status_begin(mine, stage, stage_name, pu, seq);
}

void btrt_watch_end(void)
{
	if (mine >= 0) {
		atomic_store_explicit(&slots[mine].busy, 0, memory_order_release);
		btrt_status_end(mine, 0);
	}
}

void btrt_watch_leave(void)
{
	if (mine < 0)
		return;
	atomic_store_explicit(&slots[mine].busy, 0, memory_order_relaxed);
	btrt_status_end(mine, 1);
	atomic_store_explicit(&slots[mine].used, 0, memory_order_release);
	mine = -1;
	btrt_watch_thread_release();
}

/* ---- async-signal-safe text ------------------------------------------ */

struct text {
	char b[2048];
	size_t n;
};

static void put(struct text *t, const char *s)
{
	while (s && *s && t->n + 1 < sizeof t->b)
		t->b[t->n++] = *s++;
	t->b[t->n] = 0;
}

static void put_num(struct text *t, long long v)
{
	char d[24];
	int k = 0;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do
		d[k++] = (char)('0' + u % 10);
	while ((u /= 10) && k < 23);
	if (v < 0)
		d[k++] = '-';
	char r[25];
	for (int i = 0; i < k; i++)
		r[i] = d[k - 1 - i];
	r[k] = 0;
	put(t, r);
}

/* A JSON string literal of s. */
static void put_json_str(struct text *t, const char *s)
{
	put(t, "\"");
	for (; s && *s; s++) {
		char c[3] = { *s, 0, 0 };
		if (*s == '"' || *s == '\\') {
			c[0] = '\\';
			c[1] = *s;
		} else if ((unsigned char)*s < 0x20) {
			c[0] = ' ';
		}
		put(t, c);
	}
	put(t, "\"");
}

static void write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w <= 0)
			return;
		b += w;
		n -= (size_t)w;
	}
}

/* ---- the guard ------------------------------------------------------- */

static struct btrt_guard guard;
static char failure_path[1024], failure_tmp[1100], output_tmp[1100];
static atomic_int running, stop_sig, reporting;
/* the guard's stop_timeout_s, set before any handler can read it */
static unsigned stop_timeout_s = BTRT_STOP_TIMEOUT_S;

/* The slot to blame: the calling thread's when it runs a kernel, else
 * the only busy one; -1 when none or several (all are listed then). */
static int culprit(void)
{
	if (mine >= 0 && atomic_load(&slots[mine].busy))
		return mine;
	int found = -1;
	for (int i = 0; i < N_SLOTS; i++)
		if (atomic_load(&slots[i].used) && atomic_load(&slots[i].busy)) {
			if (found >= 0)
				return -1;
			found = i;
		}
	return found;
}

/* "stage 1 'add' on PU 'cpu' (task 13)", or the name alone (pu NULL). */
static void put_slot(struct text *t, int i)
{
	const struct slot *s = &slots[i];
	int st = atomic_load(&s->stage);
	if (st >= 0) {
		put(t, "stage ");
		put_num(t, st);
		put(t, " ");
	}
	const char *pu = atomic_load(&s->pu);
	if (!pu) { /* not a kernel: "the input's open" */
		put(t, atomic_load(&s->name));
		return;
	}
	put(t, "'");
	put(t, atomic_load(&s->name));
	put(t, "' on PU '");
	put(t, pu);
	put(t, "' (task ");
	put_num(t, (long long)atomic_load(&s->seq));
	put(t, ")");
}

/* Every busy slot, "; "-separated; "no kernel" when none. */
static void put_busy(struct text *t)
{
	int any = 0;
	for (int i = 0; i < N_SLOTS; i++)
		if (atomic_load(&slots[i].used) && atomic_load(&slots[i].busy)) {
			put(t, any ? ", " : "");
			put_slot(t, i);
			any = 1;
		}
	if (!any)
		put(t, "no kernel (between tasks, or the input's open or load)");
}

/* The failure JSON (docs/report.md) to --failure: written to a temporary
 * file beside it and renamed (btrt_fsafe.h's contract, by hand). */
static void write_failure(const char *kind, int slot, const char *key, long long value,
			  const char *message)
{
	if (!failure_path[0])
		return;
	struct text j = { .n = 0 };
	const struct slot *s = slot >= 0 ? &slots[slot] : NULL;
	put(&j, "{\n  \"kind\": ");
	put_json_str(&j, kind);
	put(&j, ",\n  \"schedule\": ");
	put_num(&j, guard.schedule);
	put(&j, ",\n  \"chunk\": -1,\n  \"stage\": ");
	put_num(&j, s ? atomic_load(&s->stage) : -1);
	put(&j, ",\n  \"stage_name\": ");
	put_json_str(&j, s ? atomic_load(&s->name) : "");
	put(&j, ",\n  \"pu\": ");
	put_json_str(&j, s ? atomic_load(&s->pu) : "");
	put(&j, ",\n  \"task\": ");
	put_num(&j, s ? (long long)atomic_load(&s->seq) : -1);
	put(&j, ",\n  \"");
	put(&j, key);
	put(&j, "\": ");
	put_num(&j, value);
	put(&j, ",\n  \"message\": ");
	put_json_str(&j, message);
	put(&j, "\n}\n");
	int fd = open(failure_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	write_all(fd, j.b, j.n);
	close(fd);
	rename(failure_tmp, failure_path);
}

/* "ARGV0: MESSAGE\n" on stderr, the failure JSON; once per process. */
static int report(const char *kind, int slot, const char *key, long long value,
		  const char *message)
{
	int no = 0;
	if (!atomic_compare_exchange_strong(&reporting, &no, 1))
		return -1;
	btrt_status_state(BTRT_STATUS_REPORTED);
	if (output_tmp[0])
		unlink(output_tmp);
	struct text line = { .n = 0 };
	put(&line, guard.argv0);
	put(&line, ": ");
	put(&line, message);
	put(&line, "\n");
	write_all(2, line.b, line.n);
	write_failure(kind, slot, key, value, message);
	return 0;
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	default: return "a signal";
	}
}

static void on_crash(int sig, siginfo_t *si, void *unused)
{
	(void)unused;
	int k = culprit();
	/* the faulting thread's own stack (a dispatcher's or an OpenMP
	 * worker's) is the one that ran out */
	int overflow = sig == SIGSEGV && si && btrt_watch_stack_overflow_at((uintptr_t)si->si_addr);
	struct text m = { .n = 0 };
	if (k >= 0) {
		put_slot(&m, k);
		put(&m, " crashed with ");
		put(&m, sig_name(sig));
		if (overflow)
			put(&m, " (stack overflow)");
	} else {
		put(&m, sig_name(sig));
		if (overflow)
			put(&m, " (stack overflow)");
		put(&m, " during the ");
		put(&m, guard.phase);
		put(&m, "; running: ");
		put_busy(&m);
	}
	report("BTRT_E_KERNEL", k, "signal", sig, m.b);
	/* SA_RESETHAND | SA_NODEFER: the default action, now */
	raise(sig);
}

static void on_alarm(int unused)
{
	(void)unused;
	int sig = atomic_load(&stop_sig);
	struct text m = { .n = 0 };
	put(&m, sig_name(sig));
	put(&m, ": the stop did not complete within ");
	put_num(&m, stop_timeout_s);
	put(&m, " s; still running: ");
	put_busy(&m);
	put(&m, "; exiting now");
	report("BTRT_E_INTR", culprit(), "signal", sig, m.b);
	_exit(128 + sig);
}

/* die_on_stop: the temporary output goes, then the default action. */
static void on_stop(int sig)
{
	if (output_tmp[0])
		unlink(output_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A kernel called exit() (status known on glibc: on_exit; -1 elsewhere:
 * atexit) or quick_exit() (at_quick_exit) during the run. _exit(2) and
 * exit_group(2) run no handler: the process ends with the kernel's status
 * and no report, and btc's phases fail such a run by its missing report
 * (docs/runtime.md). */
static void exit_report(const char *call, long long status)
{
	if (!atomic_load(&running))
		return;
	int k = culprit();
	struct text m = { .n = 0 };
	if (k >= 0) {
		put_slot(&m, k);
		put(&m, " called ");
	} else {
		put(&m, "");
	}
	put(&m, call);
	put(&m, "(");
	if (status >= 0)
		put_num(&m, status);
	put(&m, ")");
	put(&m, k >= 0 ? " during the " : " was called during the ");
	put(&m, guard.phase);
	if (k < 0) {
		put(&m, "; running: ");
		put_busy(&m);
	}
	put(&m, ": the run did not finish");
	report("BTRT_E_KERNEL", k, "exit_status", status, m.b);
	_exit(1);
}

#ifdef __GLIBC__
static void on_exit_fn(int status, void *unused)
{
	(void)unused;
	exit_report("exit", status);
}
#else
static void atexit_fn(void)
{
	exit_report("exit", -1);
}
#endif

static void quick_exit_fn(void)
{
	exit_report("quick_exit", -1);
}

static atomic_int guard_installed;

void btrt_guard_install(const struct btrt_guard *g)
{
	atomic_store(&guard_installed, 1);
	guard = *g;
	stop_timeout_s = g->stop_timeout_s ? g->stop_timeout_s : BTRT_STOP_TIMEOUT_S;
	if (!guard.phase)
		guard.phase = "run";
	btrt_status_map(guard.phase);
	failure_path[0] = 0;
	if (g->failure && strlen(g->failure) < sizeof failure_path) {
		snprintf(failure_path, sizeof failure_path, "%s", g->failure);
		snprintf(failure_tmp, sizeof failure_tmp, "%s.tmp.%ld", g->failure, (long)getpid());
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_crash;
	/* SA_ONSTACK: on the kernel thread's alternate stack (a stack
	 * overflow leaves none of its own) */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
	static const int crashes[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
		sigaction(crashes[i], &sa, NULL);
	sa.sa_handler = on_alarm;
	sa.sa_flags = 0;
	sigaction(SIGALRM, &sa, NULL);
	/* Past RLIMIT_FSIZE a write fails with EFBIG, which the writer names
	 * (btrt_fsafe.h), instead of SIGXFSZ ending the run unexplained. */
	signal(SIGXFSZ, SIG_IGN);
	static const int stops[] = { SIGINT, SIGTERM };
	for (int i = 0; guard.die_on_stop && i < 2; i++) {
		struct sigaction old;
		if (sigaction(stops[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* ignored at start: stays ignored */
		sa.sa_handler = on_stop;
		sigaction(stops[i], &sa, NULL);
	}
#ifdef __GLIBC__
	on_exit(on_exit_fn, NULL);
#else
	atexit(atexit_fn);
#endif
	at_quick_exit(quick_exit_fn);
#ifdef __linux__
	/* Started by btc (BTRT_PARENT_PID, util/proc.c): SIGTERM when btc
	 * dies, even of SIGKILL, so that a run (a kernel in a loop) never
	 * outlives the job; the stop is bounded as any SIGTERM's. A parent
	 * already gone before the prctl: the same, now. */
	const char *parent = getenv("BTRT_PARENT_PID");
	if (parent && *parent) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if ((long)getppid() != strtol(parent, NULL, 10))
			raise(SIGTERM);
	}
#endif
}

void btrt_guard_tmp(const char *path)
{
	/* cleared first: a handler never sees half a path */
	output_tmp[0] = 0;
	if (path && strlen(path) < sizeof output_tmp) {
		memcpy(output_tmp + 1, path + 1, strlen(path));
		output_tmp[0] = path[0];
	}
}

void btrt_guard_running(int on)
{
	atomic_store(&running, on);
	btrt_status_state(on ? BTRT_STATUS_RUNNING : BTRT_STATUS_FINISHED);
}

void btrt_guard_stop(int sig)
{
	int none = 0;
	if (atomic_compare_exchange_strong(&stop_sig, &none, sig))
		alarm(stop_timeout_s);
}

static btrt_atomic_int stop_signal;

btrt_atomic_int *btrt_stop_signal(void)
{
	return &stop_signal;
}

static void on_stop_signal(int sig)
{
	if (atomic_exchange(&stop_signal, sig) != 0) {
		/* the second signal: the default action, now */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	/* a kernel that loops, an open() that blocks: bounded all the same */
	if (atomic_load(&guard_installed))
		btrt_guard_stop(sig);
}

void btrt_stop_signals_catch(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; /* the app's own reads and writes go on */
	static const int sigs[] = { SIGINT, SIGTERM };
	for (int i = 0; i < 2; i++) {
		/* Ignored when we started (nohup, a background job of a
		 * script): stays ignored, as the parent asked. */
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}
