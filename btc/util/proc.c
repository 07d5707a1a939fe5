/* Child processes and signals: btc_run starts a tool in a process group of
 * its own and waits for it; SIGINT / SIGTERM to btc are recorded and
 * forwarded to that group, and the child is reaped before btc goes on. */
#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/diag.h"

extern char **environ;

/* The signal that interrupted btc (0: none), and the process groups of
 * the running children (0: none). Written by the handler, read by
 * btc_run*. */
static volatile sig_atomic_t interrupted;
static volatile sig_atomic_t child_pgid[BTC_RUN_MAX_TOGETHER];
/* The process group of the child running beside btc (btc_bg_start; 0: none). */
static volatile sig_atomic_t bg_pgid;

static void on_signal(int sig)
{
	int saved = errno;
	interrupted = sig;
	/* kill(2) is async-signal-safe: the children learn of it at once,
	 * whether or not our waitpid returns EINTR. */
	for (int i = 0; i < BTC_RUN_MAX_TOGETHER; i++)
		if (child_pgid[i] > 0)
			kill(-(pid_t)child_pgid[i], sig);
	if (bg_pgid > 0)
		kill(-(pid_t)bg_pgid, sig);
	errno = saved;
}

void btc_install_signal_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: waits return EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool btc_interrupted(void)
{
	return interrupted != 0;
}

double btc_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void kill_groups(const pid_t *pid, int n, int sig)
{
	for (int i = 0; i < n; i++)
		if (pid[i] > 0)
			kill(-pid[i], sig);
}

/* Waits for the n children pid[] (without reaping them) until every one
 * exited; after an interrupt, gives them 5 s, then kills their groups.
 * With timeout_s > 0, the groups of children still running after
 * timeout_s get SIGTERM, and SIGKILL 2 s later (*timed_out set). One
 * child without a bound is waited for blocking, several are polled. */
static void wait_exit(const pid_t *pid, int n, double timeout_s, bool *timed_out,
		      void (*tick)(void *ctx, int exited), void *ctx)
{
	double deadline = 0, end = timeout_s > 0 ? btc_now_s() + timeout_s : 0, kill_at = 0;
	bool killed = false, exited[BTC_RUN_MAX_TOGETHER] = {false};
	for (;;) {
		bool poll = interrupted || end > 0 || n > 1 || tick, all = true;
		for (int i = 0; i < n; i++) {
			if (exited[i] || pid[i] <= 0)
				continue;
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			int flags = WEXITED | WNOWAIT | (poll ? WNOHANG : 0);
			int rc = waitid(P_PID, (id_t)pid[i], &si, flags);
			if ((rc == 0 && si.si_pid == pid[i]) || (rc < 0 && errno != EINTR))
				exited[i] = true; /* exited, or ECHILD: nothing to wait for */
			else
				all = false;
		}
		if (all)
			return;
		if (tick) {
			int k = 0;
			for (int i = 0; i < n; i++)
				k += exited[i] || pid[i] <= 0;
			tick(ctx, k);
		}
		if (!poll)
			continue; /* EINTR for another signal */
		double t = btc_now_s();
		if (interrupted) {
			/* The handler forwarded the signal; poll. */
			if (deadline == 0)
				deadline = t + 5.0;
			if (!killed && t > deadline) {
				kill_groups(pid, n, SIGKILL);
				killed = true;
			}
		} else if (end > 0 && t > end && !*timed_out) {
			*timed_out = true;
			kill_groups(pid, n, SIGTERM);
			kill_at = t + 2.0;
		} else if (*timed_out && !killed && t > kill_at) {
			kill_groups(pid, n, SIGKILL);
			killed = true;
		}
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static pid_t spawn(char *const argv[], const struct btc_run_io *io)
{
	if (io->echo) {
		for (int i = 0; argv[i]; i++)
			fprintf(stderr, "%s%s", i ? " " : "+ ", argv[i]);
		fputc('\n', stderr);
	}
	fflush(stdout);
	fflush(stderr);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (io->stdout_path)
		posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, io->stdout_path,
						 O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	if (io->stderr_path)
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, io->stderr_path,
						 O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	/* A group of its own: btc forwards signals to it (and to whatever
	 * it starts: ninja's compilers, meson's probes). */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	/* A generated program asks for SIGTERM when btc dies, even by
	 * SIGKILL (btrt_guard_install: PR_SET_PDEATHSIG), so that no run
	 * outlives the job */
	char me[24];
	snprintf(me, sizeof(me), "%ld", (long)getpid());
	setenv("BTRT_PARENT_PID", me, 1);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, "btc: cannot run %s: %s\n", argv[0], strerror(rc));
		return -1;
	}
	return pid;
}

int btc_run_together(char *const *const argv[], const struct btc_run_io io[], int n,
		     double timeout_s, int status[], bool *timed_out)
{
	return btc_run_together_tick(argv, io, n, timeout_s, status, timed_out, NULL, NULL);
}

int btc_run_together_tick(char *const *const argv[], const struct btc_run_io io[], int n,
			  double timeout_s, int status[], bool *timed_out,
			  void (*tick)(void *ctx, int exited), void *ctx)
{
	*timed_out = false;
	if (n < 1 || n > BTC_RUN_MAX_TOGETHER) {
		fprintf(stderr, "btc: cannot run %d programs together (1..%d)\n", n,
			BTC_RUN_MAX_TOGETHER);
		for (int i = 0; i < n; i++)
			status[i] = 127;
		return -1;
	}
	pid_t pid[BTC_RUN_MAX_TOGETHER];
	for (int i = 0; i < n; i++) {
		pid[i] = interrupted ? -1 : spawn(argv[i], &io[i]);
		status[i] = interrupted ? 128 + interrupted : 127;
		if (pid[i] > 0)
			child_pgid[i] = pid[i];
	}
	if (interrupted) /* arrived between a spawn and recording its group */
		kill_groups(pid, n, interrupted);
	wait_exit(pid, n, timeout_s, timed_out, tick, ctx);
	for (int i = 0; i < n; i++)
		child_pgid[i] = 0;
	/* A group outlives its leader while anything in it runs: after an
	 * interrupt or a timeout, nothing of it may survive btc. The leaders
	 * are not reaped yet, so the group ids cannot have been reused. */
	if (interrupted || *timed_out)
		kill_groups(pid, n, SIGKILL);
	int failed = 0;
	for (int i = 0; i < n; i++) {
		if (pid[i] <= 0) {
			failed++;
			continue;
		}
		int st = 0;
		while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGINT || WTERMSIG(st) == SIGTERM) &&
		    !interrupted && !*timed_out)
			interrupted = WTERMSIG(st);
		status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		failed += status[i] != 0;
	}
	return failed;
}

int btc_run_bounded(char *const argv[], const struct btc_run_io *io, double timeout_s,
		    bool *timed_out)
{
	*timed_out = false;
	if (interrupted)
		return 128 + interrupted;
	char *const *const one[1] = {argv};
	int status;
	btc_run_together(one, io, 1, timeout_s, &status, timed_out);
	return status;
}

int btc_run_io(char *const argv[], const struct btc_run_io *io)
{
	bool timed_out;
	return btc_run_bounded(argv, io, 0, &timed_out);
}

int btc_run(char *const argv[], const char *stdout_path, bool echo)
{
	struct btc_run_io io = {stdout_path, NULL, echo};
	return btc_run_io(argv, &io);
}

bool btc_have_program(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	const char *path = getenv("PATH");
	char *copy = btc_xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL;
	bool found = false;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = btc_xasprintf("%s/%s", dir, prog);
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

const char *btc_status_text(int status, char *buf, int n)
{
	if (status > 128 && status < 128 + 65) {
		const char *abbrev = sigabbrev_np(status - 128);
		snprintf(buf, (size_t)n, "was killed by signal %d%s%s%s", status - 128,
			 abbrev ? " (SIG" : "", abbrev ? abbrev : "", abbrev ? ")" : "");
	} else {
		snprintf(buf, (size_t)n, "exited with status %d", status);
	}
	return buf;
}

bool btc_bg_start(char *const argv[], const char *stderr_path, struct btc_bg *bg)
{
	*bg = (struct btc_bg){-1, -1};
	if (interrupted || bg_pgid > 0)
		return false;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return false;
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0) {
		/* Async-signal-safe calls only until exec. The child dies with
		 * btc, even a btc killed by SIGKILL. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		dup2(fds[1], STDOUT_FILENO);
		if (stderr_path) {
			int e = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
			if (e >= 0)
				dup2(e, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid); /* also here: no race with a signal before the child's */
	close(fds[1]);
	bg->pid = pid;
	bg->out_fd = fds[0];
	bg_pgid = pid;
	if (interrupted)
		kill(-pid, interrupted);
	return true;
}

bool btc_bg_wait_line(struct btc_bg *bg, const char *prefix, double timeout_s)
{
	char line[512];
	size_t len = 0;
	double end = btc_now_s() + timeout_s;
	while (!interrupted && bg->out_fd >= 0) {
		double left = end - btc_now_s();
		if (left <= 0)
			return false;
		struct pollfd pf = {bg->out_fd, POLLIN, 0};
		int rc = poll(&pf, 1, (int)(left * 1000) + 1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			return false;
		char c;
		ssize_t n = read(bg->out_fd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false; /* the child closed its stdout: it ended */
		if (c != '\n') {
			if (len + 1 < sizeof(line))
				line[len++] = c;
			continue;
		}
		line[len] = '\0';
		if (!strncmp(line, prefix, strlen(prefix)))
			return true;
		len = 0;
	}
	return false;
}

int btc_bg_stop(struct btc_bg *bg, double grace_s)
{
	if (bg->pid <= 0)
		return 0;
	pid_t pid = bg->pid;
	kill(-pid, SIGTERM);
	double kill_at = btc_now_s() + grace_s;
	for (;;) {
		/* exited, not reaped: the group id cannot be reused yet */
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		int rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG);
		if ((rc == 0 && si.si_pid == pid) || (rc < 0 && errno != EINTR))
			break;
		if (btc_now_s() > kill_at) {
			kill(-pid, SIGKILL);
			kill_at = btc_now_s() + 3600;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL); /* whatever the leader left in its group */
	bg_pgid = 0;
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (bg->out_fd >= 0)
		close(bg->out_fd);
	*bg = (struct btc_bg){-1, -1};
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
