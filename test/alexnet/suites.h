/* CUnit suites of the AlexNet apps; one file per suite, run by runner.c. */
#ifndef ALEXNET_SUITES_H
#define ALEXNET_SUITES_H

#include <CUnit/CUnit.h>

/* Each returns 0, or -1 if registration failed. */
int alexnet_register_readers(void);
int alexnet_register_prune(void);
int alexnet_register_cpu(void);
/* Returns 77 (and registers nothing) when there is no Vulkan device. */
int alexnet_register_vulkan(void);

/* Paths of the project's data (BTC_DATA_DIR). */
#define ALEXNET_IMAGES BTC_DATA_DIR "/cifar10/sample_batch.bin"
#define ALEXNET_WEIGHTS BTC_DATA_DIR "/alexnet-cifar10"

#endif
