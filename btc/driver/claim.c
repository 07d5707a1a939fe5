/* The job's directory: named, claimed for one btc before anything is written in
 * it, and swept of what an earlier job left (docs/conventions.md,
 * "Writing files"). */
#include "driver/claim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/files.h"
#include "util/fsafe.h"
#include "util/out.h"
#include "util/str.h"

bool btc_job_dir_claim(const char *dir, struct btc_diag *d)
{
	if (!btc_output_dir_check("the output directory", dir, d) || !btc_mkdirs(dir, d) ||
	    !btc_dir_lock(dir, false, d))
		return false;
	btc_remove_stale_tmp(dir);
	return true;
}

bool btc_job_dir_make(char *dir, bool (*make)(const char *dir, void *arg), void *arg,
		      struct btc_diag *d)
{
	for (size_t len = strlen(dir); len > 1 && dir[len - 1] == '/'; len--)
		dir[len - 1] = '\0'; /* "out/": the sibling is out.tmp.PID */
	struct stat st;
	bool fresh = lstat(dir, &st) != 0 && errno == ENOENT;
	char *gen_dir = fresh ? btc_xasprintf("%s.tmp.%ld", dir, (long)getpid()) : btc_xstrdup(dir);
	bool ok = btc_job_dir_claim(gen_dir, d) && make(gen_dir, arg);
	if (fresh && ok && rename(gen_dir, dir) != 0) {
		btc_error(d, (struct btc_loc){dir, 0, 0},
			  "cannot publish the generated project (%s): %s", gen_dir,
			  errno == EEXIST || errno == ENOTEMPTY
				  ? "the directory appeared meanwhile (another btc?)"
				  : strerror(errno));
		ok = false;
	}
	if (fresh && !ok) { /* nothing half-made is left */
		char *parent = btc_dir_name(gen_dir);
		const char *slash = strrchr(gen_dir, '/');
		btc_files_remove_under(parent, slash ? slash + 1 : gen_dir, d);
		free(parent);
	}
	free(gen_dir);
	return ok;
}

void btc_job_dir_sweep(const char *dir)
{
	static const char *const earlier[] = {"trace.json", "timeline.svg", "fit.svg",
					      "profile.svg", "run.json"};
	for (size_t k = 0; k < sizeof(earlier) / sizeof(earlier[0]); k++) {
		char *p = btc_xasprintf("%s/%s", dir, earlier[k]);
		unlink(p);
		free(p);
	}
}

char *btc_job_default_dir(const struct btc_app *app, const struct btc_device *dev)
{
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	if (!btc_files_check_name("app name", app->name, &quiet) ||
	    !btc_files_check_name("device name", dev->name, &quiet))
		return NULL;
	return btc_xasprintf("build/btc/%s-%s", app->name, dev->name);
}

char *btc_job_dir(const char *out_dir, const struct btc_app *app, const struct btc_device *dev,
		  struct btc_diag *d)
{
	/* Checked also with an explicit out_dir: the names become file names
	 * inside it (APP_task.h, build/APP-pipeline, the cache table). */
	if (!btc_files_check_name("app name", app->name, d) ||
	    !btc_files_check_name("device name", dev->name, d))
		return NULL;
	return out_dir ? btc_xstrdup(out_dir) : btc_job_default_dir(app, dev);
}
