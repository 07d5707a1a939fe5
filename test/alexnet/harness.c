/* Stage tables, pools, schedules and stage-by-stage comparison for the
   AlexNet tests and benchmark (harness.h). */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static const char *const stage_names[ALEXNET_N_STAGES + 1] = {
	"conv1", "pool1", "conv2", "pool2", "conv3", "conv4", "conv5", "pool3", "linear", "argmax",
};
/* Layer (weights) of each stage, -1 for pooling. */
static const int stage_layer[ALEXNET_N_STAGES] = {0, -1, 1, -1, 2, 3, 4, -1, 5};

/* Kernels through the runtime's void * signature (a call through a cast
   function pointer would be undefined behaviour). */
#define CPU_THUNK(app, st) \
	static int app##_##st##_thunk(void *t) { return app##_##st##_cpu(t); }
CPU_THUNK(alexnet_dense, conv1)
CPU_THUNK(alexnet_dense, pool1)
CPU_THUNK(alexnet_dense, conv2)
CPU_THUNK(alexnet_dense, pool2)
CPU_THUNK(alexnet_dense, conv3)
CPU_THUNK(alexnet_dense, conv4)
CPU_THUNK(alexnet_dense, conv5)
CPU_THUNK(alexnet_dense, pool3)
CPU_THUNK(alexnet_dense, linear)
CPU_THUNK(alexnet_sparse, conv1)
CPU_THUNK(alexnet_sparse, pool1)
CPU_THUNK(alexnet_sparse, conv2)
CPU_THUNK(alexnet_sparse, pool2)
CPU_THUNK(alexnet_sparse, conv3)
CPU_THUNK(alexnet_sparse, conv4)
CPU_THUNK(alexnet_sparse, conv5)
CPU_THUNK(alexnet_sparse, pool3)
CPU_THUNK(alexnet_sparse, linear)

static const btrt_cpu_kernel dense_cpu[ALEXNET_N_STAGES] = {
	alexnet_dense_conv1_thunk,
	alexnet_dense_pool1_thunk,
	alexnet_dense_conv2_thunk,
	alexnet_dense_pool2_thunk,
	alexnet_dense_conv3_thunk,
	alexnet_dense_conv4_thunk,
	alexnet_dense_conv5_thunk,
	alexnet_dense_pool3_thunk,
	alexnet_dense_linear_thunk,
};

static const btrt_cpu_kernel sparse_cpu[ALEXNET_N_STAGES] = {
	alexnet_sparse_conv1_thunk,
	alexnet_sparse_pool1_thunk,
	alexnet_sparse_conv2_thunk,
	alexnet_sparse_pool2_thunk,
	alexnet_sparse_conv3_thunk,
	alexnet_sparse_conv4_thunk,
	alexnet_sparse_conv5_thunk,
	alexnet_sparse_pool3_thunk,
	alexnet_sparse_linear_thunk,
};

void alexnet_app_init(struct alexnet_app *a, int sparse, int64_t batch, int64_t sparsity)
{
	memset(a, 0, sizeof *a);
	a->sparse = sparse;
	a->batch = batch;
	if (sparse) {
		a->name = "alexnet_sparse";
		a->sparse_params = (struct alexnet_sparse_params)ALEXNET_SPARSE_DEFAULT_PARAMS;
		a->sparse_params.batch = batch;
		a->sparse_params.sparsity = sparsity;
		a->buffers = alexnet_sparse_buffers;
		a->n_buffers = ALEXNET_SPARSE_N_BUFFERS;
		a->task_size = sizeof(struct alexnet_sparse_task);
		a->io = &alexnet_sparse_io;
		for (uint32_t b = 0; b < a->n_buffers; b++)
			a->counts[b] = alexnet_sparse_buffer_count(&a->sparse_params, (int)b);
	} else {
		a->name = "alexnet_dense";
		a->dense_params = (struct alexnet_dense_params)ALEXNET_DENSE_DEFAULT_PARAMS;
		a->dense_params.batch = batch;
		a->buffers = alexnet_dense_buffers;
		a->n_buffers = ALEXNET_DENSE_N_BUFFERS;
		a->task_size = sizeof(struct alexnet_dense_task);
		a->io = &alexnet_dense_io;
		for (uint32_t b = 0; b < a->n_buffers; b++)
			a->counts[b] = alexnet_dense_buffer_count(&a->dense_params, (int)b);
	}
	a->push_batch = (uint32_t)batch;
	for (int i = 0; i < ALEXNET_N_STAGES + 1; i++) {
		struct btrt_vk_dispatch *d = &a->vk[i];
		d->pipeline = (uint32_t)i;
		if (i < 8)      /* conv, pool: one invocation per output element */
			d->groups[0] = (uint32_t)BTRT_CEIL_DIV(a->counts[i + 1], 256);
		else if (i == 8) /* linear: one workgroup per logit */
			d->groups[0] = (uint32_t)(batch * 10);
		else            /* argmax: one per image */
			d->groups[0] = (uint32_t)BTRT_CEIL_DIV(batch, 64);
		d->groups[1] = d->groups[2] = 1;
		d->n_push = 1;
		d->push = &a->push_batch;
	}
	for (int i = 0; i < ALEXNET_N_STAGES; i++) {
		struct btrt_stage *s = &a->stages[i];
		s->name = stage_names[i];
		s->cpu = sparse ? sparse_cpu[i] : dense_cpu[i];
		s->vk = &a->vk[i];
		s->n_vk = i == 8 ? 2 : 1;
		uint32_t n = 0;
		a->reads[i][n++] = (uint32_t)i;
		int l = stage_layer[i];
		if (l >= 0) {
			/* dense: conv<l>_w, conv<l>_b; sparse: csr_rowptr, csr_colidx, csr_val, bias */
			uint32_t per = sparse ? 4 : 2, first = sparse ? 11 : 11 + 2 * (uint32_t)l;
			for (uint32_t k = 0; k < per; k++)
				a->reads[i][n++] = first + k;
		}
		s->reads = a->reads[i];
		s->n_reads = n;
		a->writes[i][0] = (uint32_t)i + 1;
		a->writes[i][1] = 10; /* pred */
		s->writes = a->writes[i];
		s->n_writes = i == 8 ? 2 : 1;
	}
}

int alexnet_app_load_spirv(struct alexnet_app *a, char *err, size_t errlen)
{
	const char *dir = getenv("ALEXNET_SPV_DIR");
	if (!dir)
		dir = ALEXNET_SPV_DIR;
	for (int i = 0; i < ALEXNET_N_STAGES + 1; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s_%s.spv", dir, a->name, stage_names[i]);
		FILE *f = fopen(path, "rb");
		long n = -1;
		if (f && fseek(f, 0, SEEK_END) == 0)
			n = ftell(f);
		if (!f || n <= 0 || n % 4 || fseek(f, 0, SEEK_SET) != 0) {
			snprintf(err, errlen, "%s: cannot read SPIR-V", path);
			if (f)
				fclose(f);
			return -1;
		}
		free(a->spirv[i]);
		a->spirv[i] = malloc((size_t)n);
		if (!a->spirv[i] || fread(a->spirv[i], 1, (size_t)n, f) != (size_t)n) {
			snprintf(err, errlen, "%s: cannot read SPIR-V", path);
			fclose(f);
			return -1;
		}
		fclose(f);
		a->shaders[i] = (struct btrt_vk_shader){stage_names[i], a->spirv[i], (size_t)n, NULL};
	}
	return 0;
}

void alexnet_app_free(struct alexnet_app *a)
{
	for (int i = 0; i < ALEXNET_N_STAGES + 1; i++) {
		free(a->spirv[i]);
		a->spirv[i] = NULL;
	}
}

int harness_vk(const struct alexnet_app *a, struct btrt_vk **out, struct btrt_error *err)
{
	struct btrt_vk_config cfg = {
		.device = NULL,
		.validation = -1,
		.n_buffers = a->n_buffers,
		.push_bytes = 0,
		.shaders = a->shaders,
		.n_shaders = ALEXNET_N_STAGES + 1,
	};
	struct btrt_env env; /* BTRT_VK_DEVICE, BTRT_VK_VALIDATION */
	if (btrt_env_read(&env, err))
		return -1;
	btrt_env_vk_config(&env, &cfg);
	return btrt_vk_create(out, &cfg, err);
}

int harness_pool(const struct alexnet_app *a, enum btrt_backend backend, struct btrt_vk *vk,
		 struct btrt_cuda *cuda, uint32_t n, struct btrt_pool **out,
		 struct btrt_error *err)
{
	struct btrt_pool_config cfg = {
		.task_size = a->task_size,
		.n_tasks = n,
		.buffers = a->buffers,
		.counts = a->counts,
		.n_buffers = a->n_buffers,
		.backend = backend,
		.vk = vk,
		.cuda = cuda,
	};
	if (btrt_pool_create(out, &cfg, err) != 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		void *t = btrt_pool_task(*out, i);
		if (a->sparse) {
			struct alexnet_sparse_task *st = t;
			st->params = &a->sparse_params;
			alexnet_sparse_task_bind(st);
		} else {
			struct alexnet_dense_task *dt = t;
			dt->params = &a->dense_params;
			alexnet_dense_task_bind(dt);
		}
	}
	return 0;
}

int harness_schedule(const char *s, struct btrt_chunk chunks[ALEXNET_N_STAGES])
{
	static const char *const names[] = {"cpu", "vk", "cuda"};
	int n = 0;
	uint32_t next = 0;
	while (*s) {
		char pu[8];
		unsigned first, last;
		int used = 0;
		if (n == ALEXNET_N_STAGES ||
		    sscanf(s, "%7[a-z]:%u-%u%n", pu, &first, &last, &used) != 3 || first != next ||
		    last < first || last >= ALEXNET_N_STAGES)
			return -1;
		struct btrt_chunk *c = &chunks[n];
		memset(c, 0, sizeof *c);
		if (strcmp(pu, "cpu") == 0)
			c->pu = BTRT_PU_CPU;
		else if (strcmp(pu, "vk") == 0)
			c->pu = BTRT_PU_VULKAN;
		else if (strcmp(pu, "cuda") == 0)
			c->pu = BTRT_PU_CUDA;
		else
			return -1;
		c->name = names[c->pu];
		c->first_stage = first;
		c->n_stages = last - first + 1;
		next = last + 1;
		n++;
		s += used;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return next == ALEXNET_N_STAGES ? n : -1;
}

/* The sample batch: $ALEXNET_IMAGES, else the test data folder's when
   $BTC_DATA_DIR is set or the checkout's data folder has it (tests run in
   the build folder), else NULL: the io's default,
   data/cifar10/sample_batch.bin relative to the working directory (carried
   binaries on the GPU machine run from the checkout's root). */
static const char *images_path(void)
{
	const char *p = getenv("ALEXNET_IMAGES");
	if (p)
		return p;
	p = btc_test_data("cifar10/sample_batch.bin");
	return getenv("BTC_DATA_DIR") || access(p, R_OK) == 0 ? p : NULL;
}

static const void *app_params(const struct alexnet_app *a)
{
	return a->sparse ? (const void *)&a->sparse_params : (const void *)&a->dense_params;
}

/* Runs the pipeline; on success leaves the pool and io state to the caller. */
static int run_pipeline(const struct alexnet_app *a, const char *schedule, uint64_t n_items,
			uint32_t pool_size, struct btrt_vk *vk, struct btrt_cuda *cuda, int check,
			struct btrt_run **run, struct btrt_pool **pool_out, void **state_out,
			char *msg, size_t msglen)
{
	struct btrt_chunk chunks[ALEXNET_N_STAGES];
	int n_chunks = harness_schedule(schedule, chunks);
	if (n_chunks < 0) {
		snprintf(msg, msglen, "bad schedule '%s'", schedule);
		return -1;
	}
	enum btrt_backend backend = BTRT_BACKEND_HOST;
	for (int i = 0; i < n_chunks; i++)
		if (chunks[i].pu == BTRT_PU_VULKAN)
			backend = BTRT_BACKEND_VULKAN;
		else if (chunks[i].pu == BTRT_PU_CUDA)
			backend = BTRT_BACKEND_CUDA;
	void *state = a->io->open(images_path(), app_params(a), msg, msglen);
	if (!state)
		return -1;
	struct btrt_error err;
	btrt_error_clear(&err);
	struct btrt_pool *pool = NULL;
	if (harness_pool(a, backend, vk, cuda, pool_size, &pool, &err) != 0) {
		snprintf(msg, msglen, "%s: pool: %s", a->name, err.msg);
		a->io->close(state, NULL);
		return -1;
	}
	struct btrt_pipeline_config cfg = {
		.app = a->name,
		.stages = a->stages,
		.n_stages = ALEXNET_N_STAGES,
		.chunks = chunks,
		.n_chunks = (uint32_t)n_chunks,
		.pool = pool,
		.io = a->io,
		.io_state = state,
		.n_items = n_items,
		.check = check,
		.check_out = NULL,
		.vk = vk,
		.cuda = cuda,
		/* two check workers and two loaders: alexnet_io_check and
		 * the loads run concurrently (the io's lock covers the slot
		 * claims, the references and the tally only) */
		.check_threads = 2,
		.load_threads = 2,
	};
	if (btrt_pipeline_run(&cfg, run, &err) != 0) {
		snprintf(msg, msglen, "%s on %s: %s", a->name, schedule, err.msg);
		btrt_pool_destroy(pool);
		a->io->close(state, NULL);
		return -1;
	}
	*pool_out = pool;
	*state_out = state;
	return 0;
}

int harness_run(const struct alexnet_app *a, const char *schedule, uint64_t n_items,
		uint32_t pool_size, struct btrt_vk *vk, struct btrt_cuda *cuda, int check,
		int keep_run, struct harness_result *res, FILE *summary_out, char *msg,
		size_t msglen)
{
	struct btrt_pool *pool;
	void *state;
	memset(res, 0, sizeof *res);
	struct btrt_run *run = NULL;
	if (run_pipeline(a, schedule, n_items, pool_size, vk, cuda, check, &run, &pool, &state,
			 msg, msglen) != 0) {
		btrt_run_free(run);
		return -1;
	}
	alexnet_io_accuracy(state, &res->counted, &res->correct, &res->ref_correct);
	a->io->close(state, summary_out);
	btrt_pool_destroy(pool);
	if (keep_run)
		res->run = run;
	else
		btrt_run_free(run);
	return 0;
}

/* Normwise relative error max|x - r| / max|r| over n elements. */
static double rel_err(const float *x, const float *r, size_t n)
{
	double num = 0.0, den = 0.0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)x[i] - (double)r[i]);
		if (d > num || isnan(d))
			num = d;
		den = fmax(den, fabs((double)r[i]));
	}
	return den > 0.0 ? num / den : num;
}

int harness_stages(const struct alexnet_app *a, const char *pu, uint64_t seq,
		   struct btrt_vk *vk, struct btrt_cuda *cuda, double worst[ALEXNET_N_STAGES],
		   char *msg, size_t msglen)
{
	char schedule[32];
	snprintf(schedule, sizeof schedule, "%s:0-8", pu);
	struct btrt_pool *pool;
	void *state;
	if (run_pipeline(a, schedule, seq + 1, 1, vk, cuda, 0, NULL, &pool, &state, msg,
			 msglen) != 0)
		return -1;
	struct btrt_task *t = btrt_pool_task(pool, 0);
	const struct alexnet_weights *w = alexnet_io_weights(state);
	/* Reference activations of one image: buffers 0..9 (image .. logits). */
	static const size_t per_image[10] = {3072, 16384, 4096, 8192, 2048, 4096, 4096, 4096, 1024, 10};
	float *ref[10];
	for (int i = 0; i < 10; i++)
		ref[i] = malloc(per_image[i] * sizeof(float));
	float *images = malloc((size_t)a->batch * ALEXNET_IMAGE * sizeof(float));
	alexnet_io_fill_images(state, seq, images);
	int rc = 0;
	for (int i = 0; i < ALEXNET_N_STAGES; i++)
		worst[i] = 0.0;
	for (int64_t n = 0; n < a->batch; n++) {
		memcpy(ref[0], images + n * ALEXNET_IMAGE, ALEXNET_IMAGE * sizeof(float));
		alexnet_ref_conv(ref[0], ref[1], w->w[0], w->b[0], 3, 16, 32);
		alexnet_ref_pool(ref[1], ref[2], 16, 32);
		alexnet_ref_conv(ref[2], ref[3], w->w[1], w->b[1], 16, 32, 16);
		alexnet_ref_pool(ref[3], ref[4], 32, 16);
		alexnet_ref_conv(ref[4], ref[5], w->w[2], w->b[2], 32, 64, 8);
		alexnet_ref_conv(ref[5], ref[6], w->w[3], w->b[3], 64, 64, 8);
		alexnet_ref_conv(ref[6], ref[7], w->w[4], w->b[4], 64, 64, 8);
		alexnet_ref_pool(ref[7], ref[8], 64, 8);
		alexnet_ref_linear(ref[8], ref[9], w->w[5], w->b[5], 1024, 10);
		for (int i = 0; i < ALEXNET_N_STAGES; i++) {
			const float *out = (const float *)t->buffers[i + 1].host + n * per_image[i + 1];
			double e = rel_err(out, ref[i + 1], per_image[i + 1]);
			if (!(e <= worst[i]))
				worst[i] = e;
			if (!(e <= ALEXNET_TOLERANCE) && rc == 0) {
				snprintf(msg, msglen,
					 "%s on %s, item %llu row %lld: stage %s differs from the "
					 "reference, relative error %.3g",
					 a->name, pu, (unsigned long long)seq, (long long)n,
					 stage_names[i], e);
				rc = -1;
			}
		}
		const int32_t *pred = t->buffers[10].host;
		if (rc == 0 && pred[n] != alexnet_argmax(ref[9], 10) &&
		    rel_err((const float *)t->buffers[9].host + n * 10, ref[9], 10) == 0.0) {
			snprintf(msg, msglen, "%s on %s: pred %d, reference argmax %d", a->name, pu,
				 (int)pred[n], alexnet_argmax(ref[9], 10));
			rc = -1;
		}
	}
	for (int i = 0; i < 10; i++)
		free(ref[i]);
	free(images);
	a->io->close(state, NULL);
	btrt_pool_destroy(pool);
	return rc;
}
