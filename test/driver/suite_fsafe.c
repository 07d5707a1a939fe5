/* Safe output and bounded runs (issue 26, findings 2 to 5, btc side):
 * util/fsafe's atomic write refuses devices, FIFOs, directories and links
 * and names the file on a write error (a full file system, here EFBIG
 * under RLIMIT_FSIZE) leaving the old file whole; stale temporary files of
 * dead processes go; a directory lock names its holder; util/proc's
 * bounded run kills the child's whole process group; the tuner's run
 * names a time-out, a crash's signal and a report of another schedule;
 * util/infile's btc_read_json names why a JSON file is not read. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "driver/tune.h"
#include "suites.h"
#include "util/fsafe.h"
#include "util/infile.h"
#include "util/out.h"
#include "util/proc.h"

static char dir[64];

static int setup(void)
{
	strcpy(dir, "/tmp/btc-fsafe-XXXXXX");
	return mkdtemp(dir) ? 0 : 1;
}

static char *at(const char *name)
{
	return btc_xasprintf("%s/%s", dir, name);
}

static void quiet(struct btc_diag *d)
{
	btc_diag_init(d, NULL);
}

static void test_refuses_non_regular(void)
{
	struct btc_diag d;
	char *fifo = at("fifo"), *sub = at("sub"), *target = at("target"), *link = at("link");
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	quiet(&d);
	CU_ASSERT_TRUE(btc_write_file_atomic(target, "old\n", 4, 0, &d));
	CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
	quiet(&d);
	CU_ASSERT_FALSE(btc_write_file_atomic(fifo, "x", 1, 0, &d));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, "a FIFO"));
	struct stat st;
	CU_ASSERT_TRUE(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
	quiet(&d);
	CU_ASSERT_FALSE(btc_write_file_atomic(sub, "x", 1, 0, &d));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, "a directory"));
	quiet(&d);
	CU_ASSERT_FALSE(btc_write_file_atomic(link, "new\n", 4, 0, &d));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, "a symbolic link"));
	char *text = btc_read_file(target, NULL);
	CU_ASSERT_STRING_EQUAL(text, "old\n"); /* not written through the link */
	free(text);
	/* /dev/null when it exists: a character device, refused. */
	quiet(&d);
	CU_ASSERT_FALSE(btc_write_file_atomic("/dev/null", "x", 1, 0, &d));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, "a character device"));
	quiet(&d);
	CU_ASSERT_FALSE(btc_output_check("--report", fifo, &d));
	CU_ASSERT_TRUE(btc_output_check("--report", target, &d));
	free(fifo);
	free(sub);
	free(target);
	free(link);
}

/* In a child: RLIMIT_FSIZE of 1 KiB (write fails with EFBIG, as a full
 * disk fails with ENOSPC) over a 64 KiB write; exit 0 when the write
 * failed, named the file and the reason, and left the old file whole. */
static int full_child(const char *path)
{
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit r = {1024, 1024};
	if (setrlimit(RLIMIT_FSIZE, &r) != 0)
		return 2;
	static char big[65536];
	memset(big, 'x', sizeof(big));
	struct btc_diag d;
	quiet(&d);
	bool ok = btc_write_file_atomic(path, big, sizeof(big), BTC_WRITE_SYNC, &d);
	char *text = btc_read_file(path, NULL);
	bool whole = text && !strcmp(text, "old\n");
	free(text);
	bool named = strstr(d.first, path) && strstr(d.first, strerror(EFBIG));
	return !ok && whole && named ? 0 : 1;
}

static void test_write_error_named(void)
{
	char *path = at("full.json");
	struct btc_diag d;
	quiet(&d);
	CU_ASSERT_TRUE_FATAL(btc_write_file_atomic(path, "old\n", 4, 0, &d));
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(full_child(path));
	int status;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	char *tmp = btc_xasprintf("%s.tmp.%ld", path, (long)pid);
	CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0); /* the temporary file is gone */
	free(tmp);
	free(path);
}

/* A pid that no process has now: a child that has exited and been reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void test_stale_tmp_removed(void)
{
	pid_t dead = dead_pid();
	char *stale = btc_xasprintf("%s/t.csv.tmp.%ld", dir, (long)dead);
	char *stale2 = btc_xasprintf("%s/tune-run.tmp.%ld.stderr", dir, (long)dead);
	char *alive = btc_xasprintf("%s/t.csv.tmp.%ld", dir, (long)getppid());
	struct btc_diag d;
	quiet(&d);
	CU_ASSERT_TRUE(btc_write_file_atomic(stale, "", 0, 0, &d));
	CU_ASSERT_TRUE(btc_write_file_atomic(stale2, "", 0, 0, &d));
	CU_ASSERT_TRUE(btc_write_file_atomic(alive, "", 0, 0, &d));
	CU_ASSERT_EQUAL(btc_remove_stale_tmp(dir), 2);
	CU_ASSERT_NOT_EQUAL(access(stale, F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(stale2, F_OK), 0);
	CU_ASSERT_EQUAL(access(alive, F_OK), 0); /* its process lives */
	unlink(alive);
	free(stale);
	free(stale2);
	free(alive);
}

static void test_lock_names_holder(void)
{
	char *sub = at("locked");
	mkdir(sub, 0755);
	int pipefd[2];
	CU_ASSERT_EQUAL_FATAL(pipe(pipefd), 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct btc_diag d;
		quiet(&d);
		char c = btc_dir_lock(sub, false, &d) ? 'y' : 'n';
		if (write(pipefd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char c = 0;
	CU_ASSERT_EQUAL(read(pipefd[0], &c, 1), 1);
	CU_ASSERT_EQUAL(c, 'y');
	struct btc_diag d;
	quiet(&d);
	CU_ASSERT_FALSE(btc_dir_lock(sub, false, &d));
	char *want = btc_xasprintf("another btc (pid %ld) is using %s", (long)pid, sub);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, want));
	free(want);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	quiet(&d);
	CU_ASSERT_TRUE(btc_dir_lock(sub, false, &d)); /* free again once it is gone */
	CU_ASSERT_TRUE(btc_dir_lock(sub, false, &d)); /* held by us: fine */
	close(pipefd[0]);
	close(pipefd[1]);
	free(sub);
}

/* Is pid a live process (not gone, not a zombie left for init)? */
static bool running(pid_t pid)
{
	char *path = btc_xasprintf("/proc/%ld/stat", (long)pid);
	char *text = btc_read_file(path, NULL);
	free(path);
	const char *paren = text ? strrchr(text, ')') : NULL;
	bool alive = paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
	free(text);
	return alive;
}

static void test_bounded_kills_group(void)
{
	/* A child whose own child would outlive it: both must die. */
	char *pidfile = at("grandchild.pid");
	char *script = btc_xasprintf("sleep 60 & echo $! > %s; wait", pidfile);
	char *argv[] = {"sh", "-c", script, NULL};
	struct btc_run_io io = {NULL, NULL, false};
	bool timed_out = false;
	int rc = btc_run_bounded(argv, &io, 0.5, &timed_out);
	CU_ASSERT_TRUE(timed_out);
	CU_ASSERT_TRUE(rc == 128 + SIGTERM || rc == 128 + SIGKILL);
	CU_ASSERT_FALSE(btc_interrupted()); /* a time-out is no interrupt of btc */
	char *text = btc_read_file(pidfile, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	pid_t g = (pid_t)atol(text);
	usleep(200 * 1000);
	CU_ASSERT_TRUE(g > 0 && !running(g)); /* the grandchild is gone too */
	char *quick[] = {"true", NULL};
	CU_ASSERT_EQUAL(btc_run_bounded(quick, &io, 5, &timed_out), 0);
	CU_ASSERT_FALSE(timed_out);
	free(text);
	free(script);
	free(pidfile);
}

/* A fake program: the shell script body runs with $REPORT the --report. */
static char *fake(const char *name, const char *body)
{
	char *path = at(name);
	char *text = btc_xasprintf("#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --report ] && "
				   "REPORT=$2; shift; done\n%s\n",
				   body);
	struct btc_diag d;
	quiet(&d);
	btc_write_file_atomic(path, text, strlen(text), 0, &d);
	chmod(path, 0755);
	free(text);
	return path;
}

static char *run_fake(const char *prog, double factor, bool *ok)
{
	struct btc_tune_options opt;
	btc_tune_options_init(&opt);
	opt.timeout_factor = factor;
	struct btc_plan_schedule s;
	memset(&s, 0, sizeof(s));
	s.predicted = true;
	s.s.tmax_ms = 1;
	s.s.n_chunks = 1;
	char *report = at("run.json");
	struct btc_tune_run run = {.program = prog, .index = 2, .sched = &s, .warmup = 1,
				   .tasks = 2, .report = report, .quiet = true, .phase = "tuning"};
	double ms;
	char *error = NULL;
	*ok = btc_tune_run_once(&run, &opt, &ms, &error);
	free(report);
	return error;
}

static void test_tune_run_faults_named(void)
{
	bool ok;
	/* 0.1 x (3 s + 4 ms): killed after about 0.3 s, not 60. */
	char *p = fake("hang", "sleep 60");
	char *e = run_fake(p, 0.1, &ok);
	CU_ASSERT_FALSE(ok);
	CU_ASSERT_PTR_NOT_NULL(e && strstr(e, "ran past its time limit of 0.3 s"));
	CU_ASSERT_PTR_NOT_NULL(e && strstr(e, "schedule 2"));
	free(e);
	free(p);
	p = fake("segv", "kill -SEGV $$");
	e = run_fake(p, 10, &ok);
	CU_ASSERT_FALSE(ok);
	CU_ASSERT_PTR_NOT_NULL(e && strstr(e, "signal 11 (SIGSEGV)"));
	free(e);
	free(p);
	p = fake("exit0", "exit 0");
	e = run_fake(p, 10, &ok);
	CU_ASSERT_FALSE(ok);
	CU_ASSERT_PTR_NOT_NULL(e && strstr(e, "without writing its report"));
	free(e);
	free(p);
	p = fake("other", "echo '{\"schedule_index\": 0, \"verified\": true, "
			  "\"measured_ms_per_task\": 1.5}' > $REPORT");
	e = run_fake(p, 10, &ok);
	CU_ASSERT_FALSE(ok);
	CU_ASSERT_PTR_NOT_NULL(e && strstr(e, "report is of schedule 0"));
	free(e);
	free(p);
	p = fake("good", "echo '{\"schedule_index\": 2, \"verified\": true, "
			 "\"measured_ms_per_task\": 1.5}' > $REPORT");
	e = run_fake(p, 10, &ok);
	CU_ASSERT_TRUE(ok);
	CU_ASSERT_PTR_NULL(e);
	free(e);
	free(p);
}

/* btc_read_json: the tree of a JSON file; else NULL, errno, and (with a
 * diag) one error naming the file and why: unreadable, not a regular
 * file, empty, or not JSON at the line and column where cJSON stopped. */
static void test_read_json(void)
{
	struct btc_diag d;
	char *good = at("good.json"), *bad = at("bad.json"), *empty = at("empty.json");
	char *fifo = at("json-fifo"), *missing = at("missing.json");
	const char *texts[] = {"{\"a\": 7}\n", "{\"a\": 1,\n  \"b\": }\n", " \n"};
	char *paths[] = {good, bad, empty};
	quiet(&d);
	for (int k = 0; k < 3; k++)
		CU_ASSERT_TRUE_FATAL(btc_write_file_atomic(paths[k], texts[k], strlen(texts[k]), 0, &d));
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0644), 0);
	quiet(&d);
	cJSON *j = btc_read_json(good, "not a report", &d);
	CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(j, "a")->valueint, 7);
	CU_ASSERT_EQUAL(d.errors, 0);
	cJSON_Delete(j);
	quiet(&d);
	CU_ASSERT_PTR_NULL(btc_read_json(missing, "not a report", &d));
	CU_ASSERT_EQUAL(errno, ENOENT);
	char *want = btc_xasprintf("%s: error: not a report: cannot read: %s", missing,
				   strerror(ENOENT));
	CU_ASSERT_STRING_EQUAL(d.first, want);
	free(want);
	quiet(&d);
	CU_ASSERT_PTR_NULL(btc_read_json(fifo, NULL, &d)); /* at once: no writer to wait for */
	want = btc_xasprintf("%s: error: is a FIFO, not a regular file", fifo);
	CU_ASSERT_STRING_EQUAL(d.first, want);
	free(want);
	quiet(&d);
	CU_ASSERT_PTR_NULL(btc_read_json(bad, "not a report", &d));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	want = btc_xasprintf("%s:2:8: error: not a report: not valid JSON", bad);
	CU_ASSERT_STRING_EQUAL(d.first, want);
	free(want);
	quiet(&d);
	CU_ASSERT_PTR_NULL(btc_read_json(empty, NULL, &d));
	want = btc_xasprintf("%s: error: empty, not JSON", empty);
	CU_ASSERT_STRING_EQUAL(d.first, want);
	CU_ASSERT_EQUAL(d.errors, 1);
	free(want);
	/* without a diag: silent, errno only */
	CU_ASSERT_PTR_NULL(btc_read_json(bad, NULL, NULL));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	CU_ASSERT_PTR_NULL(btc_read_json(missing, NULL, NULL));
	CU_ASSERT_EQUAL(errno, ENOENT);
	free(good);
	free(bad);
	free(empty);
	free(fifo);
	free(missing);
}

int register_fsafe_suite(void)
{
	CU_pSuite s = CU_add_suite("fsafe", setup, NULL);
	return !s || !CU_add_test(s, "refuses devices, FIFOs, dirs, links", test_refuses_non_regular) ||
	       !CU_add_test(s, "a write error names the file", test_write_error_named) ||
	       !CU_add_test(s, "stale temporary files removed", test_stale_tmp_removed) ||
	       !CU_add_test(s, "a lock names its holder", test_lock_names_holder) ||
	       !CU_add_test(s, "a bounded run kills the group", test_bounded_kills_group) ||
	       !CU_add_test(s, "tuning runs: faults named", test_tune_run_faults_named) ||
	       !CU_add_test(s, "a JSON file not read: why, named", test_read_json);
}
