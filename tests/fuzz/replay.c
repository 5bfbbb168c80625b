/*
 * replay FILE...: run a fuzz target's LLVMFuzzerTestOneInput() once on
 * each file, as libFuzzer would, without libFuzzer: `make test` builds
 * every tests/fuzz/fuzz_<name>.c with this driver and replays its corpus
 * (tests/t-fuzz-replay.sh). A crash is the test's failure; so is a file
 * that cannot be read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		fprintf(stderr, "replay: unable to open '%s'\n", path);
		return 1;
	}
	do {
		if (len == cap) {
			unsigned char *nb;

			cap = cap ? 2 * cap : 4096;
			if (!(nb = realloc(buf, cap))) {
				fclose(f);
				free(buf);
				fprintf(stderr, "replay: out of memory\n");
				return 1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	fclose(f);
	/* A copy of exactly len bytes, so that ASan sees reads past it. */
	{
		unsigned char *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return 1;
		}
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	for (i = 1; i < argc; i++)
		rc |= replay(argv[i]);
	return rc;
}
