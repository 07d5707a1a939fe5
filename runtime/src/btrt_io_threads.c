/* How many check workers and loaders a pipeline's io runs (btrt_pipe.h;
 * docs/runtime.md, "The check farm", "The load farm"): pure functions of
 * its config, shared by the wiring (btrt_pipe.c) and the io threads. */
#include "btrt_pipe.h"

uint32_t btrt_io_check_threads(const struct btrt_pipeline_config *cfg)
{
	uint32_t k = cfg->check_threads ? cfg->check_threads : 1;
	if (!cfg->check || cfg->check_out || cfg->on_task_done || (cfg->io && cfg->io->check_serial))
		return 1;
	if (k > BTRT_CHECK_THREADS_MAX)
		k = BTRT_CHECK_THREADS_MAX;
	if (cfg->pool && k > btrt_pool_size(cfg->pool))
		k = btrt_pool_size(cfg->pool);
	return k ? k : 1;
}

uint32_t btrt_io_load_threads(const struct btrt_pipeline_config *cfg)
{
	uint32_t k = cfg->load_threads ? cfg->load_threads : 1;
	if (cfg->on_task_done || (cfg->io && cfg->io->load_serial))
		return 1;
	if (k > BTRT_LOAD_THREADS_MAX)
		k = BTRT_LOAD_THREADS_MAX;
	if (cfg->pool && k > btrt_pool_size(cfg->pool))
		k = btrt_pool_size(cfg->pool);
	return k ? k : 1;
}
