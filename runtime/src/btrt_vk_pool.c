/* Vulkan backend, buffers: unified buffers (HOST_VISIBLE, persistently
 * mapped), device-only, device-local mapped and host-only ones
 * (btrt_vk_place), and the descriptor set of every TaskObject. */
#include "btrt_vk_internal.h"

#include <stdlib.h>
#include <string.h>

/* Memory type for bits with the best of the listed property sets. */
static int pick_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
		     const VkMemoryPropertyFlags *want, int n)
{
	for (int w = 0; w < n; w++)
		for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
			if ((bits & (1u << i)) &&
			    (mp->memoryTypes[i].propertyFlags & want[w]) == want[w])
				return (int)i;
	return -1;
}

int btrt_vk_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
			enum btrt_vk_mem m)
{
	enum {
		DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
		HV = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
		HC = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		CA = VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
	};
	/* Unified: cached+coherent, coherent, cached (flush/invalidate), any
	 * host-visible. */
	static const VkMemoryPropertyFlags unified[] = {HV | HC | CA, HV | HC, HV | CA, HV};
	static const VkMemoryPropertyFlags device[] = {DL, 0};
	static const VkMemoryPropertyFlags mapped[] = {DL | HV | HC, DL | HV};
	if (m == BTRT_VK_MEM_DEVICE)
		return pick_type(mp, bits, device, 2);
	int t = m == BTRT_VK_MEM_DEVICE_MAPPED ? pick_type(mp, bits, mapped, 2) : -1;
	return t >= 0 ? t : pick_type(mp, bits, unified, 4);
}

/* Allocates and binds vb's memory for kind *m (buffer `name` of the
 * pool): DEVICE_MAPPED falls back to UNIFIED, and *m says so, where the
 * device lacks such memory or it runs out (a discrete GPU without
 * resizable BAR has 256 MiB of it). *fl: the memory type's flags.
 * Returns 0, or -1 with err. */
static int alloc_bind(struct btrt_vk *vk, struct vkbuf *vb, const char *name, enum btrt_vk_mem *m,
		      VkMemoryPropertyFlags *fl, struct btrt_error *err)
{
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(vk->dev, vb->buf, &mr);
	for (;;) {
		int ti = btrt_vk_memory_type(&vk->memp, mr.memoryTypeBits, *m);
		if (ti < 0)
			return btrt_error_set(err, BTRT_E_VULKAN, 0,
					      "no suitable memory type for buffer '%s'", name);
		*fl = vk->memp.memoryTypes[ti].propertyFlags;
		if (*m == BTRT_VK_MEM_DEVICE_MAPPED && !(*fl & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
			*m = BTRT_VK_MEM_UNIFIED; /* no device-local mapped type */
		VkMemoryAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
			.allocationSize = mr.size,
			.memoryTypeIndex = (uint32_t)ti,
		};
		VkResult r = vkAllocateMemory(vk->dev, &ai, NULL, &vb->mem);
		if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY && *m == BTRT_VK_MEM_DEVICE_MAPPED) {
			*m = BTRT_VK_MEM_UNIFIED;
			continue;
		}
		VKCHECK(r, err, "vkAllocateMemory(%s, %llu bytes)", name,
			(unsigned long long)mr.size);
		VKCHECK(vkBindBufferMemory(vk->dev, vb->buf, vb->mem, 0), err,
			"vkBindBufferMemory(%s)", name);
		return 0;
	}
fail:
	return -1;
}

int btrt_vk_pool_init(struct btrt_vk *vk, struct btrt_pool *pool, struct btrt_error *err)
{
	uint32_t nb = pool->cfg.n_buffers, nt = pool->cfg.n_tasks;
	if (nb != vk->n_buffers)
		return btrt_error_set(err, BTRT_E_INVAL, 0,
			"pool has %u buffers, the Vulkan layout %u", nb, vk->n_buffers);
	struct vk_pool_state *ps = calloc(1, sizeof *ps);
	if (!ps)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	pool->backend_state = ps;
	ps->sets = calloc(nt, sizeof *ps->sets);
	ps->bufs = calloc((size_t)nt * nb + 1, sizeof *ps->bufs);
	if (!ps->sets || !ps->bufs)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	/* Test knob: treat coherent memory as non-coherent, so the flush /
	 * invalidate path runs on devices (llvmpipe, NVIDIA) that never need it. */
	int force_nc = vk->force_noncoherent;
	/* the schedule's GPU use and io.load's refills (borrowed; NULL: not
	 * known, so nothing is private, and io.load refills the buffers no
	 * stage writes) */
	const unsigned char *gpu_use = pool->cfg.gpu_touched, *io_loaded = pool->cfg.io_loaded;
	for (uint32_t s = 0; s < nt; s++) {
		for (uint32_t b = 0; b < nb; b++) {
			struct btrt_buffer *bf = btrt_pool_buf(pool, s, b);
			struct vkbuf *vb = &ps->bufs[(size_t)s * nb + b];
			const char *name = pool->descs[b].name;
			if (bf->placement == BTRT_PLACE_HOST) {
				void *m = NULL;
				size_t bytes = (bf->bytes + 63) / 64 * 64 + 64;
				uint64_t t0 = btrt_now_ns();
				if (posix_memalign(&m, 64, bytes))
					return btrt_error_set(err, BTRT_E_NOMEM, 0, "cannot allocate '%s'", name);
				btrt_pool_alloc_ms(pool, b, t0);
				btrt_pool_zero(pool, m, bytes);
				bf->host = bf->dev = m;
				pool->mem_kind[b] = "host";
				continue;
			}
			VkBufferCreateInfo bi = {
				.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				.size = bf->bytes ? (bf->bytes + 3) / 4 * 4 : 4,
				.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
					 VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
				.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
			};
			uint64_t t0 = btrt_now_ns();
			VKCHECK(vkCreateBuffer(vk->dev, &bi, NULL, &vb->buf), err, "vkCreateBuffer(%s)", name);
			int refilled = io_loaded ? io_loaded[b] : pool->descs[b].stage_read_only;
			enum btrt_vk_mem m = btrt_vk_place(&pool->descs[b], refilled,
							   gpu_use ? gpu_use[b] : BTRT_GPU_SHARED,
							   vk->host_private);
			VkMemoryPropertyFlags fl = 0;
			if (alloc_bind(vk, vb, name, &m, &fl, err))
				return -1;
			int dev = m == BTRT_VK_MEM_DEVICE;
			vb->coherent = dev || ((fl & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) && !force_nc);
			if (!dev) {
				void *map = NULL;
				VKCHECK(vkMapMemory(vk->dev, vb->mem, 0, VK_WHOLE_SIZE, 0, &map),
					err, "vkMapMemory(%s)", name);
				btrt_pool_alloc_ms(pool, b, t0);
				btrt_pool_zero(pool, map, bf->bytes);
				if (!vb->coherent) {
					VkMappedMemoryRange rg = {
						.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
						.memory = vb->mem, .offset = 0, .size = VK_WHOLE_SIZE,
					};
					vkFlushMappedMemoryRanges(vk->dev, 1, &rg);
				}
				bf->host = map;
			} else {
				btrt_pool_alloc_ms(pool, b, t0);
			}
			bf->dev = NULL;
			bf->backend = vb;
			const char *kind = dev                              ? "vk-device"
					   : m == BTRT_VK_MEM_DEVICE_MAPPED ? "vk-device-mapped"
					   : vb->coherent                   ? "vk-coherent"
									    : "vk-noncoherent";
			/* device-mapped only where every TaskObject got it (a small
			 * BAR may run out part way) */
			if (s == 0 || m != BTRT_VK_MEM_DEVICE_MAPPED)
				pool->mem_kind[b] = kind;
		}
	}
	/* One descriptor set per TaskObject covering every GPU-visible buffer. */
	if (nb) {
		VkDescriptorPoolSize sz = {
			.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = nt * nb,
		};
		VkDescriptorPoolCreateInfo dpi = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
			.maxSets = nt,
			.poolSizeCount = 1,
			.pPoolSizes = &sz,
		};
		VKCHECK(vkCreateDescriptorPool(vk->dev, &dpi, NULL, &ps->dp), err, "vkCreateDescriptorPool");
		for (uint32_t s = 0; s < nt; s++) {
			VkDescriptorSetAllocateInfo ai = {
				.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
				.descriptorPool = ps->dp,
				.descriptorSetCount = 1,
				.pSetLayouts = &vk->dsl,
			};
			VKCHECK(vkAllocateDescriptorSets(vk->dev, &ai, &ps->sets[s]), err, "vkAllocateDescriptorSets");
			for (uint32_t b = 0; b < nb; b++) {
				struct vkbuf *vb = &ps->bufs[(size_t)s * nb + b];
				if (!vb->buf)
					continue; /* host placement: never bound by a shader */
				VkDescriptorBufferInfo info = { .buffer = vb->buf, .offset = 0, .range = VK_WHOLE_SIZE };
				VkWriteDescriptorSet w = {
					.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
					.dstSet = ps->sets[s],
					.dstBinding = b,
					.descriptorCount = 1,
					.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
					.pBufferInfo = &info,
				};
				vkUpdateDescriptorSets(vk->dev, 1, &w, 0, NULL);
			}
			struct btrt_task *t = btrt_pool_slot(pool, s);
			t->vk_set = (void *)ps->sets[s];
		}
	}
	return 0;
fail:
	return -1;
}

void btrt_vk_pool_fini(struct btrt_vk *vk, struct btrt_pool *pool)
{
	struct vk_pool_state *ps = pool->backend_state;
	if (!ps)
		return;
	btrt_vk_queue_idle(vk);
	uint32_t nb = pool->cfg.n_buffers, nt = pool->cfg.n_tasks;
	if (ps->dp)
		vkDestroyDescriptorPool(vk->dev, ps->dp, NULL);
	for (uint32_t s = 0; ps->bufs && s < nt; s++)
		for (uint32_t b = 0; b < nb; b++) {
			struct vkbuf *vb = &ps->bufs[(size_t)s * nb + b];
			struct btrt_buffer *bf = btrt_pool_buf(pool, s, b);
			if (bf->placement == BTRT_PLACE_HOST) {
				free(bf->host);
				continue;
			}
			if (vb->buf)
				vkDestroyBuffer(vk->dev, vb->buf, NULL);
			if (vb->mem)
				vkFreeMemory(vk->dev, vb->mem, NULL); /* unmaps */
		}
	free(ps->sets);
	free(ps->bufs);
	free(ps);
	pool->backend_state = NULL;
}
