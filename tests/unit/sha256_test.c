/*
 * sha256_test DIR: src/sha256.c, both of its ways.
 *
 * Writes files into DIR (empty, one byte, every length around the block
 * and padding edges, a few of some hundreds of KB) and prints, as
 * `sha256sum` does, the digest of each as sha256_update() gives it when
 * fed in pieces of random sizes: the script checks them with `sha256sum
 * -c`. Then, where the CPU has the SHA extensions, compares the C blocks
 * with the x86 ones on random states and random blocks (1 to 9 at a
 * call); where it has none it prints `skip: ...` for that part, since
 * sha256_update() then took the C way the digests checked.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "strata/sha256.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)next();
}

/* Write p[0..n) to DIR/NAME and print its digest, hashed in pieces. */
static void one_file(const char *dir, const char *name,
		     const unsigned char *p, size_t n)
{
	char path[4096];
	unsigned char d[SHA256_BYTES];
	struct sha256 s;
	size_t at = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(2);
	}
	sha256_init(&s);
	while (at < n) {
		size_t take = next() % 200 == 0 ? n - at : next() % 150;

		take = take > n - at ? n - at : take;
		sha256_update(&s, p + at, take);
		at += take;
	}
	sha256_final(&s, d);
	for (int i = 0; i < SHA256_BYTES; i++)
		printf("%02x", d[i]);
	printf("  %s\n", name);
}

static void files(const char *dir)
{
	static const size_t big[] = { 65536, 100000, 333333 };
	unsigned char *buf = malloc(333333);
	char name[64];

	if (!buf)
		exit(2);
	for (size_t n = 0; n <= 200; n++) {
		fill(buf, n);
		snprintf(name, sizeof(name), "len%zu", n);
		one_file(dir, name, buf, n);
	}
	for (size_t k = 0; k < sizeof(big) / sizeof(big[0]); k++) {
		fill(buf, big[k]);
		snprintf(name, sizeof(name), "big%zu", big[k]);
		one_file(dir, name, buf, big[k]);
	}
	/* FIPS 180-4's examples, which the script checks by sha256sum too. */
	one_file(dir, "abc", (const unsigned char *)"abc", 3);
	free(buf);
}

static void both_ways(void)
{
	unsigned char p[9 * 64];
	uint32_t hc[8], hx[8];

	if (!sha256_x86_supported()) {
		/* stderr too: the script keeps stdout for sha256sum -c. */
		fprintf(stderr, "skip: the C blocks against the x86 ones: this "
			"CPU has no SHA extensions\n");
		return;
	}
	for (int round = 0; round < 2000; round++) {
		size_t n = 1 + next() % 9;

		for (int i = 0; i < 8; i++)
			hc[i] = hx[i] = next();
		fill(p, n * 64);
		sha256_blocks_c(hc, p, n);
		CHECK(sha256_blocks_x86(hx, p, n), "x86 blocks refused");
		CHECK(!memcmp(hc, hx, sizeof(hc)),
		      "round %d, %zu blocks: C and x86 differ", round, n);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: sha256_test DIR\n");
		return 2;
	}
	files(argv[1]);
	both_ways();
	return failures ? 1 : 0;
}
