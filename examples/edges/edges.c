/* edges: CPU kernels and the io of the walk-through app (docs/app-format.md,
 * "Write your first app"). Input: CIFAR-10 binary records (1 label byte,
 * then 1024 R, 1024 G, 1024 B bytes). Output checked exactly, buffer by
 * buffer in stage order, against a sequential reference. */
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "edges_task.h"

#define RECORD (1 + 3 * 1024)

/* ---- the arithmetic, shared by the kernels and the reference ---------- */

static void gray_px(const struct edges_params *p, const uint8_t *rgb, uint32_t *gray, int64_t i)
{
	int64_t n = p->w * p->h;
	gray[i] = (77u * rgb[i] + 150u * rgb[n + i] + 29u * rgb[2 * n + i]) >> 8;
}

static int64_t clampi(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void blur_px(const struct edges_params *p, const uint32_t *gray, uint32_t *blur, int64_t i)
{
	int64_t x = i % p->w, y = i / p->w;
	uint32_t sum = 0;
	for (int64_t dy = -2; dy <= 2; dy++)
		for (int64_t dx = -2; dx <= 2; dx++)
			sum += gray[clampi(y + dy, 0, p->h - 1) * p->w + clampi(x + dx, 0, p->w - 1)];
	blur[i] = sum / 25u;
}

static int32_t at(const struct edges_params *p, const uint32_t *b, int64_t x, int64_t y)
{
	return (int32_t)b[clampi(y, 0, p->h - 1) * p->w + clampi(x, 0, p->w - 1)];
}

static void sobel_px(const struct edges_params *p, const uint32_t *blur, uint32_t *edge, int64_t i)
{
	int64_t x = i % p->w, y = i / p->w;
	int32_t gx = at(p, blur, x + 1, y - 1) + 2 * at(p, blur, x + 1, y) + at(p, blur, x + 1, y + 1) -
		     at(p, blur, x - 1, y - 1) - 2 * at(p, blur, x - 1, y) - at(p, blur, x - 1, y + 1);
	int32_t gy = at(p, blur, x - 1, y + 1) + 2 * at(p, blur, x, y + 1) + at(p, blur, x + 1, y + 1) -
		     at(p, blur, x - 1, y - 1) - 2 * at(p, blur, x, y - 1) - at(p, blur, x + 1, y - 1);
	edge[i] = (uint32_t)(abs(gx) + abs(gy));
}

static void hist_bin(const struct edges_params *p, const uint32_t *edge, uint32_t *hist, int64_t b)
{
	uint32_t count = 0, bins = (uint32_t)p->bins;
	for (int64_t i = 0; i < p->w * p->h; i++) {
		uint32_t k = edge[i] * bins / 2048u;
		count += (k < bins - 1 ? k : bins - 1) == (uint32_t)b;
	}
	hist[b] = count;
}

/* ---- CPU kernels -------------------------------------------------------- */

int edges_gray_cpu(struct edges_task *t)
{
#pragma omp parallel for
	for (int64_t i = 0; i < t->params->w * t->params->h; i++)
		gray_px(t->params, t->rgb, t->gray, i);
	return 0;
}

int edges_blur_cpu(struct edges_task *t)
{
#pragma omp parallel for
	for (int64_t i = 0; i < t->params->w * t->params->h; i++)
		blur_px(t->params, t->gray, t->blur, i);
	return 0;
}

int edges_sobel_cpu(struct edges_task *t)
{
#pragma omp parallel for
	for (int64_t i = 0; i < t->params->w * t->params->h; i++)
		sobel_px(t->params, t->blur, t->edge, i);
	return 0;
}

int edges_hist_cpu(struct edges_task *t)
{
#pragma omp parallel for
	for (int64_t b = 0; b < t->params->bins; b++)
		hist_bin(t->params, t->edge, t->hist, b);
	return 0;
}

/* ---- the io ------------------------------------------------------------- */

struct edges_state {
	struct edges_params p;
	uint8_t *images;        /* n images of 3 * w * h bytes, labels dropped */
	uint64_t n, n_ref;      /* images in the file; references computed */
	uint32_t *ref;          /* n_ref * (4 * w * h + bins): gray, blur, edge, hist */
	_Atomic uint64_t checked; /* checks may run at once (docs/app-format.md, "io") */
};

static void *io_open(const char *path, const void *params, char *err, size_t len)
{
	const struct edges_params *p = params;
	if (!path) { /* the io never sees the YAML's input: only --input or the build's default */
		snprintf(err, len, "no input: pass --input FILE (a CIFAR-10 batch .bin)");
		return NULL;
	}
	if (p->w * p->h != 1024) {
		snprintf(err, len, "CIFAR-10 images are 32x32, not w = %lld, h = %lld",
			 (long long)p->w, (long long)p->h);
		return NULL;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, len, "cannot open %s", path);
		return NULL;
	}
	struct edges_state *s = calloc(1, sizeof(*s));
	uint8_t rec[RECORD];
	s->p = *p;
	while (s && fread(rec, 1, RECORD, f) == RECORD) {
		uint8_t *grown = realloc(s->images, (s->n + 1) * (RECORD - 1));
		if (!grown)
			break;
		s->images = grown;
		memcpy(s->images + s->n++ * (RECORD - 1), rec + 1, RECORD - 1);
	}
	fclose(f);
	if (!s || s->n == 0) {
		snprintf(err, len, "%s: no complete CIFAR-10 record", path);
		if (s)
			free(s->images);
		free(s);
		return NULL;
	}
	return s;
}

static int io_load(void *state, uint64_t seq, void *task, char *err, size_t len)
{
	(void)err;
	(void)len;
	struct edges_state *s = state;
	struct edges_task *t = task;
	memcpy(t->rgb, s->images + (seq % s->n) * (RECORD - 1), RECORD - 1);
	return 1;
}

static size_t ref_words(const struct edges_params *p)
{
	return (size_t)(4 * p->w * p->h + p->bins);
}

/* The sequential reference of min(n_items, images) distinct images. */
static int io_prepare(void *state, uint64_t n_items, char *err, size_t len)
{
	struct edges_state *s = state;
	const struct edges_params *p = &s->p;
	int64_t n = p->w * p->h;
	s->n_ref = n_items < s->n ? n_items : s->n;
	s->ref = malloc(s->n_ref * ref_words(p) * sizeof(uint32_t));
	if (!s->ref) {
		snprintf(err, len, "out of memory for %llu references", (unsigned long long)s->n_ref);
		return -1;
	}
	for (uint64_t k = 0; k < s->n_ref; k++) {
		const uint8_t *rgb = s->images + k * (RECORD - 1);
		uint32_t *gray = s->ref + k * ref_words(p), *blur = gray + n, *edge = blur + n,
			 *hist = edge + n;
		for (int64_t i = 0; i < n; i++)
			gray_px(p, rgb, gray, i);
		for (int64_t i = 0; i < n; i++)
			blur_px(p, gray, blur, i);
		for (int64_t i = 0; i < n; i++)
			sobel_px(p, blur, edge, i);
		for (int64_t b = 0; b < p->bins; b++)
			hist_bin(p, edge, hist, b);
	}
	return 0;
}

/* Names the first buffer, in stage order, that differs. */
static int io_check(void *state, uint64_t seq, const void *task, FILE *out, char *err,
		    size_t len)
{
	struct edges_state *s = state;
	const struct edges_task *t = task;
	if (!s->ref && io_prepare(s, s->n, err, len)) /* prepare is optional for callers */
		return -1;
	int64_t n = s->p.w * s->p.h;
	const uint32_t *ref = s->ref + (seq % s->n_ref) * ref_words(&s->p);
	const struct { const char *name; const uint32_t *got; int64_t count; } bufs[] = {
		{"gray", t->gray, n}, {"blur", t->blur, n}, {"edge", t->edge, n},
		{"hist", t->hist, s->p.bins},
	};
	static const char *const writer[] = {"gray", "blur", "sobel", "hist"};
	uint32_t hash = 2166136261u;
	for (int b = 0; b < 4; b++) {
		for (int64_t i = 0; i < bufs[b].count; i++)
			if (bufs[b].got[i] != ref[i]) {
				snprintf(err, len, "buffer '%s' (stage '%s') differs first: [%lld] = %u, reference %u",
					 bufs[b].name, writer[b], (long long)i, bufs[b].got[i], ref[i]);
				return -1;
			}
		ref += bufs[b].count;
	}
	for (int64_t b = 0; b < s->p.bins; b++)
		hash = (hash ^ t->hist[b]) * 16777619u;
	atomic_fetch_add_explicit(&s->checked, 1, memory_order_relaxed);
	if (out)
		fprintf(out, "edges task %llu: histogram fnv %08x\n", (unsigned long long)seq, hash);
	return 0;
}

static void io_close(void *state, FILE *out)
{
	struct edges_state *s = state;
	if (out)
		fprintf(out, "edges: %llu tasks matched the reference exactly (%llu images)\n",
			(unsigned long long)atomic_load(&s->checked), (unsigned long long)s->n);
	free(s->images);
	free(s->ref);
	free(s);
}

const struct btrt_app_io edges_io = {io_open, io_load, io_check, io_close, io_prepare, 0, 0};
