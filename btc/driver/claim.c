/* The job's directory: claimed for one btc before anything is written in
 * it, and swept of what an earlier job left (docs/conventions.md,
 * "Writing files"). */
#include "driver/job.h"

#include <stdlib.h>
#include <unistd.h>

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
