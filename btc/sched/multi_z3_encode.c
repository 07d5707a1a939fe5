/* The joint problem's Z3 encoding (multi_z3.h; docs/scheduler.md,
 * "Several apps"), on the one Z3 layer (sched_z3.h):
 *
 *   x_{s,i,c}    stage i of stream s runs on PU c (exactly one c per
 *                stage; none where the stage has no time or c is
 *                forbidden); one chunk per PU: at most one stage i with
 *                x_{s,i,c} and not x_{s,i-1,c}
 *   y_{s,c,f,l}  <-> x_{s,f,c} & x_{s,l,c} & !x_{s,f-1,c} & !x_{s,l+1,c}:
 *                the chunk (c, f..l) exists
 *   ge_{s,c,k}   <- another stream uses a PU q != c with slowdown_s[c][q]
 *                >= v_k (v_1 < v_2 < ... the distinct factors > 1):
 *                sigma_{s,c} >= v_k
 *   PU c's terms: y with L_0, and y & ge_{s,c,k} with L_k - L_{k-1}
 *
 * with L_k = c_s * (chunk_ms * v_k) (v_0 = 1) in double exactly as the
 * oracle computes a term. "cost <= d" is, per PU, the pseudo-Boolean row
 * sum floor(L_k / q) - floor(L_{k-1} / q) <= floor(next(d) / q) over the
 * terms that hold (q a power of two: the scaling is exact), plus the
 * total of the rows: a relaxation, true of every joint schedule of cost
 * <= d, so a model may cost a little more (the search costs each model by
 * the oracle's arithmetic and blocks such a one, btc_mz_block_over). ge is
 * only forced one way (a spurious ge only adds load), so the assignment
 * with ge exact satisfies every row its true loads satisfy.
 * Interchangeable streams k < s (the nearest earlier of the class): vec_k
 * <=lex vec_s through prefix-equality literals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/model.h"
#include "sched/multi_z3.h"

static Z3_ast X(const struct mz *z, int s, int i, int c)
{
	return z->x[(z->off[s] + i) * z->np + c];
}

static void clause(struct mz *z, unsigned n, Z3_ast *lits)
{
	btc_z3_add(&z->b, n == 1 ? lits[0] : Z3_mk_or(z->b.ctx, n, lits));
}

/* Stages, chunks per PU, used. */
static void encode_stages(struct mz *z, int s)
{
	const struct btc_sched_problem *p = z->m->streams[s].p;
	int n = p->n_stages, np = z->np;
	for (int i = 0; i < n; i++) {
		Z3_ast lits[BTC_SCHED_MAX_PUS];
		unsigned k = 0;
		for (int c = 0; c < np; c++) {
			Z3_ast v = NULL;
			if (!(z->m->forbid_mask & (1u << c)) && !isnan(p->time_ms[i * np + c]))
				v = btc_z3_fresh(&z->b);
			z->x[(z->off[s] + i) * np + c] = v;
			if (v) {
				for (unsigned j = 0; j < k; j++)
					btc_z3_clause2(&z->b, btc_z3_not(&z->b, lits[j]),
						       btc_z3_not(&z->b, v));
				lits[k++] = v;
			}
		}
		if (k == 0) {
			btc_z3_add(&z->b, Z3_mk_false(z->b.ctx));
			return;
		}
		clause(z, k, lits);
	}
	for (int c = 0; c < np; c++) {
		/* st_i <- x_i & !x_{i-1}; at most one st per PU */
		Z3_ast *st = btc_xmalloc(sizeof(Z3_ast) * 2 * (size_t)n), *any = st + n;
		int ns = 0, na = 0;
		for (int i = 0; i < n; i++) {
			Z3_ast xi = X(z, s, i, c);
			if (!xi)
				continue;
			any[na++] = xi;
			Z3_ast prev = i > 0 ? X(z, s, i - 1, c) : NULL;
			Z3_ast g = btc_z3_fresh(&z->b);
			Z3_ast cl[3] = {btc_z3_not(&z->b, xi), g, prev};
			clause(z, prev ? 3 : 2, cl);
			for (int j = 0; j < ns; j++)
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, st[j]), btc_z3_not(&z->b, g));
			st[ns++] = g;
		}
		Z3_ast u = NULL;
		if (na) {
			u = btc_z3_fresh(&z->b);
			btc_z3_add(&z->b, Z3_mk_eq(z->b.ctx, u, Z3_mk_or(z->b.ctx, (unsigned)na, any)));
		}
		z->used[s * np + c] = u;
		free(st);
	}
}

/* vec_k <=lex vec_s. */
static void encode_order(struct mz *z, int k, int s)
{
	int n = z->m->streams[s].p->n_stages, np = z->np;
	Z3_ast e = NULL; /* NULL: true (position 0) */
	for (int i = 0; i < n; i++) {
		Z3_ast next = i + 1 < n ? btc_z3_fresh(&z->b) : NULL;
		for (int c = 0; c < np; c++) {
			Z3_ast xs = X(z, s, i, c), xk = X(z, k, i, c);
			if (xs) { /* e & x_{s,i,c} -> some x_{k,i,c'} with c' <= c */
				Z3_ast cl[BTC_SCHED_MAX_PUS + 2];
				unsigned m = 0;
				if (e)
					cl[m++] = btc_z3_not(&z->b, e);
				cl[m++] = btc_z3_not(&z->b, xs);
				for (int c2 = 0; c2 <= c; c2++)
					if (X(z, k, i, c2))
						cl[m++] = X(z, k, i, c2);
				clause(z, m, cl);
			}
			if (next && xs && xk) { /* e & equal here -> next */
				Z3_ast cl[4];
				unsigned m = 0;
				if (e)
					cl[m++] = btc_z3_not(&z->b, e);
				cl[m++] = btc_z3_not(&z->b, xs);
				cl[m++] = btc_z3_not(&z->b, xk);
				cl[m++] = next;
				clause(z, m, cl);
			}
		}
		e = next;
	}
}

static void mz_term_add(struct mz_terms *T, Z3_ast lit, double from, double to, int s, int f,
			int l, double sigma)
{
	if (T->n == T->cap) {
		T->cap = T->cap ? 2 * T->cap : 256;
		size_t n = (size_t)T->cap;
		T->lit = btc_xrealloc(T->lit, sizeof(Z3_ast) * n);
		T->from = btc_xrealloc(T->from, sizeof(double) * n);
		T->to = btc_xrealloc(T->to, sizeof(double) * n);
		T->sigma = btc_xrealloc(T->sigma, sizeof(double) * n);
		T->s = btc_xrealloc(T->s, sizeof(int) * n);
		T->f = btc_xrealloc(T->f, sizeof(int) * n);
		T->l = btc_xrealloc(T->l, sizeof(int) * n);
	}
	int k = T->n++;
	T->lit[k] = lit;
	T->from[k] = from;
	T->to[k] = to;
	T->sigma[k] = sigma;
	T->s[k] = s;
	T->f[k] = f;
	T->l[k] = l;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Stream s's terms on PU c appended to z->term[c]. */
static void encode_terms(struct mz *z, int s, int c)
{
	const struct btc_multi_problem *m = z->m;
	const struct btc_sched_problem *p = m->streams[s].p;
	const double *slow = m->streams[s].slowdown;
	int n = p->n_stages, np = z->np;
	double cs = btc_multi_coeff(m, s);
	/* levels v_1 < ... of sigma_{s,c} and their ge literals */
	double lv[BTC_SCHED_MAX_PUS + 1];
	Z3_ast ge[BTC_SCHED_MAX_PUS + 1];
	int nl = 0;
	for (int q = 0; slow && q < np; q++)
		if (q != c && !(m->forbid_mask & (1u << q)) && slow[c * np + q] > 1.0)
			lv[nl++] = slow[c * np + q];
	qsort(lv, (size_t)nl, sizeof(double), cmp_double);
	int d = 0;
	for (int k = 0; k < nl; k++)
		if (d == 0 || lv[k] != lv[d - 1])
			lv[d++] = lv[k];
	nl = d;
	for (int k = 0; k < nl; k++) {
		ge[k] = btc_z3_fresh(&z->b);
		if (k > 0)
			btc_z3_clause2(&z->b, btc_z3_not(&z->b, ge[k]), ge[k - 1]);
		for (int q = 0; q < np; q++)
			if (q != c && slow[c * np + q] >= lv[k])
				for (int o = 0; o < z->S; o++)
					if (o != s && z->used[o * np + q])
						btc_z3_clause2(&z->b,
							       btc_z3_not(&z->b, z->used[o * np + q]),
							       ge[k]);
	}
	struct mz_terms *T = &z->term[c];
	double top = 0;
	for (int f = 0; f < n; f++)
		for (int l = f; l < n && X(z, s, l, c); l++) {
			/* y <-> x_f & x_l & !x_{f-1} & !x_{l+1} (contiguity
			 * fills the stages between) */
			Z3_ast cl[5] = {X(z, s, f, c), X(z, s, l, c), NULL, NULL, NULL};
			unsigned k = 2;
			if (f > 0 && X(z, s, f - 1, c))
				cl[k++] = btc_z3_not(&z->b, X(z, s, f - 1, c));
			if (l + 1 < n && X(z, s, l + 1, c))
				cl[k++] = btc_z3_not(&z->b, X(z, s, l + 1, c));
			Z3_ast y = btc_z3_fresh(&z->b);
			for (unsigned j = 0; j < k; j++)
				btc_z3_clause2(&z->b, btc_z3_not(&z->b, y), cl[j]);
			for (unsigned j = 0; j < k; j++)
				cl[j] = btc_z3_not(&z->b, cl[j]);
			cl[k++] = y;
			clause(z, k, cl);
			double ct = btc_model_chunk_ms(p, c, f, l);
			double prev = 0, cur = cs * (ct * 1.0);
			mz_term_add(T, y, prev, cur, s, f, l, 1.0);
			prev = cur;
			for (int j = 0; j < nl; j++) {
				cur = cs * (ct * lv[j]);
				if (cur == prev)
					continue;
				Z3_ast both[2] = {y, ge[j]};
				mz_term_add(T, Z3_mk_and(z->b.ctx, 2, both), prev, cur, s, f, l,
					    lv[j]);
				prev = cur;
			}
			top = fmax(top, prev);
		}
	z->top[c] += top;
}

static void model_read(struct btc_z3 *b, Z3_model mdl)
{
	struct mz *z = btc_mz(b);
	z->costed++;
	for (int pos = 0; pos < z->N; pos++) {
		z->a[pos] = -1;
		for (int c = 0; c < z->np && z->a[pos] < 0; c++) {
			Z3_ast v = z->x[pos * z->np + c], out;
			if (v && Z3_model_eval(b->ctx, mdl, v, true, &out) &&
			    Z3_get_bool_value(b->ctx, out) == Z3_L_TRUE)
				z->a[pos] = c;
		}
	}
}

/* The layer's steps this encoding uses: the session, checks under
 * assumptions and reading a model; the key, guard and blocking steps are
 * the single-app searches' (their keys are quanta of T_max and gapness;
 * this search's key is a double, multi_z3.c). */
static const struct btc_z3_ops mz_ops = {.read = model_read};

void btc_mz_start(struct mz *z, const struct btc_multi_problem *m)
{
	memset(z, 0, sizeof(*z));
	int S = m->n_streams, np = m->n_pus;
	z->m = m;
	z->S = S;
	z->np = np;
	z->off = btc_xcalloc((size_t)S + 1, sizeof(int));
	for (int s = 0; s <= S; s++)
		z->off[s] = btc_multi_offset(m, s);
	z->N = z->off[S];
	btc_z3_start(&z->b, &mz_ops, 0);
	z->x = btc_xcalloc((size_t)z->N * (size_t)np, sizeof(Z3_ast));
	z->lt = btc_xcalloc((size_t)z->N * (size_t)np, sizeof(Z3_ast));
	z->used = btc_xcalloc((size_t)S * (size_t)np, sizeof(Z3_ast));
	z->a = btc_xcalloc((size_t)z->N, sizeof(int));
	z->io = btc_multi_io_cost(m);
	for (int s = 0; s < S; s++) {
		encode_stages(z, s);
		int k = btc_multi_prev_interchangeable(m, s);
		if (k >= 0)
			encode_order(z, k, s);
	}
	z->term = btc_xcalloc((size_t)np, sizeof(*z->term));
	z->top = btc_xcalloc((size_t)np, sizeof(double));
	z->coef = btc_xcalloc((size_t)np, sizeof(int *));
	for (int c = 0; c < np; c++)
		for (int s = 0; s < S; s++)
			if (z->used[s * np + c])
				encode_terms(z, s, c);
	/* the quantum: a power of two (scaling is exact) that keeps every
	 * PU's largest load within 2^25 quanta, and so the sum over the PUs
	 * (at most 32) within an int */
	double top = 0;
	for (int c = 0; c < np; c++)
		top = fmax(top, z->top[c]);
	int e = 0;
	if (top > 0)
		(void)frexp(top, &e);
	z->quantum = ldexp(1.0, e - 25);
	int n_all = 0;
	for (int c = 0; c < np; c++) {
		n_all += z->term[c].n;
		z->n_loaded += z->term[c].n > 0;
	}
	z->all_lit = btc_xcalloc((size_t)n_all + 1, sizeof(Z3_ast));
	z->all_coef = btc_xcalloc((size_t)n_all + 1, sizeof(int));
	for (int c = 0; c < np; c++) {
		struct mz_terms *T = &z->term[c];
		z->coef[c] = btc_xcalloc((size_t)T->n + 1, sizeof(int));
		for (int k = 0; k < T->n; k++)
			z->coef[c][k] = (int)(floor(T->to[k] / z->quantum) -
					      floor(T->from[k] / z->quantum));
	}
}

void btc_mz_stop(struct mz *z)
{
	btc_z3_stop(&z->b);
	free(z->off);
	free(z->x);
	free(z->lt);
	free(z->used);
	for (int c = 0; c < z->np; c++) {
		free(z->term[c].lit);
		free(z->term[c].from);
		free(z->term[c].to);
		free(z->term[c].sigma);
		free(z->term[c].s);
		free(z->term[c].f);
		free(z->term[c].l);
		free(z->coef[c]);
	}
	free(z->term);
	free(z->coef);
	free(z->top);
	free(z->guard);
	free(z->all_lit);
	free(z->all_coef);
	free(z->a);
}

Z3_ast btc_mz_cost_le(struct mz *z, double d)
{
	if (d < z->io)
		return NULL;
	for (int k = 0; k < z->n_guard; k++)
		if (z->guard[k].d == d)
			return z->guard[k].g;
	/* load <= the midpoint (d, up) => sum floor(term / quantum) <=
	 * floor(up / quantum). With same-PU capacities, load / kappa_c <= d
	 * (rounded) => load < kappa_c up <= hi_c up: the limit is hi_c up
	 * rounded up (hi_c = 1 without: the same limit) */
	double up = nextafter(d, INFINITY);
	Z3_ast g = btc_z3_fresh(&z->b);
	int n_all = 0, allowed = 0;
	long lim_all = 0;
	for (int c = 0; c < z->np; c++) {
		const struct mz_terms *T = &z->term[c];
		double hi = btc_multi_kappa_hi(z->m, c);
		double lim = floor((hi == 1.0 ? up : nextafter(hi * up, INFINITY)) / z->quantum);
		if (T->n == 0 || lim >= (double)(1 << 26))
			continue;
		btc_z3_clause2(&z->b, btc_z3_not(&z->b, g),
			       Z3_mk_pble(z->b.ctx, (unsigned)T->n, T->lit, z->coef[c], (int)lim));
		memcpy(z->all_lit + n_all, T->lit, sizeof(Z3_ast) * (size_t)T->n);
		memcpy(z->all_coef + n_all, z->coef[c], sizeof(int) * (size_t)T->n);
		n_all += T->n;
		lim_all += (long)lim;
		allowed++;
	}
	/* implied: the total over the PUs (every PU with terms bounded); the
	 * pseudo-Boolean propagation does not derive it from the rows */
	if (allowed == z->n_loaded && allowed > 1)
		btc_z3_clause2(&z->b, btc_z3_not(&z->b, g),
			       Z3_mk_pble(z->b.ctx, (unsigned)n_all, z->all_lit, z->all_coef,
					  (int)lim_all));
	if (z->n_guard == z->cap_guard) {
		z->cap_guard = z->cap_guard ? 2 * z->cap_guard : 32;
		z->guard = btc_xrealloc(z->guard, sizeof(*z->guard) * (size_t)z->cap_guard);
	}
	z->guard[z->n_guard++] = (struct mz_guard){d, g};
	return g;
}

Z3_ast btc_mz_less(struct mz *z, int pos, int v)
{
	if (z->lt[pos * z->np + v])
		return z->lt[pos * z->np + v];
	Z3_ast lits[BTC_SCHED_MAX_PUS + 1];
	unsigned k = 0;
	for (int c = 0; c < v; c++)
		if (z->x[pos * z->np + c])
			lits[k++] = z->x[pos * z->np + c];
	if (k == 0)
		return NULL;
	Z3_ast g = btc_z3_fresh(&z->b);
	lits[k++] = btc_z3_not(&z->b, g);
	clause(z, k, lits);
	z->lt[pos * z->np + v] = g;
	return g;
}

void btc_mz_block(struct mz *z)
{
	Z3_ast *lits = btc_xmalloc(sizeof(Z3_ast) * (size_t)z->N);
	for (int pos = 0; pos < z->N; pos++)
		lits[pos] = btc_z3_not(&z->b, z->x[pos * z->np + z->a[pos]]);
	clause(z, (unsigned)z->N, lits);
	free(lits);
}

/* The literal of stream s's chunk (f..l) on c at sigma sg: the term of the
 * highest level <= sg. */
static Z3_ast term_lit(const struct mz *z, int c, int s, int f, int l, double sg)
{
	const struct mz_terms *T = &z->term[c];
	Z3_ast lit = NULL;
	for (int k = 0; k < T->n; k++)
		if (T->s[k] == s && T->f[k] == f && T->l[k] == l && T->sigma[k] <= sg)
			lit = T->lit[k];
	return lit;
}

void btc_mz_block_over(struct mz *z, Z3_ast g, double d)
{
	const struct btc_multi_problem *m = z->m;
	int S = z->S, np = z->np;
	struct btc_multi_eval e;
	if (!btc_multi_evaluate(m, z->a, &e)) {
		btc_mz_block(z);
		return;
	}
	int over = -1;
	double worst = d;
	for (int c = 0; c < np; c++) {
		double load = btc_multi_load(m, e.t, c, S) / e.kappa[c];
		if (load > worst) {
			worst = load;
			over = c;
		}
	}
	/* with capacities, the clause also names the streams not on that PU
	 * (another stream joining it changes n and kappa, so the same terms
	 * may then cost less) */
	Z3_ast lits[2 * BTC_MULTI_MAX_STREAMS + 1];
	unsigned k = 0;
	lits[k++] = btc_z3_not(&z->b, g);
	for (int s = 0; s < S && over >= 0; s++) {
		const int *a = z->a + z->off[s];
		int n = z->off[s + 1] - z->off[s], f = 0;
		while (f < n && a[f] != over)
			f++;
		if (m->capacity && z->used[s * np + over] && (f == n || e.t[s * np + over] == 0)) {
			Z3_ast u = z->used[s * np + over];
			lits[k++] = f == n ? u : btc_z3_not(&z->b, u);
			continue;
		}
		if (e.t[s * np + over] == 0)
			continue;
		int l = f;
		while (l + 1 < n && a[l + 1] == over)
			l++;
		lits[k++] = btc_z3_not(&z->b, term_lit(z, over, s, f, l, e.sigma[s * np + over]));
	}
	btc_multi_eval_free(&e);
	if (over < 0) { /* not over d after all: the whole vector, under g */
		Z3_ast *all = btc_xmalloc(sizeof(Z3_ast) * ((size_t)z->N + 1));
		for (int pos = 0; pos < z->N; pos++)
			all[pos] = btc_z3_not(&z->b, z->x[pos * z->np + z->a[pos]]);
		all[z->N] = lits[0];
		clause(z, (unsigned)z->N + 1, all);
		free(all);
		return;
	}
	clause(z, k, lits);
}

double btc_mz_cost(struct mz *z)
{
	const struct btc_multi_problem *m = z->m;
	int S = z->S, np = z->np;
	double *ct = btc_xcalloc((size_t)S * (size_t)np * 2, sizeof(double));
	uint32_t used[BTC_MULTI_MAX_STREAMS];
	double cost = INFINITY;
	bool ok = true;
	for (int s = 0; s < S && ok; s++)
		ok = btc_multi_stream_chunks(m, s, z->a + z->off[s], ct + s * np, NULL, &used[s]);
	if (ok)
		cost = btc_multi_cost(m, ct, NULL, used, ct + S * np, NULL);
	free(ct);
	return cost;
}
