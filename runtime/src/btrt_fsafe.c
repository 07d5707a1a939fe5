/* Safe output files (btrt_fsafe.h): a temporary file beside the output,
 * renamed over it only when whole, and only over a regular file. */
#include "btrt_fsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


int btrt_output_check(const char *what, const char *path, struct btrt_error *err)
{
	struct stat st;
	if (lstat(path, &st) != 0 || S_ISREG(st.st_mode))
		return 0; /* absent (or unreachable: creating it says why) */
	return btrt_error_set(err, BTRT_E_INVAL, 0,
			      "%s%s%s is %s: the program replaces only regular files "
			      "(and never writes through a link)",
			      what ? what : "", what ? " " : "", path, btrt_file_kind(st.st_mode));
}

static void release(struct btrt_ofile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp && o->fd >= 0) /* a zeroed o (fd 0) holds no file */
		close(o->fd);
	free(o->buf);
	free(o->path);
	free(o->tmp);
	*o = (struct btrt_ofile){ .fd = -1 };
}

int btrt_ofile_open(struct btrt_ofile *o, const char *path, struct btrt_error *err)
{
	*o = (struct btrt_ofile){ .fd = -1 };
	if (btrt_output_check(NULL, path, err))
		return -1;
	size_t n = strlen(path) + 32;
	o->path = strdup(path);
	o->tmp = malloc(n);
	o->f = o->path && o->tmp ? open_memstream(&o->buf, &o->len) : NULL;
	if (!o->f) {
		release(o);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "cannot write %s: out of memory", path);
	}
	snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	o->fd = open(o->tmp, flags, 0644);
	if (o->fd < 0 && errno == EEXIST) {
		/* Ours by name: left by a dead process that had this pid. */
		unlink(o->tmp);
		o->fd = open(o->tmp, flags, 0644);
	}
	if (o->fd < 0) {
		int e = errno;
		btrt_error_set(err, BTRT_E_SYS, e,
			       "cannot write %s: cannot create a temporary file beside it: %s", path,
			       strerror(e));
		free(o->tmp);
		o->tmp = NULL; /* not ours: nothing to remove */
		release(o);
		return -1;
	}
	return 0;
}

/* Writes buf[len] to fd. Returns 0, or an errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w == 0 ? EIO : errno;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

int btrt_ofile_close(struct btrt_ofile *o, struct btrt_error *err)
{
	if (!o->f)
		return 0;
	int e = fclose(o->f) != 0 ? ENOMEM : 0;
	o->f = NULL;
	if (!e)
		e = write_all(o->fd, o->buf, o->len);
	if (close(o->fd) != 0 && !e)
		e = errno;
	o->fd = -1;
	free(o->buf);
	o->buf = NULL;
	if (!e)
		return 0;
	unlink(o->tmp);
	btrt_error_set(err, BTRT_E_SYS, e, "cannot write %s: %s (the file is unchanged)", o->path,
		       strerror(e));
	release(o);
	return -1;
}

int btrt_ofile_publish(struct btrt_ofile *o, struct btrt_error *err)
{
	int rc = 0;
	/* Checked again: the path may have changed during the run. */
	if (btrt_output_check(NULL, o->path, err)) {
		rc = -1;
	} else if (rename(o->tmp, o->path) != 0) {
		int e = errno;
		rc = btrt_error_set(err, BTRT_E_SYS, e,
				    "cannot write %s: cannot rename the temporary file over it: %s",
				    o->path, strerror(e));
	} else {
		free(o->tmp);
		o->tmp = NULL;
	}
	if (o->tmp)
		unlink(o->tmp);
	release(o);
	return rc;
}

int btrt_ofile_commit(struct btrt_ofile *o, struct btrt_error *err)
{
	if (btrt_ofile_close(o, err))
		return -1;
	return btrt_ofile_publish(o, err);
}

void btrt_ofile_discard(struct btrt_ofile *o)
{
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

int btrt_write_file_atomic(const char *path, const void *buf, size_t len,
			   struct btrt_error *err)
{
	struct btrt_ofile o;
	if (btrt_ofile_open(&o, path, err))
		return -1;
	/* A short write sets the stream's error flag: btrt_ofile_close
	 * names it. */
	(void)fwrite(buf, 1, len, o.f);
	return btrt_ofile_commit(&o, err);
}
