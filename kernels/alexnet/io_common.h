/* Input and output check shared by alexnet_dense_io and alexnet_sparse_io.

   Items: the input (a CIFAR-10 batch file of n images) is cut into
   n_batches = ceil(n / batch) batches; item seq holds batch
   b = seq % n_batches, whose row j is image (b * batch + j) % n. Rows with
   b * batch + j >= n (the tail of the last, partial batch) wrap around to
   the first images so that every TaskObject does the same work, but are not
   counted in the accuracy: one pass of n_batches items counts each image
   exactly once (dense, batch 1: 1153 items; sparse, batch 128: 10 items,
   the last with 1 counted image and 127 wrapped ones).

   Weights: constant, stored in TaskObject buffers; load fills them the first
   time it sees a slot (keyed by slot index and buffer address), so a pool
   pays the copy once per slot. A new pool needs a new open.

   Threads: load and check each run on one or several threads at once
   for different items (the io source's load farm and the io sink's check
   farm, docs/app-format.md "io"), beside each other. load holds the io's
   lock only to claim its slot (a TaskObject's weights are written by the
   one load that holds it); check only to look up (or compute, once) the
   references and to add to the tally; the copies and the comparison run
   outside it. */
#ifndef ALEXNET_IO_COMMON_H
#define ALEXNET_IO_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "net.h"

/* Relative error bound of the logits against the sequential reference:
   max_k |x_k - r_k| / max_k |r_k| over the 10 logits of an image. */
#define ALEXNET_TOLERANCE 1e-4

struct alexnet_io;

/* Opens images (a CIFAR-10 binary batch file; NULL: data/cifar10/sample_batch.bin
   relative to the working directory) and the weights in weights_dir (NULL:
   $ALEXNET_WEIGHTS if set, else the alexnet-cifar10 folder beside the
   images' folder). sparsity < 0: dense network; 0..100: weights pruned by
   magnitude per layer (alexnet_prune) and kept in CSR. app names the app in
   messages. Returns NULL with a message in err on any error. */
struct alexnet_io *alexnet_io_open(const char *app, const char *images, const char *weights_dir,
				   int64_t batch, int64_t sparsity, char *err, size_t errlen);
/* Number of images in the input file. */
size_t alexnet_io_n_images(const struct alexnet_io *s);
/* Writes the batch of item seq, normalised, to dst[batch][3][32][32]. */
void alexnet_io_fill_images(const struct alexnet_io *s, uint64_t seq, float *dst);
/* 1 if the weights of the TaskObject in slot (whose weight buffers start at
   key) must be written now, 0 if this state already filled them; records
   the fill. -1 when out of memory. */
int alexnet_io_claim_slot(struct alexnet_io *s, uint32_t slot, const void *key);
/* The weights the network uses: dense, or pruned (zeros kept) for sparse. */
const struct alexnet_weights *alexnet_io_weights(const struct alexnet_io *s);
/* CSR of every layer (sparse only; NULL for dense). */
const struct alexnet_csr *alexnet_io_csr(const struct alexnet_io *s);
/* Compares logits[batch][10] and pred[batch] of item seq with the reference
   (computed once per image and cached), tallies the accuracy and writes a
   digest line to out (NULL: silent). 0 on match, -1 with message in err. */
/* btrt_app_io.prepare: computes the sequential reference logits of every
 * image items 0..n_items-1 hold (n_items = 0: one pass over all images),
 * so checks during a timed run only compare. Returns 0. */
int alexnet_io_prepare(void *state, uint64_t n_items, char *err, size_t errlen);

int alexnet_io_check(struct alexnet_io *s, uint64_t seq, const float *logits,
		     const int32_t *pred, FILE *out, char *err, size_t errlen);
/* Accuracy so far: images counted and correctly classified (NULL allowed). */
void alexnet_io_accuracy(const struct alexnet_io *s, uint64_t *counted, uint64_t *correct,
			 uint64_t *ref_correct);
/* Prints the accuracy summary to out (NULL: silent) and frees s. */
void alexnet_io_close(struct alexnet_io *s, FILE *out);

#endif
