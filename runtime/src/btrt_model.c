/* The chunk model, shared by btrt and btc (btrt_model.h). */
#include "btrt_model.h"

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
