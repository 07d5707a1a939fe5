/* CUnit suites of the AlexNet apps; one file per suite, listed in suites.c
   and run by the shared runner (test/common/cunit_main.h). */
#ifndef ALEXNET_SUITES_H
#define ALEXNET_SUITES_H

#include <CUnit/CUnit.h>

#include "testutil.h"

/* Each returns 0, or -1 if registration failed. */
int alexnet_register_readers(void);
int alexnet_register_prune(void);
int alexnet_register_cpu(void);
/* Registers nothing and returns btc_test_skip() when there is no Vulkan
   device. */
int alexnet_register_vulkan(void);

/* Paths of the test data (btc_test_data: $BTC_DATA_DIR or data/). */
#define ALEXNET_IMAGES_REL "cifar10/sample_batch.bin"
#define ALEXNET_WEIGHTS_REL "alexnet-cifar10"
#define ALEXNET_IMAGES btc_test_data(ALEXNET_IMAGES_REL)
#define ALEXNET_WEIGHTS btc_test_data(ALEXNET_WEIGHTS_REL)
/* For a suite's init: 0 when the sample batch and the weights folder are
   there, else -1 with "missing test data: PATH" on stderr. */
#define ALEXNET_NEED_DATA() \
	(btc_test_need_data(ALEXNET_IMAGES_REL) || btc_test_need_data(ALEXNET_WEIGHTS_REL) ? -1 : 0)

/* The accuracy runs' sizes (docs/testing.md, "Default and full sizes"):
   the whole sample batch under BTC_TEST_FULL=1 (scripts/test --full, the
   network's 722 of 1153), else its first ALEXNET_QUICK_IMAGES images, of
   which the network classifies ALEXNET_QUICK_CORRECT correctly (the
   sequential reference's count on them; ref_correct is asserted equal
   too). The sparse app runs 10 batches of 128 (every image once, the last
   batch wrapping) in full, else ALEXNET_QUICK_BATCHES batches. */
#define ALEXNET_FULL_IMAGES 1153
#define ALEXNET_FULL_CORRECT 722
#define ALEXNET_QUICK_IMAGES 150
#define ALEXNET_QUICK_CORRECT 93
#define ALEXNET_QUICK_BATCHES 2
#define ALEXNET_N_IMAGES() (btc_test_full() ? ALEXNET_FULL_IMAGES : ALEXNET_QUICK_IMAGES)
#define ALEXNET_N_CORRECT() (btc_test_full() ? ALEXNET_FULL_CORRECT : ALEXNET_QUICK_CORRECT)

#endif
