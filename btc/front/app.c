/* The app model (front/app.h): names of its enums, lookups by name, the
 * evaluation of its expressions, its free; the loader is app_load.c. */
#include "front/app.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "front/yamldoc.h"
#include "util/str.h"

static const char *const backend_names[] = {"cpu", "cuda", "vulkan"};
static const struct {
	const char *name, *ctype;
	int size;
} elems[] = {
	[BTC_U8] = {"u8", "uint8_t", 1},    [BTC_I8] = {"i8", "int8_t", 1},
	[BTC_U16] = {"u16", "uint16_t", 2}, [BTC_I16] = {"i16", "int16_t", 2},
	[BTC_U32] = {"u32", "uint32_t", 4}, [BTC_I32] = {"i32", "int32_t", 4},
	[BTC_U64] = {"u64", "uint64_t", 8}, [BTC_I64] = {"i64", "int64_t", 8},
	[BTC_F32] = {"f32", "float", 4},    [BTC_F64] = {"f64", "double", 8},
};
static const char *const placement_names[] = {"unified", "host", "device"};

const char *btc_backend_name(enum btc_backend b)
{
	return backend_names[b];
}
const char *btc_elem_name(enum btc_elem e)
{
	return elems[e].name;
}
const char *btc_elem_ctype(enum btc_elem e)
{
	return elems[e].ctype;
}
int btc_elem_size(enum btc_elem e)
{
	return elems[e].size;
}
const char *btc_placement_name(enum btc_placement p)
{
	return placement_names[p];
}

static bool listed(const int *l, int n, int b)
{
	for (int i = 0; i < n; i++)
		if (l[i] == b)
			return true;
	return false;
}

bool btc_stage_reads(const struct btc_stage *s, int b)
{
	return listed(s->reads, s->n_reads, b);
}

bool btc_stage_writes(const struct btc_stage *s, int b)
{
	return listed(s->writes, s->n_writes, b);
}

bool btc_stage_has(const struct btc_stage *s, enum btc_backend b)
{
	switch (b) {
	case BTC_BACKEND_CPU:
		return s->cpu != NULL;
	case BTC_BACKEND_CUDA:
		return s->cuda != NULL;
	case BTC_BACKEND_VULKAN:
		return s->n_vk > 0;
	default:
		return false;
	}
}

int btc_app_stage_index(const struct btc_app *app, const char *name)
{
	for (int i = 0; i < app->n_stages; i++)
		if (!strcmp(app->stages[i].name, name))
			return i;
	return -1;
}

int btc_app_buffer_index(const struct btc_app *app, const char *name)
{
	for (int i = 0; i < app->n_buffers; i++)
		if (!strcmp(app->buffers[i].name, name))
			return i;
	return -1;
}

int btc_app_param_index(const struct btc_app *app, const char *name)
{
	for (int i = 0; i < app->n_params; i++)
		if (!strcmp(app->params[i].name, name))
			return i;
	return -1;
}

struct eval_env {
	const struct btc_app *app;
	int64_t repeat_index; /* < 0: `i` undefined */
};

static bool lookup(void *envp, const char *name, int64_t *value)
{
	struct eval_env *env = envp;
	if (env->repeat_index >= 0 && !strcmp(name, "i")) {
		*value = env->repeat_index;
		return true;
	}
	int p = btc_app_param_index(env->app, name);
	if (p < 0)
		return false;
	*value = env->app->params[p].value;
	return true;
}

bool btc_app_eval(const struct btc_app *app, const struct btc_expr *e, int64_t repeat_index,
		  int64_t *value, struct btc_diag *d)
{
	struct eval_env env = {app, repeat_index};
	return btc_expr_eval(e, lookup, &env, value, d);
}

void btc_app_free(struct btc_app *app)
{
	if (!app)
		return;
	for (int i = 0; i < app->n_params; i++)
		free(app->params[i].name);
	for (int i = 0; i < app->n_buffers; i++) {
		free(app->buffers[i].name);
		btc_expr_free(app->buffers[i].count);
	}
	for (int i = 0; i < app->n_stages; i++) {
		struct btc_stage *s = &app->stages[i];
		free(s->name);
		free(s->reads);
		free(s->writes);
		free(s->cpu);
		free(s->cuda);
		for (int k = 0; k < s->n_vk; k++) {
			struct btc_vk_dispatch *v = &s->vk[k];
			free(v->shader);
			free(v->shader_path);
			for (int j = 0; j < 3; j++)
				btc_expr_free(v->groups[j]);
			for (int j = 0; j < v->n_push; j++)
				btc_expr_free(v->push[j]);
			free(v->push);
		}
		free(s->vk);
	}
	for (int i = 0; i < app->n_cpu_sources; i++)
		free(app->cpu_sources[i]);
	for (int i = 0; i < app->n_cuda_sources; i++)
		free(app->cuda_sources[i]);
	for (int i = 0; i < app->n_includes; i++)
		free(app->includes[i]);
	free(app->cpu_sources);
	free(app->cuda_sources);
	free(app->includes);
	for (int i = 0; i < app->n_libs; i++)
		free(app->libs[i]);
	free(app->libs);
	free(app->params);
	free(app->buffers);
	free(app->stages);
	free(app->name);
	free(app->path);
	free(app->dir);
	free(app->io);
	free(app->input);
	free(app);
}
