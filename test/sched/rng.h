/* The scheduler suites' random tables draw from splitmix64 (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", 2014): a
 * fixed seed gives every run the same tables. Each suite that includes
 * this header has a generator of its own (the state is static), seeded by
 * setting rng_state in its tests. */
#ifndef BTC_TEST_SCHED_RNG_H
#define BTC_TEST_SCHED_RNG_H

#include <math.h>
#include <stdint.h>

#include "sched/optimizer.h"

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

/* Half the time, the chunk model's terms on p (p->n_stages and n_pus set):
 * F_c in 0..2 ms on two PUs in three (fixed_ms = f, [n_pus]), T_io in
 * 0..10 ms one time in four (io_ms), and with several PUs half the time
 * transfers X in 0..3 ms (xfer_ms = x, [n_stages * n_pus * n_stages]);
 * times in steps of 0.1 us. */
static inline void rnd_model_terms(struct btc_sched_problem *p, double *f, double *x)
{
	int n = p->n_stages, np = p->n_pus;
	if (!rnd_in(0, 1))
		return;
	for (int c = 0; c < np; c++)
		f[c] = rnd_in(0, 2) ? rnd_in(0, 20000) / 1e4 : 0;
	p->fixed_ms = f;
	p->io_ms = rnd_in(0, 3) ? 0 : rnd_in(0, 100000) / 1e4;
	if (np > 1 && rnd_in(0, 1)) {
		for (int j = 0; j < n * np * n; j++)
			x[j] = rnd_in(0, 30000) / 1e4;
		p->xfer_ms = x;
	}
}

/* A random pin (btc_sched_options.pin) on the table time_ms[n * np]: stage
 * i to PU c, both drawn, in pin[n] (the other stages -1); NULL when c may
 * not run i (NAN) or is in forbid_mask (no pin, as options_init leaves it). */
static inline const int *rnd_pin(int *pin, const double *time_ms, int n, int np,
				 uint32_t forbid_mask)
{
	for (int i = 0; i < n; i++)
		pin[i] = -1;
	int i = rnd_in(0, n - 1), c = rnd_in(0, np - 1);
	if (isnan(time_ms[i * np + c]) || (forbid_mask & (1u << c)))
		return NULL;
	pin[i] = c;
	return pin;
}

#endif
