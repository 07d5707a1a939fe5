/* vecadd: CPU kernels and the io (synthetic input, exact output check). */
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "vecadd_task.h"

int vecadd_scale_cpu(struct vecadd_task *t)
{
	int64_t n = t->params->n;
#pragma omp parallel for
	for (int64_t i = 0; i < n; i++)
		t->y[i] = 2.0f * t->x[i];
	return 0;
}

int vecadd_add_cpu(struct vecadd_task *t)
{
	int64_t n = t->params->n;
#pragma omp parallel for
	for (int64_t i = 0; i < n; i++)
		t->z[i] = t->y[i] + t->x[i];
	return 0;
}

int vecadd_square_cpu(struct vecadd_task *t)
{
	int64_t n = t->params->n;
#pragma omp parallel for
	for (int64_t i = 0; i < n; i++)
		t->z[i] = t->z[i] * t->z[i];
	return 0;
}

/* Input of task seq: x[i] = ((seq * 31 + i) % 1000) / 8. */
static float input_value(uint64_t seq, int64_t i)
{
	return (float)((seq * 31 + (uint64_t)i) % 1000) / 8.0f;
}

struct vecadd_state {
	int64_t n;
	_Atomic uint64_t checked; /* checks may run at once (docs/app-format.md, "io") */
};

static void *io_open(const char *path, const void *params, char *err, size_t len)
{
	(void)path;
	struct vecadd_state *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	s->n = ((const struct vecadd_params *)params)->n;
	return s;
}

static int io_load(void *state, uint64_t seq, void *task, char *err, size_t len)
{
	(void)err;
	(void)len;
	struct vecadd_state *s = state;
	struct vecadd_task *t = task;
	for (int64_t i = 0; i < s->n; i++)
		t->x[i] = input_value(seq, i);
	return 1;
}

/* The sequential reference: the same three stages, in order. */
static int io_check(void *state, uint64_t seq, const void *task, FILE *out,
		    char *err, size_t len)
{
	struct vecadd_state *s = state;
	const struct vecadd_task *t = task;
	uint32_t hash = 2166136261u;
	for (int64_t i = 0; i < s->n; i++) {
		float x = input_value(seq, i), y = 2.0f * x, z = y + x;
		z = z * z;
		if (memcmp(&z, &t->z[i], sizeof(z)) != 0) {
			snprintf(err, len, "task %llu: z[%lld] = %g, reference %g",
				 (unsigned long long)seq, (long long)i, (double)t->z[i], (double)z);
			return -1;
		}
		uint32_t bits;
		memcpy(&bits, &z, sizeof(bits));
		hash = (hash ^ bits) * 16777619u;
	}
	atomic_fetch_add_explicit(&s->checked, 1, memory_order_relaxed);
	if (out)
		fprintf(out, "vecadd task %llu: %lld values, fnv %08x\n", (unsigned long long)seq,
			(long long)s->n, hash);
	return 0;
}

static void io_close(void *state, FILE *out)
{
	struct vecadd_state *s = state;
	if (out)
		fprintf(out, "vecadd: %llu tasks matched the reference exactly\n",
			(unsigned long long)atomic_load(&s->checked));
	free(s);
}

const struct btrt_app_io vecadd_io = {io_open, io_load, io_check, io_close, NULL, 0, 0};
