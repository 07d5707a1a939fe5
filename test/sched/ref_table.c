#include "ref_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STAGES 64

static const char *const columns[5] = { "little", "medium", "big", "vulkan",
					"cuda" };

int ref_table_load(const char *path, struct ref_table *t)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	double sum[MAX_STAGES][5] = { { 0 } };
	int runs[MAX_STAGES] = { 0 };
	bool present[5] = { false };
	char line[512];
	int n = 0, lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1)
			continue; /* header */
		int stage;
		double v[5];
		if (sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf", &stage, &v[0],
			   &v[1], &v[2], &v[3], &v[4]) != 6 ||
		    stage < 1 || stage > MAX_STAGES) {
			fprintf(stderr, "%s:%d: bad row\n", path, lineno);
			fclose(f);
			return -1;
		}
		for (int c = 0; c < 5; c++) {
			sum[stage - 1][c] += v[c];
			present[c] = present[c] || v[c] != 0.0;
		}
		runs[stage - 1]++;
		if (stage > n)
			n = stage;
	}
	fclose(f);
	int map[5], np = 0;
	for (int c = 0; c < 5; c++)
		if (present[c]) {
			map[np] = c;
			t->pu_names[np++] = columns[c];
		}
	t->n_stages = n;
	t->n_pus = np;
	t->time_ms = calloc((size_t)(n * np), sizeof(double));
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++)
			t->time_ms[i * np + c] = sum[i][map[c]] / runs[i];
	return 0;
}

void ref_table_free(struct ref_table *t)
{
	free(t->time_ms);
	t->time_ms = NULL;
}

const char *const ref_devices[2] = { "pixel7a", "jetson-orin-nano" };
const char *const ref_apps[3] = { "octree", "alexnet-dense", "alexnet-sparse" };

int ref_table_load_named(const char *profiles, const char *device, const char *app,
			 const char *mode, char *path, size_t n, struct ref_table *t)
{
	snprintf(path, n, "%s/%s/%s/%s.csv", profiles, device, app, mode);
	return ref_table_load(path, t);
}

struct btc_sched_problem ref_table_problem(const struct ref_table *t)
{
	return (struct btc_sched_problem){ .n_stages = t->n_stages,
					   .n_pus = t->n_pus,
					   .time_ms = t->time_ms,
					   .pu_names = t->pu_names };
}
