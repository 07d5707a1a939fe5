/* Vulkan backend entry points for builds without Vulkan. */
#include "btrt_internal.h"
#include "btrt_vk.h"

#define NOVK(err) btrt_error_set(err, BTRT_E_NODEV, 0, "btrt was built without Vulkan")

int btrt_vk_create(struct btrt_vk **out, const struct btrt_vk_config *cfg, struct btrt_error *err)
{
	*out = NULL;
	return NOVK(err);
}
void btrt_vk_destroy(struct btrt_vk *vk) {}
const char *btrt_vk_device_name(const struct btrt_vk *vk) { return "none"; }
uint32_t btrt_vk_validation_errors(const struct btrt_vk *vk) { return 0; }
uint32_t btrt_vk_queue_index(const struct btrt_vk *vk) { return 0; }
uint32_t btrt_vk_queue_count(const struct btrt_vk *vk) { return 1; }
int btrt_vk_cpu_device(const struct btrt_vk *vk) { return 0; }
int btrt_vk_same_device(const struct btrt_vk *a, const struct btrt_vk *b) { return 0; }
int btrt_vk_list_devices(FILE *out) { return -1; }
int btrt_vk_pool_init(struct btrt_vk *vk, struct btrt_pool *pool, struct btrt_error *err) { return NOVK(err); }
void btrt_vk_pool_fini(struct btrt_vk *vk, struct btrt_pool *pool) {}
int btrt_vk_chunk_init(struct btrt_vk *vk, const struct btrt_pipeline_config *cfg, uint32_t c,
		       void **state, struct btrt_error *err) { return NOVK(err); }
int btrt_vk_chunk_exec(void *state, struct btrt_task *t, struct btrt_gpu_time *times,
		       struct btrt_error *err) { return NOVK(err); }
void btrt_vk_chunk_fini(void *state) {}
