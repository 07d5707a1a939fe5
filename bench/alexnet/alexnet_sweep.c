/* Accuracy of the sequential reference against the labels for several
   sparsities (magnitude pruning per layer, net.h): the table of
   docs/alexnet.md. Images run in parallel (OpenMP), each through the
   sequential reference.

   alexnet_sweep [-i IMAGES.bin] [-w WEIGHTS_DIR] [SPARSITY...]
   Defaults: the project's sample batch and weights, sparsities 0 10 ... 70;
   -1 means the dense network. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "btc_config.h"
#include "cifar.h"
#include "net.h"

int main(int argc, char **argv)
{
	const char *images = BTC_DATA_DIR "/cifar10/sample_batch.bin";
	const char *weights = BTC_DATA_DIR "/alexnet-cifar10";
	int opt;
	while ((opt = getopt(argc, argv, "i:w:")) != -1) {
		if (opt == 'i') {
			images = optarg;
		} else if (opt == 'w') {
			weights = optarg;
		} else {
			fprintf(stderr, "usage: %s [-i IMAGES.bin] [-w WEIGHTS_DIR] [SPARSITY...]\n",
				argv[0]);
			return 2;
		}
	}
	char err[1024];
	struct alexnet_weights dense;
	struct cifar_batch b;
	if (cifar_read(images, &b, err, sizeof err) != 0 ||
	    alexnet_weights_load(weights, &dense, err, sizeof err) != 0) {
		fprintf(stderr, "alexnet_sweep: %s\n", err);
		return 1;
	}
	static const int defaults[] = {0, 10, 20, 30, 40, 50, 60, 70};
	int n = argc - optind > 0 ? argc - optind : (int)(sizeof defaults / sizeof defaults[0]);
	for (int k = 0; k < n; k++) {
		int s = argc - optind > 0 ? atoi(argv[optind + k]) : defaults[k];
		struct alexnet_weights pruned;
		const struct alexnet_weights *w = &dense;
		if (s >= 0) {
			if (s > 100 || alexnet_prune(&dense, s, &pruned, NULL) != 0) {
				fprintf(stderr, "alexnet_sweep: bad sparsity %d or out of memory\n", s);
				return 1;
			}
			w = &pruned;
		}
		long correct = 0;
#pragma omp parallel for reduction(+ : correct) schedule(dynamic, 16)
		for (long i = 0; i < (long)b.n; i++) {
			float x[ALEXNET_IMAGE], logits[ALEXNET_CLASSES];
			cifar_normalise(&b, (size_t)i, x);
			alexnet_ref_forward(w, x, logits);
			correct += alexnet_argmax(logits, ALEXNET_CLASSES) == b.labels[i];
		}
		if (s >= 0)
			printf("sparsity %3d %%: %ld of %zu correct, %.1f %%\n", s, correct, b.n,
			       100.0 * (double)correct / (double)b.n);
		else
			printf("dense: %ld of %zu correct, %.1f %%\n", correct, b.n,
			       100.0 * (double)correct / (double)b.n);
		if (s >= 0)
			alexnet_weights_free(&pruned);
	}
	alexnet_weights_free(&dense);
	cifar_free(&b);
	return 0;
}
