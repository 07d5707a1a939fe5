/* Shared input/check state of the AlexNet apps (see io_common.h). */
#include "io_common.h"
#include "cifar.h"

#include <btrt.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct alexnet_io {
	const char *app;
	int64_t batch, sparsity;
	struct cifar_batch images;
	struct alexnet_weights dense;    /* as loaded */
	struct alexnet_weights pruned;   /* sparse only */
	struct alexnet_csr csr[ALEXNET_N_LAYERS];
	size_t n_batches;
	/* Reference logits, computed lazily by check. */
	float *ref_logits;               /* [n][10] */
	uint8_t *ref_done;               /* [n] */
	/* Slots whose weights load already wrote. */
	const void **slot_key;
	size_t n_slots;
	/* Guards ref_logits / ref_done and the tally: checks of different
	 * items may run at once (io_common.h, "Threads"). */
	pthread_mutex_t lock;
	/* Tally, over checked items. */
	uint64_t items, counted, correct, ref_correct, argmax_diff;
	double max_rel;
};

struct alexnet_io *alexnet_io_open(const char *app, const char *images, const char *weights_dir,
				   int64_t batch, int64_t sparsity, char *err, size_t errlen)
{
	if (batch < 1 || batch > (1 << 20)) {
		snprintf(err, errlen, "%s: param batch = %lld, expected 1..%d", app,
			 (long long)batch, 1 << 20);
		return NULL;
	}
	if (sparsity > 100) {
		snprintf(err, errlen, "%s: param sparsity = %lld, expected 0..100 (percent)", app,
			 (long long)sparsity);
		return NULL;
	}
	struct alexnet_io *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "%s: out of memory", app);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->app = app;
	s->batch = batch;
	s->sparsity = sparsity;
	if (!images)
		images = "data/cifar10/sample_batch.bin";
	if (cifar_read(images, &s->images, err, errlen) != 0)
		goto fail;
	char dir[4096];
	if (!weights_dir)
		weights_dir = getenv("ALEXNET_WEIGHTS");
	if (!weights_dir) {
		const char *slash = strrchr(images, '/');
		if (slash)
			snprintf(dir, sizeof dir, "%.*s/../alexnet-cifar10", (int)(slash - images),
				 images);
		else
			snprintf(dir, sizeof dir, "../alexnet-cifar10");
		weights_dir = dir;
	}
	if (alexnet_weights_load(weights_dir, &s->dense, err, errlen) != 0)
		goto fail;
	if (sparsity >= 0 && alexnet_prune(&s->dense, (int)sparsity, &s->pruned, s->csr) != 0) {
		snprintf(err, errlen, "%s: out of memory while pruning", app);
		goto fail;
	}
	size_t n = s->images.n;
	s->n_batches = (n + (size_t)batch - 1) / (size_t)batch;
	s->ref_logits = malloc(n * ALEXNET_CLASSES * sizeof(float));
	s->ref_done = calloc(n, 1);
	if (!s->ref_logits || !s->ref_done) {
		snprintf(err, errlen, "%s: out of memory", app);
		goto fail;
	}
	return s;
fail:
	alexnet_io_close(s, NULL);
	return NULL;
}

size_t alexnet_io_n_images(const struct alexnet_io *s)
{
	return s->images.n;
}

const struct alexnet_weights *alexnet_io_weights(const struct alexnet_io *s)
{
	return s->sparsity >= 0 ? &s->pruned : &s->dense;
}

const struct alexnet_csr *alexnet_io_csr(const struct alexnet_io *s)
{
	return s->sparsity >= 0 ? s->csr : NULL;
}

/* Position of row j of item seq in the pass: b * batch + j. */
static uint64_t row_pos(const struct alexnet_io *s, uint64_t seq, int64_t j)
{
	return (seq % s->n_batches) * (uint64_t)s->batch + (uint64_t)j;
}

void alexnet_io_fill_images(const struct alexnet_io *s, uint64_t seq, float *dst)
{
	for (int64_t j = 0; j < s->batch; j++)
		cifar_normalise(&s->images, row_pos(s, seq, j) % s->images.n,
				dst + (size_t)j * ALEXNET_IMAGE);
}

int alexnet_io_claim_slot(struct alexnet_io *s, uint32_t slot, const void *key)
{
	int rc = 1;
	pthread_mutex_lock(&s->lock); /* loads may run at once (io_common.h) */
	if (slot >= s->n_slots) {
		size_t n = (size_t)slot + 1;
		const void **k = realloc(s->slot_key, n * sizeof *k);
		if (!k) {
			pthread_mutex_unlock(&s->lock);
			return -1;
		}
		for (size_t i = s->n_slots; i < n; i++)
			k[i] = NULL;
		s->slot_key = k;
		s->n_slots = n;
	}
	if (s->slot_key[slot] == key)
		rc = 0;
	else
		s->slot_key[slot] = key;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* The reference logits of image img, computed on first use. Call with
 * s->lock held, or before the run (prepare). */
static const float *ref_logits(struct alexnet_io *s, size_t img)
{
	float *r = s->ref_logits + img * ALEXNET_CLASSES;
	if (!s->ref_done[img]) {
		float x[ALEXNET_IMAGE];
		cifar_normalise(&s->images, img, x);
		alexnet_ref_forward(alexnet_io_weights(s), x, r);
		s->ref_done[img] = 1;
	}
	return r;
}

/* prepare's images without a reference, shared by btrt_io_parallel's
 * threads. */
struct ref_share {
	struct alexnet_io *s;
	const size_t *need; /* distinct images */
};

static void ref_one(void *ctx, size_t k)
{
	struct ref_share *sh = ctx;
	ref_logits(sh->s, sh->need[k]); /* its own row and ref_done byte */
}

/* Before a run: the references of every image the run will check, on as
 * many threads as the process may use (each reference is sequential,
 * about 7.5 M multiply-adds, and writes only its own row; before a run
 * nothing else reads them), so a run starts about n / cores references
 * after its input opened, not n of them: the tuner runs each schedule's
 * program afresh for 28 tasks (on the dev box 28 references took 88 ms
 * one after the other, 48 ms on its two cores; the whole run 0.765 of
 * its time, docs/results/devbox-startup.md). Holds s->lock throughout;
 * threads that cannot be started leave their share to the caller. */
int alexnet_io_prepare(void *state, uint64_t n_items, char *err, size_t errlen)
{
	struct alexnet_io *s = state;
	(void)err;
	(void)errlen;
	/* Items past one pass over the images reuse these references. */
	uint64_t n = s->n_batches;
	if (n_items && n_items < n)
		n = n_items;
	size_t n_img = s->images.n, k = 0;
	uint8_t *want = calloc(n_img + 1, 1);
	size_t *need = malloc((n_img + 1) * sizeof *need);
	pthread_mutex_lock(&s->lock);
	for (uint64_t seq = 0; seq < n; seq++)
		for (int64_t j = 0; j < s->batch; j++) {
			size_t img = (size_t)(row_pos(s, seq, j) % n_img);
			if (!want || !need)
				ref_logits(s, img); /* out of memory: one by one */
			else if (!s->ref_done[img] && !want[img]) {
				want[img] = 1;
				need[k++] = img;
			}
		}
	struct ref_share sh = {.s = s, .need = need};
	btrt_io_parallel(k, ref_one, &sh);
	pthread_mutex_unlock(&s->lock);
	free(want);
	free(need);
	return 0;
}

int alexnet_io_check(struct alexnet_io *s, uint64_t seq, const float *logits,
		     const int32_t *pred, FILE *out, char *err, size_t errlen)
{
	size_t n = s->images.n;
	uint64_t counted = 0, correct = 0, ref_correct = 0, argmax_diff = 0;
	double worst = 0.0;
	int rc = 0;
	/* The references under the lock (computed once; prepare made them
	 * all before a timed run), the comparison outside it: a reference
	 * row, once done, is never written again. */
	pthread_mutex_lock(&s->lock);
	for (int64_t j = 0; j < s->batch; j++)
		ref_logits(s, (size_t)(row_pos(s, seq, j) % n));
	pthread_mutex_unlock(&s->lock);
	for (int64_t j = 0; j < s->batch; j++) {
		uint64_t pos = row_pos(s, seq, j);
		size_t img = (size_t)(pos % n);
		const float *x = logits + (size_t)j * ALEXNET_CLASSES;
		const float *r = s->ref_logits + img * ALEXNET_CLASSES;
		double num = 0.0, den = 0.0;
		for (int k = 0; k < ALEXNET_CLASSES; k++) {
			double d = fabs((double)x[k] - (double)r[k]);
			num = d > num || isnan(d) ? d : num;
			den = fmax(den, fabs((double)r[k]));
		}
		double rel = den > 0.0 ? num / den : num;
		if (!(rel <= worst))
			worst = rel;
		int am = alexnet_argmax(x, ALEXNET_CLASSES);
		if (!(rel <= ALEXNET_TOLERANCE) && rc == 0) {
			snprintf(err, errlen,
				 "%s: item %llu, row %lld (image %zu): logits differ from the "
				 "sequential reference, relative error %.3g > %.0e",
				 s->app, (unsigned long long)seq, (long long)j, img, rel,
				 ALEXNET_TOLERANCE);
			rc = -1;
		} else if (pred[j] != am && rc == 0) {
			snprintf(err, errlen,
				 "%s: item %llu, row %lld (image %zu): pred %d is not the argmax %d "
				 "of the logits",
				 s->app, (unsigned long long)seq, (long long)j, img, (int)pred[j], am);
			rc = -1;
		}
		if (pos >= n)
			continue; /* wrapped row of the last batch: not counted */
		int ra = alexnet_argmax(r, ALEXNET_CLASSES);
		counted++;
		correct += am == s->images.labels[img];
		ref_correct += ra == s->images.labels[img];
		argmax_diff += ra != am;
	}
	pthread_mutex_lock(&s->lock);
	s->items++;
	s->counted += counted;
	s->correct += correct;
	s->ref_correct += ref_correct;
	s->argmax_diff += argmax_diff;
	if (!(worst <= s->max_rel))
		s->max_rel = worst;
	pthread_mutex_unlock(&s->lock);
	if (out)
		fprintf(out, "%s item %llu: %llu images counted, %llu correct, max rel. error %.2e%s\n",
			s->app, (unsigned long long)seq, (unsigned long long)counted,
			(unsigned long long)correct, worst, rc ? " MISMATCH" : "");
	return rc;
}

void alexnet_io_accuracy(const struct alexnet_io *s, uint64_t *counted, uint64_t *correct,
			 uint64_t *ref_correct)
{
	if (counted)
		*counted = s->counted;
	if (correct)
		*correct = s->correct;
	if (ref_correct)
		*ref_correct = s->ref_correct;
}

void alexnet_io_close(struct alexnet_io *s, FILE *out)
{
	if (!s)
		return;
	if (out && s->items) {
		fprintf(out, "%s: accuracy %.1f %% (%llu of %llu images)", s->app,
			s->counted ? 100.0 * (double)s->correct / (double)s->counted : 0.0,
			(unsigned long long)s->correct, (unsigned long long)s->counted);
		if (s->sparsity >= 0)
			fprintf(out, " at sparsity %lld %%", (long long)s->sparsity);
		fprintf(out, "; sequential reference %llu; argmax differs on %llu; "
			     "max logit rel. error %.2e over %llu items\n",
			(unsigned long long)s->ref_correct, (unsigned long long)s->argmax_diff,
			s->max_rel, (unsigned long long)s->items);
	}
	cifar_free(&s->images);
	alexnet_weights_free(&s->dense);
	alexnet_weights_free(&s->pruned);
	alexnet_csr_free(s->csr);
	free(s->ref_logits);
	free(s->ref_done);
	free(s->slot_key);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
