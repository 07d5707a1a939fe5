/* btrt_pool.h: the pool of TaskObjects and their unified buffers (UsmBuffer).
 *
 * A pool holds n_tasks TaskObjects (the multi-buffering depth of the
 * pipeline). Each TaskObject is a generated `struct APP_task` whose first
 * member is `struct btrt_task`; the pool allocates every buffer of the
 * layout for every TaskObject with one backend:
 *
 *   BTRT_BACKEND_HOST    aligned host memory (64-byte, posix_memalign)
 *   BTRT_BACKEND_VULKAN  one VkBuffer per buffer in HOST_VISIBLE memory,
 *                        mapped persistently (btrt_buffer.host); a GPU
 *                        chunk's private buffers in DEVICE_LOCAL mapped
 *                        memory where the device has it (btrt_vk_place);
 *                        device placement in DEVICE_LOCAL memory (host ==
 *                        NULL).
 *                        One VkDescriptorSet per TaskObject covering all
 *                        layout buffers, binding = buffer index.
 *   BTRT_BACKEND_CUDA    cudaMallocManaged (integrated GPUs, and discrete
 *                        ones where it measures faster), or pinned host
 *                        memory (cudaHostAlloc, mapped), chosen per buffer;
 *                        device placement via cudaMalloc (host == NULL).
 *
 * Generated code picks the backend from the PUs of the build: Vulkan if a
 * Vulkan PU exists, CUDA if a CUDA PU exists, else host (a pipeline uses at
 * most one GPU API). */
#ifndef BTRT_POOL_H
#define BTRT_POOL_H

#include "btrt.h"

#ifdef __cplusplus
extern "C" {
#endif

enum btrt_backend {
	BTRT_BACKEND_HOST = 0,
	BTRT_BACKEND_VULKAN = 1,
	BTRT_BACKEND_CUDA = 2,
};

struct btrt_vk;    /* btrt_vk.h */
struct btrt_cuda;  /* btrt_cuda.h */
struct btrt_pool;

struct btrt_pool_config {
	size_t task_size;          /* sizeof(struct APP_task), >= sizeof(struct btrt_task) */
	uint32_t n_tasks;          /* TaskObjects in the pool, >= 1 */
	const struct btrt_buffer_desc *buffers; /* [n_buffers], layout order */
	const size_t *counts;      /* [n_buffers] element counts (APP_buffer_count) */
	uint32_t n_buffers;
	enum btrt_backend backend;
	struct btrt_vk *vk;        /* required for BTRT_BACKEND_VULKAN */
	struct btrt_cuda *cuda;    /* required for BTRT_BACKEND_CUDA */
	/* [n_buffers] or NULL (unknown): 1 where io.load refills the buffer
	 * for every task (the profiler's `# io_loads:`). On a discrete CUDA
	 * GPU such a buffer that no stage writes is kept in pinned host
	 * memory, which GPU kernels read over the link: in managed memory
	 * the GPU's prefetch would move it to the device and the next
	 * io.load would move it back page by page (octree on an H100:
	 * io.load 1.9 ms instead of 0.6 ms per task). A Vulkan pool keeps
	 * it host-visible, not device-local (btrt_vk_place). Borrowed during
	 * btrt_pool_create only. */
	const unsigned char *io_loaded;
	/* [n_buffers] or NULL (the GPU may see every buffer: the profiler,
	 * --adapt): 0 where no stage of a GPU chunk of the run reads or
	 * writes the buffer (btrt_chunks_gpu_touched). A CUDA pool keeps such
	 * a buffer in plain host memory (BTRT_CUDA_KIND_HOST): pinning costs
	 * by the byte (octree's node array, 59 MB per TaskObject: about
	 * 200 ms of every CUDA run's start on the H200). Where the entry is
	 * BTRT_GPU_PRIVATE, a CUDA pool moves the buffer to the device
	 * (btrt_cuda_place) and a Vulkan pool allocates it device-local
	 * (btrt_vk_place). Borrowed during btrt_pool_create only. */
	const unsigned char *gpu_touched;
	int print;                 /* (diagnostic) 1: btrt_pool_print to stderr at creation */
};

/* Allocates the pool: n_tasks zeroed TaskObjects of task_size bytes (each
 * 64-byte aligned) and all their buffers (zero-filled where the CPU can see
 * them). Fills btrt_task.slot, n_buffers, buffers, vk_set and pool; seq is
 * set by the pipeline. The generated code then sets its typed fields
 * (APP_task_bind, params). Returns 0, or -1 with err filled (BTRT_E_NOMEM,
 * BTRT_E_VULKAN, BTRT_E_CUDA, BTRT_E_INVAL); on error nothing is leaked.
 * The vk / cuda context must outlive the pool. */
int btrt_pool_create(struct btrt_pool **out, const struct btrt_pool_config *cfg,
		     struct btrt_error *err);
/* Host memory in bytes that btrt_pool_create(cfg) would allocate: the
 * TaskObjects (task_size rounded up to 64 bytes), their buffer records,
 * and every buffer not placed on the device (each rounded up to 64 bytes;
 * Vulkan and CUDA unified memory counts as host memory). For checking a
 * requested pool size before allocating it. Returns 0 and sets *bytes, or
 * -1 if the total does not fit in 64 bits (or cfg is NULL). */
int btrt_pool_host_bytes(const struct btrt_pool_config *cfg, uint64_t *bytes);

/* Memory the system can still give this process without swapping, in
 * bytes: MemAvailable of /proc/meminfo (Linux, Android), else
 * sysconf(_SC_AVPHYS_PAGES) times the page size; 0 if unknown. */
uint64_t btrt_mem_available(void);

/* Frees all buffers and TaskObjects. NULL is allowed. */
void btrt_pool_destroy(struct btrt_pool *pool);

uint32_t btrt_pool_size(const struct btrt_pool *pool);
/* Where the pool's creation spent its time, ms: *probe_ms in the CUDA
 * placement probes (managed+prefetch against pinned, one per buffer size
 * a stage writes on a discrete GPU; 0 elsewhere), *zero_ms in zeroing the
 * buffers (memset, cudaMemset; on managed memory also the pages' first
 * touch). The rest of the creation is allocation. */
void btrt_pool_setup_ms(const struct btrt_pool *pool, double *probe_ms, double *zero_ms);
/* TaskObject i (0 <= i < size) as a `struct APP_task *` (cast it). */
void *btrt_pool_task(struct btrt_pool *pool, uint32_t i);
enum btrt_backend btrt_pool_backend(const struct btrt_pool *pool);

/* Short name of the memory kind chosen for buffer b ("host", "vk-coherent",
 * "vk-noncoherent", "vk-device-mapped", "vk-device", "cuda-managed",
 * "cuda-managed-read-mostly", "cuda-pinned", "cuda-device"), the same for
 * every TaskObject; "vk-device-mapped" only where every TaskObject got
 * such memory (the rest of a Vulkan pool's fall back once it runs out). */
const char *btrt_pool_buffer_memory(const struct btrt_pool *pool, uint32_t b);
/* Buffer b (< the layout's n_buffers): *bytes the bytes of one
 * TaskObject's copy (the layout's count under the run's params times the
 * element size), *alloc_ms the wall ms its allocation calls took over
 * every TaskObject (posix_memalign or mmap; vkCreateBuffer to vkMapMemory;
 * cudaMallocManaged with its advice, cudaHostAlloc with its device
 * pointer, cudaMalloc), the zeroing apart (btrt_pool_setup_ms). Returns
 * 0, or -1 when b is out of range. */
int btrt_pool_buffer_setup(const struct btrt_pool *pool, uint32_t b, uint64_t *bytes,
			   double *alloc_ms);
/* Prints one line per buffer: name, bytes, memory kind, and for CUDA on a
 * discrete GPU the measured managed+prefetch vs pinned times (us). */
void btrt_pool_print(const struct btrt_pool *pool, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
