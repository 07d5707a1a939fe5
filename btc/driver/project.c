#include "driver/project.h"

#include "driver/build.h"
#include "gen/gen.h"

bool btc_project_make(const struct btc_plan *plan, const char *dir, bool build, bool force,
		      bool *built, int *n_shaders, struct btc_diag *d)
{
	const struct btc_device *dev = plan->dev;
	struct btc_gen_ctx ctx = {.app = plan->app,
				  .dev = dev,
				  .plan = plan,
				  .scheds = plan->schedules,
				  .n_scheds = plan->n_schedules,
				  .provenance = plan->provenance,
				  .force = force};
	bool ok = btc_gen_write_project(&ctx, dir, d);
	if (n_shaders)
		*n_shaders = ctx.n_shaders;
	*built = false;
	if (ok && build)
		ok = btc_job_build(dir, dev, built, d);
	btc_gen_free_shaders(&ctx);
	return ok;
}
