/*
 * sha256: SHA-256 (FIPS 180-4), streamed.
 *
 * The report marker (include/strata/marker.h) records each file strata
 * wrote by its size and SHA-256, so that a later run deletes only a file
 * whose bytes are the ones it wrote. Nothing is allocated.
 */
#ifndef STRATA_SHA256_H
#define STRATA_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

struct sha256 {
	uint32_t h[8];
	uint64_t len;                /* bytes hashed so far */
	unsigned char buf[64];       /* a partial block */
	size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);

/* The digest of everything given; `s` must be initialised again after. */
void sha256_final(struct sha256 *s, unsigned char out[SHA256_BYTES]);

/*
 * The two ways of hashing n whole blocks into h, which sha256_update()
 * chooses between (for tests, which check both): in C, and with the x86
 * SHA extensions, false (h untouched) when the CPU has none.
 */
void sha256_blocks_c(uint32_t h[8], const unsigned char *p, size_t n);
bool sha256_blocks_x86(uint32_t h[8], const unsigned char *p, size_t n);
bool sha256_x86_supported(void);

#endif
