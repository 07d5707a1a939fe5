#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/diag.h"

extern char **environ;
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void btc_install_signal_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool btc_interrupted(void)
{
	return interrupted != 0;
}

int btc_run(char *const argv[], const char *stdout_path, bool echo)
{
	if (echo) {
		for (int i = 0; argv[i]; i++)
			fprintf(stderr, "%s%s", i ? " " : "+ ", argv[i]);
		fputc('\n', stderr);
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (stdout_path)
		posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, stdout_path,
						 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, "btc: cannot run %s: %s\n", argv[0], strerror(rc));
		return 127;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 127;
		/* A signal for btc also went to the child (same process
		 * group from a terminal); if not, pass it on. */
		if (interrupted)
			kill(pid, SIGINT);
	}
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM))
		interrupted = 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
