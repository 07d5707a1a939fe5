/* The app model: a streaming application as a sequence of stages over one
 * TaskObject layout (docs/app-format.md). Loaded from APP.yaml. */
#ifndef BTC_APP_H
#define BTC_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "util/diag.h"
#include "front/expr.h"

enum btc_backend { BTC_BACKEND_CPU, BTC_BACKEND_CUDA, BTC_BACKEND_VULKAN, BTC_N_BACKENDS };
const char *btc_backend_name(enum btc_backend b);

enum btc_elem {
	BTC_U8,
	BTC_I8,
	BTC_U16,
	BTC_I16,
	BTC_U32,
	BTC_I32,
	BTC_U64,
	BTC_I64,
	BTC_F32,
	BTC_F64,
	BTC_N_ELEMS
};
/* YAML spelling ("f32"), C type ("float"), size in bytes. */
const char *btc_elem_name(enum btc_elem e);
const char *btc_elem_ctype(enum btc_elem e);
int btc_elem_size(enum btc_elem e);

enum btc_placement { BTC_PLACE_UNIFIED, BTC_PLACE_HOST, BTC_PLACE_DEVICE };
const char *btc_placement_name(enum btc_placement p);

/* Limits of one app, far above any real one (octree: 7 stages, 19
 * buffers); they keep hostile files from making the loader quadratic.
 * BTC_APP_MAX_STAGES is the scheduler's BTC_SCHED_MAX_STAGES; BTC_APP_MAX_PUSH
 * is the runtime's BTRT_VK_MAX_PUSH. */
#define BTC_APP_MAX_STAGES 1024
#define BTC_APP_MAX_BUFFERS 1024
#define BTC_APP_MAX_PARAMS 1024
#define BTC_APP_MAX_PUSH 32
#define BTC_APP_MAX_DISPATCHES (1 << 20) /* repeats summed over the app */

struct btc_param {
	char *name;
	int64_t value; /* default, possibly overridden with -D */
	struct btc_loc loc;
};

struct btc_buffer {
	char *name;
	enum btc_elem elem;
	struct btc_expr *count; /* element count over params */
	int64_t count_value;    /* count evaluated with the current params */
	enum btc_placement placement;
	/* scratch: true: one stage's working storage, whose value no later
	 * stage and no io check reads (docs/app-format.md); never an output,
	 * so a GPU chunk that alone touches it keeps it on the device */
	bool scratch;
	struct btc_loc loc;
	struct btc_loc scratch_loc; /* the `scratch` value (when set) */
};

/* One compute dispatch of a Vulkan stage (repeated `repeat` times, with the
 * name `i` bound to 0..repeat-1 in groups and push). */
struct btc_vk_dispatch {
	char *shader;               /* path as written, relative to the YAML dir */
	char *shader_path;          /* resolved path */
	struct btc_expr *groups[3]; /* NULL entries mean 1 */
	struct btc_expr **push;
	int n_push;
	int64_t repeat;
	struct btc_loc loc;
	struct btc_loc shader_loc;
};

struct btc_stage {
	char *name;
	int *reads, n_reads; /* buffer indices */
	int *writes, n_writes;
	char *cpu;                  /* C symbol or NULL */
	char *cuda;                 /* launcher symbol or NULL */
	struct btc_vk_dispatch *vk; /* NULL when no Vulkan kernel */
	int n_vk;
	struct btc_loc loc;
	struct btc_loc cpu_loc, cuda_loc; /* of the `cpu:` / `cuda:` values */
};

struct btc_app {
	char *name; /* C identifier */
	char *path; /* the YAML file */
	char *dir;  /* its directory ("." when none) */
	struct btc_param *params;
	int n_params;
	struct btc_buffer *buffers;
	int n_buffers;
	struct btc_stage *stages;
	int n_stages;
	char *io;                                       /* symbol of the btrt_app_io, or NULL */
	struct btc_loc io_loc;                          /* of the `io:` value */
	char *input;                                    /* default input path (resolved), or NULL */
	char **cpu_sources, **cuda_sources, **includes; /* resolved paths */
	int n_cpu_sources, n_cuda_sources, n_includes;
	char **libs; /* system libraries to link ("lzf"), -l names */
	int n_libs;
};

/* A `-D name=value` override of a param. */
struct btc_param_override {
	const char *name;
	int64_t value;
};

/* Loads and validates the app description at `path` (or from `text` when
 * not NULL; `path` then only names it). Reports every problem to d. On
 * success returns a new app (free with btc_app_free); on any error returns
 * NULL (no partial result). `overrides` (may be NULL) replace param
 * defaults before counts are evaluated; an unknown name is an error. */
struct btc_app *btc_app_load(const char *path, const char *text,
			     const struct btc_param_override *overrides, int n_overrides,
			     struct btc_diag *d);
void btc_app_free(struct btc_app *app);

/* btc_app_load for `btc header`: the same model and checks, except that
 * the shader and source files it names need not exist yet (the header is
 * what their author needs to write them). */
struct btc_app *btc_app_load_layout(const char *path, const struct btc_param_override *overrides,
				    int n_overrides, struct btc_diag *d);

/* True if stage s has a kernel for backend b. */
bool btc_stage_has(const struct btc_stage *s, enum btc_backend b);

/* True if stage s lists buffer index b in its reads / its writes. */
bool btc_stage_reads(const struct btc_stage *s, int b);
bool btc_stage_writes(const struct btc_stage *s, int b);

/* Index of the named stage / buffer / param, or -1. */
int btc_app_stage_index(const struct btc_app *app, const char *name);
int btc_app_buffer_index(const struct btc_app *app, const char *name);
int btc_app_param_index(const struct btc_app *app, const char *name);

/* Evaluates an expression against the app's params (and `i` = repeat_index
 * when repeat_index >= 0). Reports errors to d. */
bool btc_app_eval(const struct btc_app *app, const struct btc_expr *e, int64_t repeat_index,
		  int64_t *value, struct btc_diag *d);

#endif
