/* GLPK's internal errors, caught (sched/glpk_guard.h). */
#include "sched/glpk_guard.h"

#include <setjmp.h>

int btc_glpk_internal_errors;
int btc_glpk_simplex_fail;

/* GLPK's error hook: back to btc_glpk_run's setjmp (info: its jmp_buf). */
static void on_error(void *info)
{
	longjmp(*(jmp_buf *)info, 1);
}

/* GLPK's terminal hook while solving: nothing printed (an internal
 * error's message included; the caller reports the return). */
static int quiet(void *info, const char *s)
{
	(void)info;
	(void)s;
	return 1;
}

int btc_glpk_run(int (*fn)(glp_prob *lp, void *arg), glp_prob *lp, void *arg)
{
	jmp_buf env;
	glp_error_hook(on_error, &env);
	glp_term_hook(quiet, NULL);
	if (setjmp(env)) { /* GLPK's environment is in an undefined state */
		glp_free_env();
		btc_glpk_internal_errors++;
		return BTC_GLPK_INTERNAL;
	}
	int rc = fn(lp, arg);
	glp_error_hook(NULL, NULL);
	glp_term_hook(NULL, NULL);
	return rc;
}

int btc_glpk_simplex_in_run(glp_prob *lp)
{
	glp_smcp parm;
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	if (glp_simplex(lp, &parm) != 0 || glp_get_status(lp) != GLP_OPT)
		return BTC_GLPK_NO_OPTIMUM;
	return BTC_GLPK_OK;
}

static int simplex(glp_prob *lp, void *arg)
{
	(void)arg;
	if (btc_glpk_simplex_fail > 0) {
		btc_glpk_simplex_fail--;
		glp_get_row_name(lp, 0); /* row 0 is out of range: GLPK's error */
	}
	return btc_glpk_simplex_in_run(lp);
}

int btc_glpk_simplex(glp_prob *lp)
{
	return btc_glpk_run(simplex, lp, NULL);
}
