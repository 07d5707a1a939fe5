/* util/proc and the Z3 solve: after BT-Optimizer has run, btc's SIGINT
 * handler is still its own and still without SA_RESTART; and a signal to
 * btc reaches the running child even when some library re-installed the
 * handler with SA_RESTART (a blocking wait that never returns EINTR);
 * programs run together are waited for, bounded and interrupted as one. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "front/app.h"
#include "front/device.h"
#include "front/table.h"
#include "sched/plan.h"
#include "suites.h"
#include "util/proc.h"

#ifndef SOURCE_ROOT
#error "SOURCE_ROOT must name the source tree"
#endif

static void test_z3_keeps_handler(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_app_load(SOURCE_ROOT "/examples/vecadd/vecadd.yaml", NULL, NULL, 0, &d);
	struct btc_device *dev = btc_device_load(SOURCE_ROOT "/test/gen/data/testbox.yaml", NULL, NULL, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(app);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	static const char *const stages[] = {"scale", "add", "square"};
	static const char *const pus[] = {"little", "big", "gpu", "cuda"};
	char text[4096] = "stage,pu,mode,mean_ms,stddev_ms,samples\n";
	for (int s = 0; s < 3; s++)
		for (int p = 0; p < 4; p++) {
			size_t n = strlen(text);
			snprintf(text + n, sizeof(text) - n, "%s,%s,interference,%d.0,0.1,10\n",
				 stages[s], pus[p], 1 + s + p);
		}
	struct btc_table *t = btc_table_load("mem.csv", text, app, dev, BTC_MODE_INTERFERENCE, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);

	btc_install_signal_handlers();
	struct sigaction before, after;
	sigaction(SIGINT, NULL, &before);
	struct btc_plan_options po;
	btc_plan_options_init(&po);
	struct btc_plan *plan = btc_plan(app, dev, t, NULL, &po, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
	CU_ASSERT_TRUE(plan->n_schedules > 1);
	sigaction(SIGINT, NULL, &after);
	CU_ASSERT_TRUE(after.sa_handler == before.sa_handler);
	CU_ASSERT_EQUAL(after.sa_flags & SA_RESTART, 0);
	btc_plan_free(plan);
	btc_table_free(t);
	btc_device_free(dev);
	btc_app_free(app);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

static void *send_sigint(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 300 * 1000 * 1000};
	nanosleep(&ts, NULL);
	kill(getpid(), SIGINT); /* to the process, as `kill -INT PID` does */
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In a child process (the interrupt is sticky): 0 when `sleep 30` was
 * stopped within 5 s and btc_run said so. */
static int forwarded_child(void)
{
	btc_install_signal_handlers();
	struct sigaction sa;
	sigaction(SIGINT, NULL, &sa);
	sa.sa_flags |= SA_RESTART; /* what Z3's scoped_ctrl_c used to leave behind */
	sigaction(SIGINT, &sa, NULL);
	pthread_t th;
	pthread_create(&th, NULL, send_sigint, NULL);
	double t0 = now_s();
	char *argv[] = {"sleep", "30", NULL};
	int rc = btc_run(argv, NULL, false);
	double took = now_s() - t0; /* under 25 s: the 30 s sleep was cut short */
	pthread_join(th, NULL);
	/* Interrupted now: nothing more is started. */
	char *again[] = {"true", NULL};
	int rc2 = btc_run(again, NULL, false);
	return rc == 128 + SIGINT && btc_interrupted() && took < 25 && rc2 == 128 + SIGINT ? 0 : 1;
}

static void test_forwarded_under_sa_restart(void)
{
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(forwarded_child());
	int status;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* btc_run_together (naive co-location's runs): every child's own status;
 * past the bound, the one still running is killed (SIGTERM) and the call
 * says so. In a child process: its handlers and statuses are its own. */
static void count_tick(void *ctx, int exited)
{
	((int *)ctx)[exited]++;
}

static int together_child(void)
{
	btc_install_signal_handlers();
	char *a[] = {"true", NULL}, *b[] = {"sh", "-c", "exit 3", NULL},
	     *c[] = {"sleep", "30", NULL};
	char *const *const argv[] = {a, b, c};
	struct btc_run_io io[3] = {{NULL, NULL, false}, {NULL, NULL, false}, {NULL, NULL, false}};
	int st[3];
	bool timed_out;
	double t0 = now_s();
	int failed = btc_run_together(argv, io, 3, 1.0, st, &timed_out);
	double took = now_s() - t0;
	if (failed != 2 || !timed_out || st[0] != 0 || st[1] != 3 || st[2] != 128 + SIGTERM ||
	    took > 25 || btc_interrupted())
		return 1;
	/* unbounded, all exit: no timeout */
	char *const *const two[] = {a, b};
	failed = btc_run_together(two, io, 2, 0, st, &timed_out);
	if (failed != 1 || timed_out || st[0] != 0 || st[1] != 3)
		return 2;
	/* the tick sees the children end one by one */
	char *e[] = {"sleep", "0.5", NULL};
	char *const *const staggered[] = {a, e};
	int seen[3] = {0, 0, 0};
	failed = btc_run_together_tick(staggered, io, 2, 0, st, &timed_out, count_tick, seen);
	if (failed != 0 || !seen[1] || seen[2])
		return 4; /* it ticked while one had exited, never after both */
	/* SIGINT reaches every child's group */
	char *d[] = {"sleep", "30", NULL};
	char *const *const sleeps[] = {c, d};
	pthread_t th;
	pthread_create(&th, NULL, send_sigint, NULL);
	t0 = now_s();
	failed = btc_run_together(sleeps, io, 2, 0, st, &timed_out);
	took = now_s() - t0;
	pthread_join(th, NULL);
	if (failed != 2 || st[0] != 128 + SIGINT || st[1] != 128 + SIGINT || !btc_interrupted() ||
	    took > 25)
		return 3;
	return 0;
}

static void test_run_together(void)
{
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(together_child());
	int status;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

/* btc_bg_*: a child beside btc (the co-run occupant) is waited for by a
 * line of its stdout, stopped by SIGTERM to its group, and its status
 * returned; a child that ends or stays silent makes the wait false. */
static void test_bg(void)
{
	struct btc_bg bg;
	char *ready[] = {"sh", "-c", "echo noise; echo 'occupying x'; exec sleep 30", NULL};
	CU_ASSERT_TRUE_FATAL(btc_bg_start(ready, NULL, &bg));
	int pid = bg.pid;
	CU_ASSERT_TRUE(btc_bg_wait_line(&bg, "occupying ", 20));
	double t0 = now_s();
	CU_ASSERT_EQUAL(btc_bg_stop(&bg, 2.0), 128 + SIGTERM);
	CU_ASSERT_TRUE(now_s() - t0 < 10);
	CU_ASSERT_EQUAL(kill(-pid, 0), -1); /* nothing of its group is left */
	CU_ASSERT_EQUAL(bg.pid, -1);

	char *ends[] = {"sh", "-c", "echo nope; exit 3", NULL};
	CU_ASSERT_TRUE_FATAL(btc_bg_start(ends, NULL, &bg));
	CU_ASSERT_FALSE(btc_bg_wait_line(&bg, "occupying ", 20));
	CU_ASSERT_EQUAL(btc_bg_stop(&bg, 2.0), 3);

	char *silent[] = {"sleep", "30", NULL};
	CU_ASSERT_TRUE_FATAL(btc_bg_start(silent, NULL, &bg));
	t0 = now_s();
	CU_ASSERT_FALSE(btc_bg_wait_line(&bg, "occupying ", 0.3));
	CU_ASSERT_TRUE(now_s() - t0 < 10);
	CU_ASSERT_EQUAL(btc_bg_stop(&bg, 2.0), 128 + SIGTERM);
	CU_ASSERT_EQUAL(btc_bg_stop(&bg, 2.0), 0); /* none runs */
}

int register_signals_suite(void)
{
	CU_pSuite s = CU_add_suite("signals", NULL, NULL);
	return !s || !CU_add_test(s, "Z3 keeps btc's SIGINT handler", test_z3_keeps_handler) ||
	       !CU_add_test(s, "forwarded under SA_RESTART", test_forwarded_under_sa_restart) ||
	       !CU_add_test(s, "programs run together", test_run_together) ||
	       !CU_add_test(s, "a child beside btc", test_bg);
}
