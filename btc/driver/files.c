/* The driver's file-system safety: checked names for file names, and a
 * directory removal confined to a root (instead of a `rm -rf` child). */
#include "driver/files.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool btc_files_check_name(const char *what, const char *name, struct btc_diag *d)
{
	const char *why = NULL;
	if (!name || !*name)
		why = "is empty";
	else if (strchr(name, '/'))
		why = "contains '/'";
	else if (strstr(name, ".."))
		why = "contains '..'";
	else if (name[0] == '.' || name[0] == '-')
		why = "starts with '.' or '-'";
	else
		for (const char *p = name; *p && !why; p++)
			if (*p <= ' ' || *p > '~')
				why = "contains a space or a non-printable character";
	if (why)
		btc_error(d, (struct btc_loc){0}, "%s '%s' %s: it cannot be part of a file name",
			  what, name ? name : "", why);
	return !why;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	int rc = type == FTW_DP ? rmdir(path) : unlink(path);
	if (rc != 0)
		fprintf(stderr, "btc: cannot remove %s: %s\n", path, strerror(errno));
	return rc;
}

bool btc_files_remove_under(const char *root, const char *sub, struct btc_diag *d)
{
	if (!*sub || sub[0] == '/' || strstr(sub, "..")) {
		btc_error(d, (struct btc_loc){root, 0, 0},
			  "refusing to remove '%s': not a path inside this directory", sub);
		return false;
	}
	char *path = btc_xasprintf("%s/%s", root, sub);
	struct stat st;
	if (lstat(path, &st) != 0) {
		free(path);
		return errno == ENOENT;
	}
	char real_root[PATH_MAX], real_path[PATH_MAX];
	bool ok = false;
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
		btc_error(d, (struct btc_loc){path, 0, 0},
			  "refusing to remove: not a directory (or a symbolic link)");
	} else if (!realpath(root, real_root) || !realpath(path, real_path)) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "cannot resolve: %s", strerror(errno));
	} else {
		size_t n = strlen(real_root);
		bool under = !strncmp(real_path, real_root, n) && real_path[n] == '/' &&
			     real_path[n + 1] != '\0';
		if (!under)
			btc_error(d, (struct btc_loc){path, 0, 0},
				  "refusing to remove %s: it is not under %s", real_path,
				  real_root);
		else if (nftw(real_path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
			btc_error(d, (struct btc_loc){path, 0, 0}, "cannot remove the directory");
		else
			ok = true;
	}
	free(path);
	return ok;
}
