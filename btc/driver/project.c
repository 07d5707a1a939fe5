#include "driver/project.h"

#include "driver/job.h"
#include "gen/gen.h"

bool btc_project_make(const struct btc_app *app, const struct btc_device *dev,
		      const struct btc_plan_schedule *scheds, int n_scheds, const char *provenance,
		      const struct btc_table *table, enum btc_mode mode, const char *dir,
		      bool build, bool force, bool *built, int *n_shaders, struct btc_diag *d)
{
	struct btc_gen_ctx ctx = {app, dev, scheds, n_scheds, NULL, 0, provenance, table, mode, force};
	bool ok = btc_gen_write_project(&ctx, dir, d);
	if (n_shaders)
		*n_shaders = ctx.n_shaders;
	*built = false;
	if (ok && build)
		ok = btc_job_build(dir, dev, built, d);
	btc_gen_free_shaders(&ctx);
	return ok;
}
