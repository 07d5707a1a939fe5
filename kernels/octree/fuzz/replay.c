/* replay.c: runs the fuzz target over the files named on the command line
 * (regression runs of the corpus without libFuzzer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		long len;
		uint8_t *buf;
		if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		buf = malloc((size_t)len + 1);
		if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)len);
		free(buf);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
