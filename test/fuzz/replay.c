/* Runs a fuzz target over files and directories of files (the committed
 * corpora), without libFuzzer: a regression test with any compiler. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		return -1;
	}
	size_t cap = 4096, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		abort();
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 1;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: cannot stat\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	DIR *dir = opendir(path);
	if (!dir)
		return -1;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), cmp);
	int count = 0;
	for (size_t i = 0; i < n; i++) {
		char *p = malloc(strlen(path) + strlen(names[i]) + 2);
		sprintf(p, "%s/%s", path, names[i]);
		int r = replay(p);
		count = r < 0 || count < 0 ? -1 : count + r;
		free(p);
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	int total = 0;
	for (int i = 1; i < argc; i++) {
		int r = replay(argv[i]);
		if (r < 0)
			return 1;
		total += r;
	}
	printf("replayed %d inputs\n", total);
	return total > 0 ? 0 : 1;
}
