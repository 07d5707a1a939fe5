/* cores.c: the cores the runtime suites pin their test threads to, and
 * the process's thread count. */
#include "suites.h"

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

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

int test_count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

void test_assert_threads_gone(int before)
{
	int after = test_count_threads();
	for (int i = 0; i < 1000 && after > before; i++) { /* up to 10 s when loaded */
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
		after = test_count_threads();
	}
	if (after > before)
		fprintf(stderr, "  (threads: %d before the run, %d after it) ", before, after);
	CU_ASSERT_TRUE(after <= before);
}
