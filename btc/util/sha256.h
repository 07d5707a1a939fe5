/* SHA-256 (FIPS 180-4): content hashes for provenance, so generated files
 * name an input by its bytes, not by where it lay on the generating
 * machine. */
#ifndef BTC_SHA256_H
#define BTC_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct btc_sha256 {
	uint32_t h[8];
	uint64_t bytes; /* message length so far */
	unsigned char block[64];
	size_t used; /* bytes in block */
};

/* Starts a digest in *s (caller-owned; no allocation, cannot fail). */
void btc_sha256_init(struct btc_sha256 *s);
/* Adds n bytes of data (borrowed) to the digest in *s; cannot fail. */
void btc_sha256_update(struct btc_sha256 *s, const void *data, size_t n);
/* Writes the 32-byte digest. */
void btc_sha256_final(struct btc_sha256 *s, unsigned char digest[32]);

/* The digest of n bytes as 64 lowercase hex digits and a NUL into hex. */
void btc_sha256_hex(const void *data, size_t n, char hex[65]);

/* `file: "NAME", sha256: HEX` for a file: its last path component (a
 * double-quoted YAML scalar) and the digest of its contents, the fields of
 * a provenance line's flow map (caller frees). NULL when the file cannot
 * be read. */
char *btc_sha256_file_identity(const char *path);

#endif
