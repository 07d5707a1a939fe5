/* Code generators. Each writes one artefact through a struct btc_out;
 * output is deterministic: declaration order, no timestamps, no absolute
 * paths (docs/conventions.md, "Generated code"). */
#ifndef BTC_GEN_H
#define BTC_GEN_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "sched/plan.h"
#include "util/out.h"

/* "X.Y": the version printed in banners of generated files. */
#define BTC_VERSION_SHORT "0.1"
/* The btrt version generated code is written for (checked with #error). */
#define BTC_RUNTIME_MAJOR 0
#define BTC_RUNTIME_MINOR 2

/* APP_task.h: params struct, buffer enum, TaskObject struct, buffer counts
 * and descriptors, kernel prototypes (docs/app-format.md). */
void btc_gen_task_header(struct btc_out *o, const struct btc_app *app);

/* APP_layout.glsl: `#define BINDING_<buffer> <index>` and
 * `#define PARAM_<param> <value>` for shaders. */
void btc_gen_layout_glsl(struct btc_out *o, const struct btc_app *app);

/* A compiled shader (unique by path), embedded as SPIR-V. */
struct btc_gen_shader {
	const char *path; /* resolved path (borrowed from the app) */
	char *ident;      /* C identifier of its array */
	uint32_t *words;
	size_t n_words;
};

/* Everything the project generator needs. Borrowed pointers. */
struct btc_gen_ctx {
	const struct btc_app *app;
	const struct btc_device *dev;
	const struct btc_plan_schedule *scheds; /* [n_scheds]: selectable at run time */
	int n_scheds;
	struct btc_gen_shader *shaders; /* [n_shaders], filled by btc_gen_compile_shaders */
	int n_shaders;
	const char *provenance; /* YAML lines for schedule.yaml (table, mode, objective) */
	/* The profiling table the schedules were planned on (NULL: none) and
	 * its mode: compiled into pipeline.c as the cost model of --adapt. */
	const struct btc_table *table;
	enum btc_mode mode;
};

/* Compiles every Vulkan shader the app uses (each path once) into
 * ctx->shaders, serving `#include "APP_layout.glsl"` from the generated
 * layout. Reports shader errors as file:line diagnostics. */
bool btc_gen_compile_shaders(struct btc_gen_ctx *ctx, struct btc_diag *d);
void btc_gen_free_shaders(struct btc_gen_ctx *ctx);

/* pipeline.c from templates/pipeline.c.in. */
bool btc_gen_pipeline_c(struct btc_out *o, const struct btc_gen_ctx *ctx, struct btc_diag *d);
/* profiler.c from templates/profiler.c.in: BT-Profiler for this device. */
bool btc_gen_profiler_c(struct btc_out *o, const struct btc_gen_ctx *ctx, struct btc_diag *d);
/* APP_spirv.h: the SPIR-V arrays and the btrt_vk_shader table. */
void btc_gen_spirv_header(struct btc_out *o, const struct btc_gen_ctx *ctx);
/* schedule.yaml: which schedules, table and btc version made the project. */
void btc_gen_schedule_yaml(struct btc_out *o, const struct btc_gen_ctx *ctx);

/* Writes the whole project into out_dir: pipeline.c, APP_task.h,
 * APP_spirv.h, schedule.yaml, meson.build, meson_options.txt, the app's
 * kernel sources (under app/) and the runtime sources (under btrt/).
 * Files whose bytes did not change are not rewritten. */
bool btc_gen_project(const struct btc_gen_ctx *ctx, const char *out_dir, struct btc_diag *d);

/* Compiles the app's shaders when the device has a Vulkan PU (into
 * ctx->shaders: release with btc_gen_free_shaders, also after a failure),
 * then writes the project (btc_gen_project). Reports and returns false
 * when either fails. */
bool btc_gen_write_project(struct btc_gen_ctx *ctx, const char *out_dir, struct btc_diag *d);

#endif
