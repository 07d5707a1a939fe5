/* Calibration of the cost model against measured periods, pure (no I/O;
 * docs/scheduler.md, "Calibration"). The model to calibrate is whatever
 * predicts each chunk's time: per schedule k a list of (PU, predicted
 * chunk ms) and a predicted io-thread time T_io (0 when the model has
 * none). Per PU p a fixed cost a_p (ms) and a slowdown b_p are fitted so
 * that
 *
 *   measured_k ~ max( max over chunks c of k (a_pu(c) + b_pu(c) x_c), T_io_k )
 *
 * by relative least squares (weights 1/measured^2: a slow baseline does
 * not outweigh the candidates), regularised towards a = 0, b = 1 with the
 * weight of prior_weight observations, so that a PU seen in few
 * schedules stays near the model. The max makes it nonlinear; it is
 * fitted by alternating (Magnani & Boyd 2009, "Convex piecewise-linear
 * fitting"): assign each schedule its bottleneck chunk under the current
 * fit, solve the per-PU 2x2 normal equations, repeat until the
 * bottlenecks stop changing.
 *
 * With options.stage_weight > 0 (the form the bounds use; docs/scheduler.md,
 * "Calibration for the bound") each stage i on p has its own factor
 * b_p + d_{p,i} on its table time t_i, shrunk towards the PU's b_p by a
 * ridge of stage_weight observations per d (Hoerl & Kennard 1970):
 *
 *   chunk time = a_p + b_p (x_c - sum_i t_i) + sum_i max(0, b_p + d_{p,i}) t_i
 *
 * over the chunk's stages i (x_c - sum t_i: its fixed, boundary and
 * transfer terms), so that a one-stage chunk and a chunk of several
 * stages on the same PU need not lie on one line. */
#ifndef BTC_CALIB_H
#define BTC_CALIB_H

#include <stdbool.h>

struct btc_calib_chunk {
	int pu;              /* 0..n_pus-1 */
	double predicted_ms; /* the model's chunk time x_c */
	/* Its stages' table times t_i, ms, for the per-stage form: stage
	 * first_stage + j at stage_ms[j * stage_stride], j < n_stages
	 * (borrowed); n_stages 0: none (the chunk has only the per-PU line). */
	int first_stage, n_stages, stage_stride;
	const double *stage_ms;
};

struct btc_calib_schedule {
	const struct btc_calib_chunk *chunks; /* [n_chunks], borrowed */
	int n_chunks;
	double io_ms;       /* predicted T_io, 0 when absent */
	double measured_ms; /* measured period (median); NAN: not measured
				  (left out of every fit, still predicted) */
	double measured_low_ms; /* the lower end of its 95 % interval (the least
				   period the measurement does not exclude: the io cap of
				   btc_calib_lower); 0 or NAN: none, measured_ms stands */
};

struct btc_calib_options {
	double prior_weight; /* observations' worth of a = 0, b = 1 (default 1) */
	int max_iter;        /* bottleneck reassignments at most (default 50) */
	double stage_weight; /* 0 (default): the per-PU line; > 0: per-stage
				factors, each d_{p,i} shrunk towards 0 with the
				weight of this many observations */
};

/* Sets the defaults above in *o (caller-owned). */
void btc_calib_options_init(struct btc_calib_options *o);

struct btc_calib_fit {
	int n_pus;
	double *a_ms;      /* [n_pus] fixed cost per chunk, ms */
	double *b;         /* [n_pus] slowdown factor (>= 0) */
	int *n_bottleneck; /* [n_pus] fitted schedules bottlenecked there */
	int n_stages;      /* stages with a factor: 0 without stage_weight */
	double *d;         /* [n_pus * n_stages] d_{p,i} at p * n_stages + i, or NULL */
	int n_io;          /* fitted schedules bottlenecked by T_io */
	double io_cap_ms;  /* T_io is taken as min(T_io, io_cap_ms): INFINITY
			      from btc_calib_fit, the least lower end of a
			      measured period's interval after btc_calib_lower */
	int iterations;
	bool converged; /* the bottlenecks stopped changing */
};

/* Fits a, b over the schedules s[k] with use[k] (NULL: all) and a
 * measurement. fit: filled, free with btc_calib_fit_free. With no
 * measurement the fit is the model (a = 0, b = 1). */
void btc_calib_fit(const struct btc_calib_schedule *s, int n, int n_pus, const bool *use,
		   const struct btc_calib_options *opt, struct btc_calib_fit *fit);

/* Lowers the fit f (as from btc_calib_fit) until no measurement of the
 * schedules s[k] with use[k] (NULL: all) contradicts it (docs/scheduler.md,
 * "Calibration for the bound"): per PU p, a_p, b_p and the d_{p,i} times
 *
 *   l_p = min(1, min over chunks c on p of a measured k of y_k / chunk_p(c))
 *
 * (a chunk's time per task is at most its pipeline's period y_k, the
 * median the fit went through; chunks predicted at or below 0 ms are left
 * out), so that btc_calib_chunk_ms(c) <= y_k for every such chunk, and
 * f->io_cap_ms = the least lower end of a measured k's 95 % interval
 * (measured_low_ms; its median where it has none): T_io is one constant
 * of the io threads, the same in every schedule, and no run of any
 * schedule can be faster than it, so it is at most every period the
 * measurements do not exclude. A PU with no such chunk keeps its fit. */
void btc_calib_lower(const struct btc_calib_schedule *s, int n, const bool *use,
		     struct btc_calib_fit *f);

/* Frees what btc_calib_fit allocated in *fit (not fit itself, which must
 * not be NULL) and zeroes it. */
void btc_calib_fit_free(struct btc_calib_fit *fit);

/* A deep copy of the fit f into *out (its own arrays: free with
 * btc_calib_fit_free), so that one fit can be lowered against two sets of
 * schedules (report/fit_bound.c). */
void btc_calib_fit_copy(const struct btc_calib_fit *f, struct btc_calib_fit *out);

/* The calibrated time of chunk c, ms: a_p + b_p x_c, or the per-stage
 * form above when fit has factors and c has stages. */
double btc_calib_chunk_ms(const struct btc_calib_fit *fit, const struct btc_calib_chunk *c);

/* The factor on stage i's table time on PU p: max(0, b_p + d_{p,i}), b_p
 * without per-stage factors (or for a stage beyond them). */
double btc_calib_stage_factor(const struct btc_calib_fit *fit, int p, int i);

/* The calibrated period of s, ms: max(max_c btc_calib_chunk_ms, min(T_io,
 * io_cap_ms)). NAN when a chunk's prediction is NAN. */
double btc_calib_predict(const struct btc_calib_fit *fit, const struct btc_calib_schedule *s);

/* The uncalibrated period of s, ms: max(max_c x_c, T_io). */
double btc_calib_period(const struct btc_calib_schedule *s);

/* Leave-one-out predictions, ms, into pred[n]: for a measured schedule k,
 * the calibrated prediction of the fit over every measured schedule but
 * k (k's measurement is never read); for an unmeasured one, that of the
 * fit over all. */
void btc_calib_loo(const struct btc_calib_schedule *s, int n, int n_pus,
		   const struct btc_calib_options *opt, double *pred);

/* How well predictions match measurements, over the pairs where both are
 * numbers. */
struct btc_calib_metrics {
	int n;                          /* pairs */
	double pearson_r, spearman_rho; /* NAN when undefined */
	double median_abs_rel_err;      /* median of |measured / predicted - 1| */
	double max_abs_rel_err;
	int predicted_best;    /* index with the lowest prediction, -1 none */
	int measured_best;     /* index with the lowest measurement */
	bool best_within_5pct; /* measured[predicted_best] <= 1.05 measured[measured_best] */
};

/* Agreement of predicted[n] with measured[n] (ms; pairs with a NAN or a
 * prediction <= 0 are left out) into *m: the pairs used, Pearson r and
 * Spearman rho (NAN below 2 pairs), median and max |measured/predicted - 1|
 * (NAN with no pair), the indices of the predicted and measured best (-1
 * with no pair). Allocates nothing that outlives the call. */
void btc_calib_metrics(const double *predicted, const double *measured, int n,
		       struct btc_calib_metrics *m);

#endif
