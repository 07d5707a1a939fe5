/* The Vulkan pool's placement rule (btrt_vk.h: btrt_vk_place), kept free
 * of Vulkan calls so that it builds and is tested without a device. */
#include "btrt_pipeline.h"
#include "btrt_vk.h"

enum btrt_vk_mem btrt_vk_place(const struct btrt_buffer_desc *d, int io_loaded, int gpu_use,
			       int host_private)
{
	if (d->placement == BTRT_PLACE_HOST)
		return BTRT_VK_MEM_HOST;
	if (d->placement == BTRT_PLACE_DEVICE)
		return BTRT_VK_MEM_DEVICE;
	if (gpu_use == BTRT_GPU_PRIVATE && !io_loaded && !host_private)
		return BTRT_VK_MEM_DEVICE_MAPPED;
	return BTRT_VK_MEM_UNIFIED;
}
