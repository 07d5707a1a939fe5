/* The runtime's environment variables, read once (docs/runtime.md,
 * "Environment variables"). A program calls btrt_env_init at start
 * (btrt_env_read, then the process-wide ring options through
 * btrt_env_ring_config + btrt_ring_configure), then hands the values to
 * the runtime through its config structs (btrt_env_vk_config,
 * btrt_env_cuda_config, btrt_env_pool_config, btrt_env_pipeline_config).
 * Library code reads no environment variable itself; btrt_omp_env_init
 * (btrt_pipeline.h, defined in btrt_env.c) is the one exception, as it
 * re-executes the program with OMP_WAIT_POLICY set. */
#ifndef BTRT_ENV_H
#define BTRT_ENV_H

#include "btrt.h"
#include "btrt_cuda.h"
#include "btrt_pipeline.h"
#include "btrt_pool.h"
#include "btrt_ring.h"
#include "btrt_vk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Vulkan devices and queues of a several-stream program
 * (docs/runtime.md, "Several streams"; btrt_vk_streams_choose): AUTO
 * chooses; ONE one device, its queues shared in turn (a queue per stream
 * while it has them); EACH a device (a GPU context) per stream; QUEUE one
 * device and one queue, every stream's submissions in it. */
enum btrt_vk_streams {
	BTRT_VK_STREAMS_AUTO, BTRT_VK_STREAMS_ONE, BTRT_VK_STREAMS_EACH, BTRT_VK_STREAMS_QUEUE
};

/* Every BTRT_* variable, parsed. A flag is 0 or 1 (an unset or empty
 * variable is 0); -1 / NULL / 0 mean unset where said. */
struct btrt_env {
	int no_pin;                /* BTRT_NO_PIN: 1 pins no thread */
	int no_membarrier;         /* BTRT_NO_MEMBARRIER: 1 seq_cst ring fallback */
	int64_t spin_ns;           /* BTRT_SPIN_NS, ns >= 0; -1: unset */
	int64_t yield_ns;          /* BTRT_YIELD_NS, ns >= 0; -1: unset */
	const char *vk_device;     /* BTRT_VK_DEVICE (index or name substring);
				    * NULL: unset; points into the environment */
	int vk_validation;         /* BTRT_VK_VALIDATION */
	int vk_force_noncoherent;  /* BTRT_VK_FORCE_NONCOHERENT (testing) */
	int vk_host_private;       /* BTRT_VK_PRIVATE=host (diagnostic) */
	enum btrt_vk_streams vk_streams; /* BTRT_VK_STREAMS=one|each|queue: the
				      Vulkan devices of a several-stream
				      program (btrt_workload_main); AUTO:
				      unset */
	enum btrt_vk_wait vk_wait; /* BTRT_VK_WAIT=block|spin: how a Vulkan
				      chunk waits for its fence
				      (btrt_vk_config.wait); DEFAULT: unset
				      (block) */
	int cuda_device;           /* BTRT_CUDA_DEVICE, ordinal >= 0; -1: unset */
	enum btrt_cuda_mem cuda_mem; /* BTRT_CUDA_MEM=managed|pinned; AUTO: unset */
	int cuda_move_all;         /* BTRT_CUDA_MOVE=all (diagnostic) */
	int cuda_io_managed;       /* BTRT_CUDA_IO_PINNED=0 (diagnostic) */
	int cuda_no_read_mostly;   /* BTRT_CUDA_READ_MOSTLY=0 (diagnostic) */
	int cuda_probe_private;    /* BTRT_CUDA_PRIVATE=probe (diagnostic) */
	const char *cuda_probe_file; /* BTRT_CUDA_PROBE_FILE: the placement
				      probe's results across processes
				      (btrt_cuda_config.probe_file); NULL:
				      unset */
	enum btrt_cuda_sync cuda_sync; /* BTRT_CUDA_SYNC=spin|yield|block */
	int pool_print;            /* BTRT_POOL_PRINT (diagnostic) */
	uint32_t check_threads;    /* BTRT_CHECK_THREADS, 1..BTRT_CHECK_THREADS_MAX
				      (the io sink's check farm); 0: unset */
	uint32_t load_threads;     /* BTRT_LOAD_THREADS, 1..BTRT_LOAD_THREADS_MAX
				      (the io source's load farm); 0: unset */
	int io_copy_memcpy;        /* BTRT_IO_COPY=memcpy (diagnostic):
				      btrt_io_copy as plain memcpy, to race
				      the two copies in one program
				      (btrt_io_copy_configure) */
	uint32_t stop_timeout_s;   /* BTRT_STOP_TIMEOUT_S, 1..3600 s: how long a
				      SIGINT/SIGTERM stop may take before the
				      guard ends the process (btrt_watchdog.h);
				      0: unset (5 s) */
};

/* Reads and checks every variable above from the process environment into
 * *env (all fields set). A flag takes 0 or 1, a time a decimal integer of
 * ns in [0, 10^10], a device ordinal a decimal integer in [0, 1023], the
 * words their listed values. Returns 0, or -1 with err (BTRT_E_INVAL, the
 * message naming the variable and its value) for the first bad one; *env
 * then holds the defaults. Not thread-safe against setenv. */
int btrt_env_read(struct btrt_env *env, struct btrt_error *err);

/* What a program calls once at start: btrt_env_read, then the
 * process-wide ring options from it (btrt_env_ring_config,
 * btrt_ring_configure), before the first ring. Returns as btrt_env_read
 * (on -1 the rings keep their defaults). */
int btrt_env_init(struct btrt_env *env, struct btrt_error *err);

/* Fill the config fields the caller left unset from env: validation < 0,
 * device NULL and wait DEFAULT (vk), device < 0, mem AUTO and sync
 * DEFAULT (cuda), check_threads 0
 * and load_threads 0 (pipeline); the diagnostic and testing flags are or-ed in. */
void btrt_env_vk_config(const struct btrt_env *env, struct btrt_vk_config *cfg);
void btrt_env_cuda_config(const struct btrt_env *env, struct btrt_cuda_config *cfg);
void btrt_env_pool_config(const struct btrt_env *env, struct btrt_pool_config *cfg);
void btrt_env_pipeline_config(const struct btrt_env *env, struct btrt_pipeline_config *cfg);
void btrt_env_ring_config(const struct btrt_env *env, struct btrt_ring_config *cfg);

#ifdef __cplusplus
}
#endif

#endif
