/* The calibration the bounds use, lowered until no measurement
 * contradicts it (report/calib.h, btc_calib_lower; docs/scheduler.md,
 * "Calibration for the bound"). */
#include "report/calib.h"

#include <math.h>
#include <stddef.h>

/* The least period measurement s does not exclude: the lower end of its
 * 95 % interval, else its median (NAN: not measured). */
static double floor_ms(const struct btc_calib_schedule *s)
{
	double lo = s->measured_low_ms;
	return lo > 0 && lo < s->measured_ms ? lo : s->measured_ms;
}

void btc_calib_lower(const struct btc_calib_schedule *s, int n, const bool *use,
		     struct btc_calib_fit *f)
{
	f->io_cap_ms = INFINITY;
	for (int k = 0; k < n; k++)
		if ((!use || use[k]) && s[k].measured_ms > 0) /* NAN: not measured */
			f->io_cap_ms = fmin(f->io_cap_ms, floor_ms(&s[k]));
	for (int p = 0; p < f->n_pus; p++) {
		double ratio = 1; /* the least y_k / chunk time, at most 1 */
		for (int k = 0; k < n; k++) {
			if ((use && !use[k]) || !(s[k].measured_ms > 0))
				continue;
			for (int c = 0; c < s[k].n_chunks; c++) {
				const struct btc_calib_chunk *ch = &s[k].chunks[c];
				double pred = btc_calib_chunk_ms(f, ch);
				if (ch->pu == p && pred > 0) /* NAN x: no comparison */
					ratio = fmin(ratio, s[k].measured_ms / pred);
			}
		}
		f->a_ms[p] *= ratio;
		f->b[p] *= ratio;
		for (int i = 0; f->d && i < f->n_stages; i++) /* b + d scales with b */
			f->d[(size_t)p * f->n_stages + i] *= ratio;
	}
}
