/* `btc gen APP.yaml --device DEV [--table T | --chunks SPEC...]` (also
 * `btc APP.yaml ...`): plan the schedules, generate the project, and with
 * --build build it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/workload.h"
#include "driver/files.h"
#include "driver/build.h"
#include "driver/claim.h"
#include "driver/project.h"
#include "front/table.h"
#include "gen/symbol_check.h"
#include "util/str.h"

int btc_cmd_gen(const struct btc_cli_options *o)
{
	if (o->n_positional != 1 || btc_cli_is_workload(o))
		return btc_cmd_gen_workload(o);
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_plan_options po;
	btc_cli_plan_options(o, &po);
	struct btc_cli_inputs in;
	struct btc_plan *plan = btc_cli_plan(o, &po, false, &in, &d);
	int n_shaders = 0;
	char *dir = NULL;
	bool built;
	/* A misspelled cpu:, io: or cuda: symbol: named at its YAML line now,
	 * not as a linker error when the project is built (as btc check). */
	if (!plan || !btc_gen_check_symbols(in.app, &d))
		goto out;
	dir = btc_job_dir(o->output, in.app, in.dev, &d);
	if (!dir)
		goto out;
	/* A new directory is published whole: generated into a sibling
	 * DIR.tmp.PID, then renamed into place. An existing one is held
	 * (locked) while it is written and built: two btc gen into one -o
	 * never mix their files (docs/conventions.md, "Writing files"). */
	for (size_t len = strlen(dir); len > 1 && dir[len - 1] == '/'; len--)
		dir[len - 1] = '\0'; /* "out/": the sibling is out.tmp.PID */
	struct stat st;
	bool fresh = lstat(dir, &st) != 0 && errno == ENOENT;
	char *gen_dir = fresh ? btc_xasprintf("%s.tmp.%ld", dir, (long)getpid()) : btc_xstrdup(dir);
	bool ok = btc_job_dir_claim(gen_dir, &d) &&
		  btc_project_make(plan, gen_dir, false, o->force, &built, &n_shaders, &d);
	if (fresh && ok && rename(gen_dir, dir) != 0) {
		btc_error(&d, (struct btc_loc){dir, 0, 0},
			  "cannot publish the generated project (%s): %s", gen_dir,
			  errno == EEXIST || errno == ENOTEMPTY
				  ? "the directory appeared meanwhile (another btc?)"
				  : strerror(errno));
		ok = false;
	}
	if (fresh && !ok) { /* nothing half-made is left */
		char *parent = btc_dir_name(gen_dir);
		const char *slash = strrchr(gen_dir, '/');
		btc_files_remove_under(parent, slash ? slash + 1 : gen_dir, &d);
		free(parent);
	}
	free(gen_dir);
	if (!ok)
		goto out;
	int n_scheds = plan->n_schedules;
	printf("generated %s: %d schedule%s (%s), %d shader%s\n", dir, n_scheds,
	       n_scheds == 1 ? "" : "s",
	       plan->schedules[0].baseline ? "baselines" : "candidates + baselines", n_shaders,
	       n_shaders == 1 ? "" : "s");
	if (o->build)
		btc_job_build(dir, in.dev, &built, &d);
out:
	free(dir);
	btc_plan_free(plan);
	btc_cli_inputs_free(&in);
	return d.errors ? 1 : 0;
}
