/* The device model: the processing units (PUs) of a target, loaded from
 * devices/NAME.yaml or detected on the machine btc runs on (`host`). */
#ifndef BTC_DEVICE_H
#define BTC_DEVICE_H

#include <stdbool.h>
#include <stdio.h>

#include "front/app.h"
#include "util/diag.h"

#define BTC_MAX_PUS 16

/* One processing unit: a CPU cluster (or a group of its cores), or a GPU
 * reached through one backend. */
struct btc_pu {
	char *name;            /* unique, C identifier ("big", "gpu") */
	enum btc_backend kind; /* cpu, cuda or vulkan */
	int *cores, n_cores;   /* CPU core ids: the cluster (cpu) or where the
				     GPU dispatcher thread runs (may be empty) */
	char *core_type;       /* "Cortex-X1", or NULL */
	int max_freq_mhz;      /* 0 when unknown */
	char *gpu_name;        /* GPU: model name, or NULL */
	char *select;          /* GPU: device selector for the runtime
				     (index or name substring), or NULL */
	int subgroup_size;     /* GPU: warp/subgroup width, 0 unknown */
	int cuda_arch;         /* CUDA: compute capability * 10 (87 = sm_87), 0 unknown */
	bool unified_memory;   /* GPU shares DRAM with the CPU (SoC) */
	bool cpu_backed;       /* GPU is emulated on CPU cores (llvmpipe) */
	char *ref_column;      /* column name in reference-layout tables
				     (default: name; "vulkan"/"cuda" for GPUs) */
	int *pinnable, n_pinnable; /* CPU: the cores threads may be pinned to
				     (YAML `pinnable`: a subset of `cores`, in
				     the order chunks receive them; some phones
				     refuse a few); NULL / 0: all of `cores`.
				     Read it through btc_pu_pinnable. */
	struct btc_loc loc;
};

struct btc_device {
	char *name;
	char *description;
	char *os;         /* linux | android */
	char *arch;       /* x86_64 | aarch64 */
	char *cross_file; /* meson cross file (repo-relative), or NULL */
	struct btc_pu pus[BTC_MAX_PUS];
	int n_pus;
	char *path; /* YAML file, or "host" */
};

/* Loads devices/NAME.yaml (when `name_or_path` has no '/' and no ".yaml"
 * suffix, it is looked up in `device_dir`), or a path to a YAML file, or
 * detects the machine for "host". `text` (tests) parses that text instead
 * of reading a file. Reports every problem; returns NULL on any error. */
struct btc_device *btc_device_load(const char *name_or_path, const char *device_dir,
				   const char *text, struct btc_diag *d);

/* Detects this machine: CPU clusters from /sys (cpu_capacity, else
 * cpuinfo_max_freq; one cluster when neither exists), Vulkan physical
 * devices (libvulkan loaded with dlopen; CPU types marked cpu_backed) and
 * CUDA devices (libcuda loaded with dlopen, so btc never needs CUDA).
 * `sysfs_root` is "/sys" except in tests. Never fails: a machine with no
 * readable topology gets one CPU PU over the online cores. */
struct btc_device *btc_device_detect_host(const char *sysfs_root);

/* Splits every CPU PU with at least n cores into n PUs of consecutive
 * cores (names NAME0..NAME{n-1}); n <= 1 does nothing. Returns false and
 * reports when n exceeds a cluster's core count for every cluster or the
 * PU limit. Used for `--cpu-groups` and `cpu_groups:` in YAML. */
bool btc_device_split_cpus(struct btc_device *dev, int n, struct btc_diag *d);

/* Writes dev as device YAML that btc_device_load reads back. */
void btc_device_write_yaml(const struct btc_device *dev, FILE *out);

/* dev as a JSON object with the keys and values of its YAML
 * (btc_device_write_yaml; JSON is YAML, so btc_device_load reads it back
 * written to a file). Caller frees it with cJSON_Delete. */
struct cJSON *btc_device_to_json(const struct btc_device *dev);

/* The cores of pu that threads may be pinned to (its `pinnable` list, or
 * all its cores): *cores receives the array (borrowed from pu), the
 * return value its length. Chunks with a core count (issue 16) receive
 * disjoint runs of this list in chunk order; a schedule may not ask a PU
 * for more cores than this. */
int btc_pu_pinnable(const struct btc_pu *pu, const int **cores);

/* Index of the named PU, or -1. */
int btc_device_pu_index(const struct btc_device *dev, const char *name);

/* Lists the device descriptions in device_dir (sorted by name) to out. */
int btc_device_list(const char *device_dir, FILE *out, struct btc_diag *d);

void btc_device_free(struct btc_device *dev);

#endif
