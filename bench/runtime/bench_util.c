#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct btrt_pool *bench_pool(uint32_t n_tasks)
{
	struct btrt_pool_config pc = { .task_size = sizeof(struct btrt_task), .n_tasks = n_tasks,
				       .backend = BTRT_BACKEND_HOST };
	struct btrt_pool *pool;
	struct btrt_error err;
	if (btrt_pool_create(&pool, &pc, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	return pool;
}

struct btrt_run *bench_run(const struct btrt_pipeline_config *cfg)
{
	struct btrt_run *run;
	struct btrt_error err;
	if (btrt_pipeline_run(cfg, &run, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	return run;
}

int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_items_rounds(int argc, char **argv, uint64_t *items, int *rounds)
{
	int opt;
	while ((opt = getopt(argc, argv, "t:r:")) != -1) {
		if (opt == 't')
			*items = strtoull(optarg, NULL, 10);
		else if (opt == 'r')
			*rounds = atoi(optarg);
		else {
			fprintf(stderr, "usage: %s [-t items] [-r rounds]\n", argv[0]);
			exit(2);
		}
	}
	if (*rounds < 1 || *rounds > 32)
		*rounds = *rounds < 1 ? 1 : 32;
	if (*items < 20)
		*items = 20;
}
