/* The CUDA placement probe's results kept across the processes of one
 * tuning job (BTRT_CUDA_PROBE_FILE; btrt_cuda_pool.cu's probe): one line
 * per buffer size, "BYTES MANAGED_US PINNED_US". The tuner runs every
 * schedule's program afresh, and each run probed the same sizes again
 * (100-115 ms of an octree CUDA run's start on the H200) and could place
 * a buffer differently from the run before when the two kinds measured
 * close. With the file, the job's first run decides and the others
 * follow. */
#include "btrt_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int btrt_probe_file_find(const char *path, size_t bytes, double *managed_us, double *pinned_us)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return 0;
	char line[160];
	int found = 0;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned long long b;
		double m, p;
		char end;
		if (sscanf(line, "%llu %lf %lf %c", &b, &m, &p, &end) == 3 && b == bytes &&
		    m > 0 && p > 0) {
			*managed_us = m;
			*pinned_us = p;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

void btrt_probe_file_add(const char *path, size_t bytes, double managed_us, double pinned_us)
{
	char line[160];
	int n = snprintf(line, sizeof line, "%llu %.3f %.3f\n", (unsigned long long)bytes,
			 managed_us, pinned_us);
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	if (fd < 0 || n <= 0 || n >= (int)sizeof line) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* one write: lines of concurrent writers (O_APPEND) never interleave */
	ssize_t w = write(fd, line, (size_t)n);
	(void)w;
	close(fd);
}
