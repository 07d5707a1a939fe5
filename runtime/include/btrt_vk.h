/* btrt_vk.h: Vulkan backend (instance, device, pipelines, chunk execution).
 *
 * A context: a VkInstance and a VkDevice (of its own, or shared with
 * other contexts: btrt_vk_config.share), one compute queue of that
 * device, one descriptor set layout with n_buffers storage-buffer bindings
 * (binding = buffer index in the TaskObject layout, set 0), one pipeline
 * layout with a push-constant range of push_bytes, and one compute pipeline
 * per shader (SPIR-V embedded as uint32_t arrays, see runtime/tools/glsl2h.py).
 * The pool (btrt_pool.h) allocates buffers and one descriptor set per
 * TaskObject from it; the pipeline records one command buffer per
 * (chunk, TaskObject) ahead of time and submits it with one VkFence per
 * chunk submission.
 *
 * Several streams (docs/runtime.md, "Several streams"): contexts made on
 * one device share one GPU context, the way CUDA streams of one process
 * share its primary context. Each context submits to a queue of its own
 * while the device has one left (NVIDIA's drivers list 16 in the first
 * compute family; llvmpipe 1), else the queues are shared in turn under
 * one mutex each; with btrt_vk_config.same_queue it submits to the queue
 * of the context it shares, so that the GPU runs every stream's command
 * buffers from one queue, one after the other in submission order.
 * Separate devices are separate GPU contexts, which the GPU time-slices;
 * NVIDIA's GPUs time-slice the queues of one device too (on the H100 a
 * 0.33 ms chunk took 1.02 ms from submit to fence with two streams on
 * two queues, 0.27 ms alone: docs/results/workload-h100.md, "Why the
 * Vulkan joint runs fall short").
 *
 * Environment:
 *   BTRT_VK_DEVICE=N|name   physical device by index (vkEnumeratePhysicalDevices
 *                           order) or case-insensitive name substring
 *                           ("llvmpipe", "H100"); default: first discrete,
 *                           else integrated, virtual, CPU (llvmpipe), other.
 *   BTRT_VK_VALIDATION=1    enable VK_LAYER_KHRONOS_validation (a warning on
 *                           stderr if it is not installed) and count its
 *                           error messages (btrt_vk_validation_errors).
 *   BTRT_VK_FORCE_NONCOHERENT=1  (testing) flush/invalidate mapped memory
 *                           as if it were not HOST_COHERENT.
 *   BTRT_VK_WAIT=block|spin how a chunk's thread waits for its fence
 *                           (btrt_vk_config.wait).
 *   BTRT_VK_PRIVATE=host    (diagnostic) a GPU chunk's private buffers in
 *                           host-visible memory like the rest, the rule
 *                           before btrt_vk_place's device-local one
 *                           (btrt_vk_config.host_private; default: device). */
#ifndef BTRT_VK_H
#define BTRT_VK_H

#include "btrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct btrt_vk;

/* One compute shader: SPIR-V words and entry point. */
struct btrt_vk_shader {
	const char *name;          /* for messages */
	const uint32_t *spirv;     /* SPIR-V words */
	size_t bytes;              /* size of spirv in bytes (sizeof the array) */
	const char *entry;         /* entry point; NULL: "main" */
};

/* How a chunk's thread waits for its submission's fence: DEFAULT is
 * BLOCK, vkWaitForFences (the driver puts the thread to sleep); SPIN
 * polls vkGetFenceStatus with a sched_yield between polls, so the thread
 * sees the fence as soon as it signals instead of when the driver wakes it
 * (issue 27: the H100's Vulkan streams waited 1.02 ms for 0.33 ms of GPU
 * work). Either way a fence not signalled after BTRT_VK_FENCE_TIMEOUT_NS
 * (120 s) is a hang (VK_TIMEOUT). */
enum btrt_vk_wait {
	BTRT_VK_WAIT_DEFAULT = 0,
	BTRT_VK_WAIT_BLOCK = 1,
	BTRT_VK_WAIT_SPIN = 2,
};

struct btrt_vk_config {
	const char *device;        /* index or name substring; NULL: default order */
	int validation;            /* 1 on, 0 (or -1, unset) off */
	int force_noncoherent;     /* (testing) 1: flush/invalidate as if no memory
				      were HOST_COHERENT */
	const struct btrt_vk *share; /* NULL: a device of its own; else share's
				      instance and device (device and
				      validation then ignored); either may
				      be destroyed first: the device goes
				      with its last context */
	uint32_t queues;           /* a device of its own: queues to create
				      (0: 1), at most the compute family's;
				      contexts sharing it take them in turn */
	int same_queue;            /* with share: 1 submits to share's queue
				      (its mutex serialises the submissions
				      of every context on it), 0 takes the
				      device's next queue in turn */
	enum btrt_vk_wait wait;    /* the fence wait of this context's chunks;
				      DEFAULT (0): block */
	int host_private;          /* (diagnostic) 1: a GPU chunk's private
				      buffers in host-visible memory, the
				      rule before (btrt_vk_place) */
	uint32_t n_buffers;        /* bindings 0 .. n_buffers-1 (the layout) */
	uint32_t push_bytes;       /* push-constant range; 0: 128 */
	const struct btrt_vk_shader *shaders; /* [n_shaders]; dispatch records index it */
	uint32_t n_shaders;
};

/* Creates the context. Returns 0, or -1 with err: BTRT_E_NODEV when there
 * is no Vulkan loader, no device, or no device matches (tests map this to
 * exit 77), BTRT_E_VULKAN (code = VkResult) otherwise. */
int btrt_vk_create(struct btrt_vk **out, const struct btrt_vk_config *cfg,
		   struct btrt_error *err);

/* The memory of one unified buffer in a Vulkan pool (btrt_vk_place). */
enum btrt_vk_mem {
	BTRT_VK_MEM_UNIFIED = 0,       /* host-visible, host-cached where the
				      device offers it (system memory on a
				      discrete GPU), persistently mapped */
	BTRT_VK_MEM_HOST = 1,          /* aligned host memory (placement: host) */
	BTRT_VK_MEM_DEVICE = 2,        /* DEVICE_LOCAL, unmapped (placement:
				      device; btrt_buffer.host NULL) */
	BTRT_VK_MEM_DEVICE_MAPPED = 3, /* DEVICE_LOCAL and HOST_VISIBLE (a
				      discrete GPU's BAR, all memory of an
				      integrated one), mapped: the GPU reads
				      and writes its own memory, the CPU
				      still sees the buffer (slowly on a
				      discrete GPU: uncached, across the
				      bus); UNIFIED where the device has no
				      such memory or it runs out */
};

/* Where the Vulkan pool puts unified buffer d (docs/runtime.md, "Unified
 * buffers"); io_loaded: 1 where io.load refills it every task (where not
 * known, the pool passes d->stage_read_only); gpu_use: an enum
 * btrt_gpu_use (btrt_chunks_gpu_touched; BTRT_GPU_SHARED where the
 * schedule is not known). A pure function of its arguments (no Vulkan
 * call): placement host / device as declared; else
 * DEVICE_MAPPED for a buffer only a GPU chunk's stages use (PRIVATE: an
 * intermediate, or weights the CPU writes once per TaskObject), unless
 * io.load refills it every task (octree's points, AlexNet's images: the
 * CPU would write them across the bus) or host_private; else UNIFIED.
 * The Vulkan side of btrt_cuda_place's managed private intermediates: a
 * CPU chunk's or the io check's reads of a shared buffer stay cached and
 * fast, and the GPU stops reading and writing its own intermediates in
 * system memory across the bus. */
enum btrt_vk_mem btrt_vk_place(const struct btrt_buffer_desc *d, int io_loaded, int gpu_use,
			       int host_private);
/* Waits for the context's queue to go idle and destroys its layouts and
 * pipelines; the device and instance go with the last context holding
 * them (after waiting for the device to go idle). NULL allowed. Destroy
 * pools that use the context first. */
void btrt_vk_destroy(struct btrt_vk *vk);

/* deviceName of the selected physical device. */
const char *btrt_vk_device_name(const struct btrt_vk *vk);
/* The index of the context's queue in its device's compute family. */
uint32_t btrt_vk_queue_index(const struct btrt_vk *vk);
/* The number of queues of the context's device (>= 1). */
uint32_t btrt_vk_queue_count(const struct btrt_vk *vk);
/* 1 when the context's physical device is a CPU (VK_PHYSICAL_DEVICE_TYPE_CPU:
 * llvmpipe, whose queues are host threads that run at once), else 0. */
int btrt_vk_cpu_device(const struct btrt_vk *vk);
/* 1 when a and b are contexts on one device (one GPU context), else 0. */
int btrt_vk_same_device(const struct btrt_vk *a, const struct btrt_vk *b);
/* Validation-layer errors reported so far on the context's device (0 when
 * validation is off). */
uint32_t btrt_vk_validation_errors(const struct btrt_vk *vk);
/* Lists the physical devices ("index: name (type)") to out. Returns the
 * number of devices, or -1 if no Vulkan instance can be created. */
int btrt_vk_list_devices(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
