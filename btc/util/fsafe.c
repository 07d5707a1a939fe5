/* Safe output: atomic writes that never replace anything but a regular
 * file, output checks, directory locks, stale temporary files (fsafe.h). */
#include "util/fsafe.h"

#include <btrt_fsafe.h> /* btrt_file_kind: the one wording for what a path is */

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/out.h"
#include "util/paths.h"
#include "util/proc.h"
#include "util/str.h"


/* Refuses an existing path that is not a regular file. */
static bool replaceable(const char *what, const char *path, struct btc_diag *d)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return true; /* absent; or unreachable, which creating it reports */
	if (S_ISREG(st.st_mode))
		return true;
	btc_error(d, (struct btc_loc){path, 0, 0},
		  "%s%sis %s: btc replaces only regular files (and never writes through a link)",
		  what ? what : "", what ? " " : "", btrt_file_kind(st.st_mode));
	return false;
}

/* Does path hold exactly buf[len]? (path is a regular file or absent) */
static bool same_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
	char chunk[65536];
	for (size_t off = 0; same && off < len;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		same = n > 0 && (size_t)n <= len - off && !memcmp(chunk, (const char *)buf + off, (size_t)n);
		off += n > 0 ? (size_t)n : 0;
	}
	close(fd);
	return same;
}

static bool write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return false;
		}
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static void sync_dir_of(const char *path)
{
	char *dir = btc_dir_name(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

bool btc_write_file_atomic(const char *path, const void *buf, size_t len, unsigned flags,
			   struct btc_diag *d)
{
	if (!replaceable(NULL, path, d))
		return false;
	if ((flags & BTC_WRITE_KEEP_SAME) && same_bytes(path, buf, len))
		return true;
	char *tmp = btc_xasprintf("%s.tmp.%ld", path, (long)getpid());
	int oflags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(tmp, oflags, 0644);
	if (fd < 0 && errno == EEXIST) {
		/* Ours by name: left by a dead process that had this pid. */
		unlink(tmp);
		fd = open(tmp, oflags, 0644);
	}
	const char *step = "cannot create a temporary file beside it";
	bool ok = fd >= 0;
	if (ok) {
		step = "cannot write";
		ok = write_all(fd, buf, len);
		if (ok && (flags & BTC_WRITE_SYNC)) {
			step = "cannot sync";
			ok = fsync(fd) == 0;
		}
		int saved = errno;
		if (close(fd) != 0 && ok) {
			step = "cannot write";
			ok = false;
		} else {
			errno = saved;
		}
	}
	if (ok && rename(tmp, path) != 0) {
		step = "cannot rename the temporary file over it";
		ok = false;
	}
	if (!ok) {
		int err = errno;
		if (fd >= 0)
			unlink(tmp);
		btc_error(d, (struct btc_loc){path, 0, 0}, "%s: %s (the file is unchanged)", step,
			  strerror(err));
	} else if (flags & BTC_WRITE_SYNC) {
		sync_dir_of(path);
	}
	free(tmp);
	return ok;
}

/* The nearest existing ancestor of path (path itself when it exists), as
 * a new string. */
static char *nearest_existing(const char *path)
{
	char *p = btc_xstrdup(path);
	struct stat st;
	while (lstat(p, &st) != 0) {
		char *up = btc_dir_name(p);
		if (!strcmp(up, p)) {
			free(up);
			break;
		}
		free(p);
		p = up;
	}
	return p;
}

static bool dir_writable(const char *what, const char *path, const char *dir, struct btc_diag *d)
{
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "%s: %s is not a directory", what, dir);
		return false;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "%s: cannot write in %s: %s", what, dir,
			  strerror(errno));
		return false;
	}
	return true;
}

bool btc_write_json(const char *path, cJSON *root, unsigned flags, struct btc_diag *d)
{
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		btc_panic("out of memory printing %s", path);
	size_t len = strlen(text);
	text[len++] = '\n'; /* over the NUL: cJSON_Print's buffer is len + 1 */
	bool ok = btc_write_file_atomic(path, text, len, flags, d);
	cJSON_free(text);
	return ok;
}

bool btc_output_check(const char *what, const char *path, struct btc_diag *d)
{
	if (!replaceable(what, path, d))
		return false;
	char *parent = btc_dir_name(path);
	char *dir = nearest_existing(parent);
	bool ok = dir_writable(what, path, dir, d);
	free(dir);
	free(parent);
	return ok;
}

bool btc_output_dir_check(const char *what, const char *dir, struct btc_diag *d)
{
	struct stat st;
	/* The directory the user names may be a link to one (stat); what
	 * btc creates inside it is checked without following links. */
	if (stat(dir, &st) != 0 && lstat(dir, &st) == 0) {
		btc_error(d, (struct btc_loc){dir, 0, 0}, "%s is a dangling symbolic link", what);
		return false;
	}
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			btc_error(d, (struct btc_loc){dir, 0, 0},
				  "%s is %s, not a directory btc may fill", what,
				  btrt_file_kind(st.st_mode));
			return false;
		}
		return dir_writable(what, dir, dir, d);
	}
	char *near = nearest_existing(dir);
	bool ok = dir_writable(what, dir, near, d);
	free(near);
	return ok;
}

int btc_remove_stale_tmp(const char *dir)
{
	DIR *dd = opendir(dir);
	if (!dd)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dd))) {
		const char *t = strstr(e->d_name, ".tmp.");
		while (t && strstr(t + 1, ".tmp."))
			t = strstr(t + 1, ".tmp.");
		if (!t || !t[5])
			continue;
		char *end;
		long pid = strtol(t + 5, &end, 10);
		if ((*end && *end != '.') || end == t + 5 || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive (or not ours to probe) */
		char *p = btc_xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && unlink(p) == 0) {
			fprintf(stderr, "btc: removed %s (left by process %ld, which is gone)\n", p,
				pid);
			n++;
		}
		free(p);
	}
	closedir(dd);
	return n;
}

/* The directories this process holds: their lock files' (dev, ino). */
static struct {
	dev_t dev;
	ino_t ino;
	int fd;
	char *path;   /* the lock file this process created, or NULL */
} held[16];
static int n_held;

/* At exit the pid goes (the empty lock file stays: unlinking a lock file
 * races with a btc that has just opened it), so a project's bytes do not
 * depend on which process made it. */
static void clear_pids(void)
{
	for (int i = 0; i < n_held; i++)
		if (ftruncate(held[i].fd, 0) != 0)
			continue; /* the pid stays: harmless */
}

bool btc_dir_lock(const char *dir, bool wait, struct btc_diag *d)
{
	char *path = btc_xasprintf("%s/.btc.lock", dir);
	/* O_EXCL first: whether this process made the file (btc_dir_unlock
	 * removes only a lock file it made). */
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	bool created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "cannot create the lock file: %s",
			  fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		free(path);
		return false;
	}
	for (int i = 0; i < n_held; i++)
		if (held[i].dev == st.st_dev && held[i].ino == st.st_ino) {
			close(fd);
			free(path);
			return true;
		}
	bool ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
	if (!ok) {
		char text[32] = "?";
		ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
		if (n > 0) {
			text[n] = '\0';
			text[strcspn(text, "\n")] = '\0';
		}
		if (!wait) {
			btc_error(d, (struct btc_loc){0}, "another btc (pid %s) is using %s", text,
				  dir);
		} else {
			printf("btc: waiting for another btc (pid %s), which is using %s\n", text,
			       dir);
			fflush(stdout);
			while (!(ok = flock(fd, LOCK_EX) == 0) && errno == EINTR &&
			       !btc_interrupted())
				;
		}
	}
	if (ok) {
		char text[32];
		int n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
		/* The pid is for the message only: a failure to write it is
		 * harmless ("pid ?"). */
		if (ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) != n)
			text[0] = '\0';
		if (n_held == 0)
			atexit(clear_pids);
		if (n_held < 16) {
			held[n_held].dev = st.st_dev;
			held[n_held].ino = st.st_ino;
			held[n_held].fd = fd;
			held[n_held].path = created ? path : NULL;
			if (created)
				path = NULL;
			n_held++;
		}
		/* fd stays open: the lock lasts until btc exits. */
	} else {
		close(fd);
	}
	free(path);
	return ok;
}

void btc_dir_unlock(const char *dir)
{
	char *path = btc_xasprintf("%s/.btc.lock", dir);
	struct stat st;
	if (lstat(path, &st) == 0)
		for (int i = 0; i < n_held; i++) {
			if (held[i].dev != st.st_dev || held[i].ino != st.st_ino)
				continue;
			/* unlinked while still held: a btc that opens it meanwhile
			 * is refused (output directories do not wait) */
			if (held[i].path)
				unlink(held[i].path);
			free(held[i].path);
			close(held[i].fd);
			held[i] = held[--n_held];
			break;
		}
	free(path);
}
