/* The chunk model, shared by btrt and btc (btrt_model.h). */
#include "btrt_model.h"

#include <math.h>

uint32_t btrt_model_check_threads(double load_ms, double check_ms, double compute_ms,
				  uint32_t k_max)
{
	if (k_max <= 1 || !(check_ms > 0) || !isfinite(check_ms) || !(compute_ms > 0) ||
	    !isfinite(compute_ms))
		return 1;
	double target = load_ms > compute_ms ? load_ms : compute_ms; /* NAN load: compute */
	double k = ceil(check_ms / target);
	return k <= 1 ? 1 : k >= (double)k_max ? k_max : (uint32_t)k;
}

double btrt_model_chunk_ms(const struct btrt_model *m, uint32_t c, uint32_t f, uint32_t l)
{
	uint32_t np = m->n_pus;
	double t = m->fixed_ms ? m->fixed_ms[c] : 0;
	for (uint32_t i = f; i <= l; i++)
		t += m->time_ms[(size_t)i * np + c];
	if (m->xfer_ms)
		t += m->xfer_ms[btrt_model_xfer_index(m->n_stages, np, c, f, l)];
	return t;
}

uint32_t btrt_model_farm(const double *member_ms, uint32_t n, double cover, double *period_ms,
			 uint32_t *extra)
{
	uint32_t ord[32];
	*extra = 0;
	for (uint32_t j = 0; j < n && j < 32; j++) {
		if (isnan(member_ms[j])) {
			*period_ms = NAN;
			return 0;
		}
		/* Insertion sort by time, stable: ties keep index order. */
		uint32_t k = j;
		for (; k > 0 && member_ms[ord[k - 1]] > member_ms[j]; k--)
			ord[k] = ord[k - 1];
		ord[k] = j;
	}
	if (n == 0) {
		*period_ms = NAN;
		return 0;
	}
	if (n > 32)
		n = 32;
	if (member_ms[ord[0]] == 0) {
		*period_ms = 0;
		return 1u << ord[0];
	}
	uint32_t set = 1u << ord[0];
	double rate = 1.0 / member_ms[ord[0]], need = 0;
	for (uint32_t k = 1; k < n; k++) {
		double t = member_ms[ord[k]];
		if (!btrt_farm_admits(t, rate, cover))
			break; /* and every slower one */
		need = t * rate;
		rate += 1.0 / t;
		set |= 1u << ord[k];
	}
	/* One member: its own time exactly (1 / (1 / t) may be t + 1 ulp). */
	*period_ms = set == 1u << ord[0] ? member_ms[ord[0]] : 1.0 / rate;
	*extra = (uint32_t)ceil(need - 1e-9);
	return set;
}
