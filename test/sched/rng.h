/* The scheduler suites' random tables draw from splitmix64 (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", 2014): a
 * fixed seed gives every run the same tables. Each suite that includes
 * this header has a generator of its own (the state is static), seeded by
 * setting rng_state in its tests. */
#ifndef BTC_TEST_SCHED_RNG_H
#define BTC_TEST_SCHED_RNG_H

#include <stdint.h>

static uint64_t rng_state;

/* The next 32 random bits. */
static inline uint32_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* A number in lo..hi, inclusive (hi >= lo). */
static inline int rnd_in(int lo, int hi)
{
	return lo + (int)(rnd() % (uint32_t)(hi - lo + 1));
}

#endif
