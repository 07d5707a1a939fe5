/* cores.c: the cores the runtime suites pin their test threads to. */
#include "suites.h"

#include <sched.h>

void test_two_cores(int cores[2])
{
	cpu_set_t set;
	cores[0] = cores[1] = 0;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return;
	int k = 0;
	for (int c = 0; c < CPU_SETSIZE && k < 2; c++)
		if (CPU_ISSET(c, &set))
			cores[k++] = c;
	if (k == 1)
		cores[1] = cores[0];
}
