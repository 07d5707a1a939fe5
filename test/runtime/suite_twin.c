/* The runtime's cost model is btc's: btrt_model_chunk_ms and
 * btrt_model_period_ms (runtime/include/btrt_adapt.h) against
 * btc_model_chunk_ms, btc_model_tmax_ms and btc_model_period_ms
 * (btc/sched/model.h) on the same data: random tables with NAN cells,
 * fixed costs, transfers and T_io; every chunk and random schedules. The
 * figures must be identical doubles (same terms, same order). Built only
 * with btc (-Dcompiler=true): test_adapt_twin. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <btrt_adapt.h>

#include "cunit_main.h"
#include "sched/model.h"
#include "sched/optimizer.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static void test_twin(void)
{
	uint64_t chunks = 0, scheds = 0;
	for (int round = 0; round < 200; round++) {
		int n = 1 + (int)(uniform() * 9), np = 1 + (int)(uniform() * 4);
		double *t = calloc((size_t)(n * np), sizeof *t);
		double *fixed = calloc((size_t)np, sizeof *fixed);
		double *x = calloc((size_t)(n * np * n), sizeof *x);
		for (int i = 0; i < n * np; i++)
			t[i] = uniform() < 0.1 ? NAN : uniform() * 10.0;
		for (int c = 0; c < np; c++)
			fixed[c] = uniform() < 0.5 ? 0.0 : uniform();
		for (int i = 0; i < n * np * n; i++)
			x[i] = uniform() * 0.3;
		int with_f = round % 3 != 0, with_x = round % 2 == 0;
		double io = round % 4 == 0 ? 0.0 : uniform() * 5.0;
		struct btc_sched_problem p = {
			.n_stages = n, .n_pus = np, .time_ms = t,
			.fixed_ms = with_f ? fixed : NULL, .xfer_ms = with_x ? x : NULL, .io_ms = io,
		};
		struct btrt_model m = { (uint32_t)n, (uint32_t)np, t, with_f ? fixed : NULL,
					with_x ? x : NULL, io, NULL, NULL };
		for (int c = 0; c < np; c++)
			for (int f = 0; f < n; f++)
				for (int l = f; l < n; l++) {
					double a = btc_model_chunk_ms(&p, c, f, l);
					double b = btrt_model_chunk_ms(&m, (uint32_t)c, (uint32_t)f,
								       (uint32_t)l);
					CU_ASSERT(isnan(a) ? isnan(b) : memcmp(&a, &b, sizeof a) == 0);
					chunks++;
				}
		/* random schedules: consecutive chunks on random distinct PUs */
		for (int k = 0; k < 20; k++) {
			struct btc_schedule s;
			memset(&s, 0, sizeof s);
			struct btrt_chunk ch[BTC_SCHED_MAX_PUS];
			uint32_t pus[BTC_SCHED_MAX_PUS];
			int used[BTC_SCHED_MAX_PUS] = { 0 }, f = 0;
			while (f < n && s.n_chunks < np) {
				int l = s.n_chunks == np - 1 ? n - 1
							    : f + (int)(uniform() * (n - f));
				int c;
				do
					c = (int)(uniform() * np);
				while (used[c]);
				used[c] = 1;
				s.chunks[s.n_chunks] = (struct btc_sched_chunk){ c, f, l, 0, 0, 0 };
				ch[s.n_chunks] = (struct btrt_chunk){ "c", BTRT_PU_CPU, NULL, 0,
								      (uint32_t)f,
								      (uint32_t)(l - f + 1), NULL, NULL, 0 };
				pus[s.n_chunks] = (uint32_t)c;
				s.n_chunks++;
				f = l + 1;
			}
			if (f < n)
				continue; /* did not cover the stages with np chunks */
			struct btrt_adapt_schedule rs = { "s", ch, (uint32_t)s.n_chunks, pus, 0, 0 };
			double tmax = btc_model_tmax_ms(&p, &s);
			double a = isnan(tmax) ? NAN : btc_model_period_ms(&p, tmax);
			double b = btrt_model_period_ms(&m, &rs, NULL, -1);
			CU_ASSERT(isnan(a) ? isnan(b) : memcmp(&a, &b, sizeof a) == 0);
			scheds++;
		}
		free(t);
		free(fixed);
		free(x);
	}
	CU_ASSERT(chunks > 1000);
	CU_ASSERT(scheds > 1000);
}

static int twin_register(void)
{
	CU_pSuite s = CU_add_suite("twin", NULL, NULL);
	if (!s || !CU_add_test(s, "btrt_model_* == btc_model_* on 200 random tables", test_twin))
		return -1;
	return 0;
}

static const struct btc_test_suite suites[] = {
	{ "twin", twin_register },
};

const struct btc_test_program btc_test_program = {
	.name = "test_adapt_twin",
	.suites = suites,
	.n_suites = 1,
	.timeout_s = 300,
};
