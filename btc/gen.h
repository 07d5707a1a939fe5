/* Code generators. Each writes one artefact through a struct btc_out;
 * output is deterministic: declaration order, no timestamps, no absolute
 * paths (STYLE.md 5). */
#ifndef BTC_GEN_H
#define BTC_GEN_H

#include "app.h"
#include "out.h"

/* "X.Y": the version printed in banners of generated files. */
#define BTC_VERSION_SHORT "0.1"
/* The btrt version generated code is written for (checked with #error). */
#define BTC_RUNTIME_MAJOR 0
#define BTC_RUNTIME_MINOR 1

/* APP_task.h: params struct, buffer enum, TaskObject struct, buffer counts
 * and descriptors, kernel prototypes (docs/app-format.md). */
void btc_gen_task_header(struct btc_out *o, const struct btc_app *app);

/* APP_layout.glsl: `#define BINDING_<buffer> <index>` and
 * `#define PARAM_<param> <value>` for shaders. */
void btc_gen_layout_glsl(struct btc_out *o, const struct btc_app *app);

#endif
