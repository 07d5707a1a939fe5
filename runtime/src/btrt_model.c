/* The chunk model, shared by btrt and btc (btrt_model.h). */
#include "btrt_model.h"

#include <math.h>

/* ceil(t / c), at least 1; 1 for a t that is NAN or <= 0. */
static uint32_t io_need(double t, double c)
{
	if (!(t > 0) || !isfinite(t))
		return 1;
	double k = ceil(t / c);
	return k <= 1 ? 1 : k >= 64 ? 64 : (uint32_t)k;
}

void btrt_model_io_threads(double load_ms, double check_ms, double compute_ms, uint32_t extra,
			   uint32_t *k_load, uint32_t *k_check)
{
	*k_load = *k_check = 1;
	if (!(compute_ms > 0) || !isfinite(compute_ms))
		return;
	uint32_t kl = io_need(load_ms, compute_ms), kc = io_need(check_ms, compute_ms);
	double l = load_ms > 0 ? load_ms : 0, c = check_ms > 0 ? check_ms : 0;
	while ((kl - 1) + (kc - 1) > extra) {
		/* T_io after taking a thread from either farm */
		double drop_l = kl > 1 ? fmax(l / (kl - 1), c / kc) : INFINITY;
		double drop_c = kc > 1 ? fmax(l / kl, c / (kc - 1)) : INFINITY;
		if (drop_l <= drop_c)
			kl--;
		else
			kc--;
	}
	/* no thread that does not lower T_io */
	while (kl > 1 && fmax(l / (kl - 1), c / kc) <= fmax(fmax(l / kl, c / kc), compute_ms))
		kl--;
	while (kc > 1 && fmax(l / kl, c / (kc - 1)) <= fmax(fmax(l / kl, c / kc), compute_ms))
		kc--;
	*k_load = kl;
	*k_check = kc;
}

double btrt_model_chunk_ms(const struct btrt_model *m, uint32_t c, uint32_t f, uint32_t l)
{
	uint32_t np = m->n_pus;
	double t = m->fixed_ms ? m->fixed_ms[c] : 0;
	if (m->start_ms)
		t += m->start_ms[(size_t)f * np + c];
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

/* The io's positions: k_load loaders and k_check check workers (0: 1). */
static uint64_t io_positions(uint32_t k_load, uint32_t k_check)
{
	return (uint64_t)(k_load ? k_load : 1) + (k_check ? k_check : 1);
}

double btrt_model_farm_cover(uint32_t pool, uint32_t entries, uint32_t k_load, uint32_t k_check)
{
	uint64_t positions = (uint64_t)entries + io_positions(k_load, k_check);
	return pool > positions ? (double)(pool - positions) : 0.0;
}

uint32_t btrt_model_default_pool(uint32_t table_pool, uint32_t k_load, uint32_t k_check)
{
	uint64_t io = io_positions(k_load, k_check);
	uint64_t n = (uint64_t)(table_pool ? table_pool - 1 : 0) + io + BTRT_POOL_SLACK;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

void btrt_model_warmup(uint64_t tasks, uint64_t requested, uint32_t pool, uint64_t *warmup,
		       uint64_t *run)
{
	uint64_t w = requested > pool ? requested : pool, extra = w - requested;
	if (warmup)
		*warmup = w;
	if (run)
		*run = tasks > UINT64_MAX - extra ? UINT64_MAX : tasks + extra;
}
