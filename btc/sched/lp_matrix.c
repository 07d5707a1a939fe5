/* The triplet constraint matrix of sched/lp_matrix.h. */
#include "sched/lp_matrix.h"

#include <stdlib.h>

#include "util/diag.h"

void btc_lp_matrix_put(struct btc_lp_matrix *m, int row, int col, double v)
{
	if (m->ne + 1 >= m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->ia = btc_xrealloc(m->ia, (size_t)m->cap * sizeof(int));
		m->ja = btc_xrealloc(m->ja, (size_t)m->cap * sizeof(int));
		m->ar = btc_xrealloc(m->ar, (size_t)m->cap * sizeof(double));
	}
	m->ne++;
	m->ia[m->ne] = row;
	m->ja[m->ne] = col;
	m->ar[m->ne] = v;
}

void btc_lp_matrix_load(glp_prob *lp, struct btc_lp_matrix *m)
{
	glp_load_matrix(lp, m->ne, m->ia, m->ja, m->ar);
	free(m->ia);
	free(m->ja);
	free(m->ar);
	*m = (struct btc_lp_matrix){0};
}
