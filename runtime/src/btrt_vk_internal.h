/* Private to the Vulkan backend (btrt_vk.c: instance and device;
 * btrt_vk_pool.c: buffers; btrt_vk_chunk.c: command recording and
 * fences): the context, the per-pool and per-chunk state, and the error
 * macro. */
#ifndef BTRT_VK_INTERNAL_H
#define BTRT_VK_INTERNAL_H

#include "btrt_internal.h"
#include "btrt_vk.h"

#include <pthread.h>
#include <stdatomic.h>
#include <vulkan/vulkan.h>

/* How long one chunk submission may take before it is reported as hung. */
#define BTRT_VK_FENCE_TIMEOUT_NS (120ull * 1000000000ull)

/* The instance and logical device, held by every context made on it
 * (btrt_vk_config.share): one GPU context, its queues handed out in
 * turn. Destroyed with its last context. */
struct btrt_vk_device {
	VkInstance inst;
	VkDevice dev;
	VkDebugUtilsMessengerEXT msgr;
	atomic_uint val_errors;
	atomic_uint refs;                  /* contexts holding it */
	pthread_mutex_t mu;                /* next */
	uint32_t next;                     /* the queue the next context takes */
	uint32_t n_queues;
	VkQueue *queues;                   /* [n_queues] */
	pthread_mutex_t *qmu;              /* [n_queues]: vkQueueSubmit and
					      vkQueueWaitIdle need external sync */
};

struct btrt_vk {
	struct btrt_vk_device *d;          /* shared with the contexts made on it */
	VkInstance inst;                   /* d's, copied */
	VkPhysicalDevice phys;
	VkDevice dev;                      /* d's, copied */
	VkQueue queue;                     /* one of d's queues */
	uint32_t queue_index;
	uint32_t qfam;
	pthread_mutex_t *qmu;              /* the queue's mutex in d */
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties memp;
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkPipeline *pipes;                 /* [n_pipes] */
	uint32_t n_pipes;
	uint32_t n_buffers, push_bytes;
	int ts_ok;                         /* queue family has timestamps */
	double ts_period;                  /* ns per tick */
	uint64_t ts_mask;
	int force_noncoherent;             /* btrt_vk_config.force_noncoherent */
	int wait_spin;                     /* btrt_vk_config.wait == SPIN */
	int host_private;                  /* btrt_vk_config.host_private */
};

/* One Vulkan buffer of one TaskObject (btrt_buffer.backend). */
struct vkbuf {
	VkBuffer buf;
	VkDeviceMemory mem;
	int coherent;                      /* HOST_COHERENT, or device-only */
};

struct vk_pool_state {
	VkDescriptorPool dp;
	VkDescriptorSet *sets;             /* [n_tasks] */
	struct vkbuf *bufs;                /* [n_tasks * n_buffers] */
};

struct vk_chunk {
	struct btrt_vk *vk;
	struct btrt_pool *pool;
	uint32_t n_stages, n_slots;
	VkCommandPool cp;
	VkCommandBuffer *cbs;              /* [n_slots] */
	VkFence fence;
	VkQueryPool qp;                    /* 2 queries per stage per slot */
	uint32_t *flush;                   /* buffers read or written (flush before) */
	uint32_t n_flush;
	uint32_t *inval;                   /* buffers written (invalidate after) */
	uint32_t n_inval;
	int noncoherent;                   /* any of them non-coherent */
	uint64_t *ts;                      /* [2 * n_stages] scratch */
};

/* The memory type for a buffer of memory kind m (UNIFIED, DEVICE or
 * DEVICE_MAPPED) among the types in bits (VkMemoryRequirements), the
 * first of m's preferences mp offers: UNIFIED host-visible, coherent and
 * cached first (a discrete GPU's device-local-only BAR types would make
 * CPU kernels crawl, so they come last); DEVICE device-local, else any;
 * DEVICE_MAPPED device-local and host-visible, coherent first, else
 * UNIFIED's. Returns the index, or -1 when no type in bits fits. */
int btrt_vk_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
			enum btrt_vk_mem m);

/* Waits until vk's queue is idle (under its mutex): the context's own
 * work done, other contexts on the device left running. */
void btrt_vk_queue_idle(struct btrt_vk *vk);

/* The name of a VkResult ("VkResult" for one not listed); static storage. */
const char *btrt_vk_result_name(VkResult r);

#define VKCHECK(call, err, ...)                                                   \
	do {                                                                      \
		VkResult r_ = (call);                                             \
		if (r_ != VK_SUCCESS) {                                           \
			char w_[160];                                             \
			snprintf(w_, sizeof w_, __VA_ARGS__);                     \
			btrt_error_set(err, BTRT_E_VULKAN, (int)r_, "%s: %s (%d)", \
				       w_, btrt_vk_result_name(r_), (int)r_);                   \
			goto fail;                                                \
		}                                                                 \
	} while (0)

#endif
