/* The controller's tests of the "adapt" suite (suite_adapt_ctl.c). */
#ifndef SUITE_ADAPT_CTL_H
#define SUITE_ADAPT_CTL_H

#include <CUnit/CUnit.h>

/* Adds the controller's and the cost model's tests to s. Returns 0, or
 * nonzero when CUnit could not add one. */
int suite_adapt_ctl_add(CU_pSuite s);

#endif
