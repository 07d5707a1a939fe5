/* --chunks specs and schedule labels (sched/plan.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/plan.h"
#include "util/num.h"
#include "util/out.h"

/* One chunk of a --chunks spec: "PU:R", "PU[k]:R" or "{PU,PU,...}:R"
 * with R = FIRST-LAST or STAGE. Fills *ch (time 0); reports and returns
 * false. `next` is the stage the chunk must start at. */
static bool parse_chunk(const char *spec, char *tok, int next, const struct btc_app *app,
			const struct btc_device *dev, struct btc_sched_chunk *ch, struct btc_diag *d)
{
	struct btc_loc loc = {0};
	memset(ch, 0, sizeof(*ch));
	char *colon = strrchr(tok, ':');
	if (!colon || colon == tok) {
		btc_error(d, loc, "--chunks '%s': '%s' is not PU:FIRST-LAST", spec, tok);
		return false;
	}
	*colon = '\0';
	/* FIRST-LAST or STAGE, decimal, checked for overflow (no 32-bit wrap) */
	const char *range = colon + 1, *dash = strchr(range, '-');
	long first, last;
	int n_first = dash ? (int)(dash - range) : (int)strlen(range);
	if (!btc_parse_int_n(range, n_first, 0, INT_MAX, &first) ||
	    !btc_parse_int(dash ? dash + 1 : range, 0, INT_MAX, &last)) {
		btc_error(d, loc, "--chunks '%s': bad stage range '%s' (FIRST-LAST or STAGE, decimal)",
			  spec, range);
		return false;
	}
	/* The PUs: one name (maybe with [cores]) or a {farm}. */
	char *names[BTC_SCHED_MAX_PUS];
	int n_names = 0;
	bool farm = tok[0] == '{';
	if (farm) {
		size_t len = strlen(tok);
		if (len < 2 || tok[len - 1] != '}') {
			btc_error(d, loc, "--chunks '%s': farm '%s' must be {PU,PU,...}", spec, tok);
			return false;
		}
		tok[len - 1] = '\0';
		char *save = NULL;
		for (char *m = strtok_r(tok + 1, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
			if (n_names == BTC_SCHED_MAX_PUS) {
				btc_error(d, loc, "--chunks '%s': too many PUs in a farm", spec);
				return false;
			}
			names[n_names++] = m;
		}
		if (n_names < 2) {
			btc_error(d, loc,
				  "--chunks '%s': a farm {...} needs at least two PUs (one PU is PU:FIRST-LAST)",
				  spec);
			return false;
		}
	} else {
		names[n_names++] = tok;
	}
	for (int m = 0; m < n_names; m++) {
		char *name = names[m], *br = strchr(name, '[');
		int cores = 0;
		if (br) {
			size_t len = strlen(br);
			long k;
			if (len < 3 || br[len - 1] != ']' ||
			    !btc_parse_int_n(br + 1, (int)len - 2, 0, LONG_MAX, &k)) {
				btc_error(d, loc, "--chunks '%s': bad core count '%s' (PU[CORES])", spec,
					  br);
				return false;
			}
			if (k > INT_MAX) {
				btc_error(d, loc, "--chunks '%s': core count '%s' is out of range", spec,
					  br);
				return false;
			}
			cores = (int)k;
			*br = '\0';
		}
		int pu = btc_device_pu_index(dev, name);
		if (pu < 0) {
			btc_error(d, loc, "--chunks '%s': device '%s' has no PU '%s'", spec, dev->name,
				  name);
			return false;
		}
		const struct btc_pu *p = &dev->pus[pu];
		if (br && farm) {
			btc_error(d, loc,
				  "--chunks '%s': farm member '%s[%d]': a farm's PUs take all their cores",
				  spec, name, cores);
			return false;
		}
		if (br && p->kind != BTC_BACKEND_CPU) {
			btc_error(d, loc,
				  "--chunks '%s': '%s[%d]': a core count applies to CPU PUs only ('%s' is %s)",
				  spec, name, cores, name, btc_backend_name(p->kind));
			return false;
		}
		if (br && (cores < 1 || cores > p->n_cores)) {
			btc_error(d, loc, "--chunks '%s': '%s[%d]': PU '%s' has %d cores (1..%d)",
				  spec, name, cores, name, p->n_cores, p->n_cores);
			return false;
		}
		if (farm && (ch->farm & (1u << pu))) {
			btc_error(d, loc, "--chunks '%s': PU '%s' is twice in one farm", spec, name);
			return false;
		}
		for (int s = first; s <= last && s >= 0 && s < app->n_stages; s++)
			if (!btc_stage_has(&app->stages[s], p->kind)) {
				btc_error(d, loc,
					  "--chunks '%s': stage %d '%s' has no %s kernel for %sPU '%s'",
					  spec, s, app->stages[s].name, btc_backend_name(p->kind),
					  farm ? "farm member " : "", name);
				return false;
			}
		if (farm)
			ch->farm |= 1u << pu;
		else
			ch->pu = pu;
		ch->cores = cores;
	}
	if (farm)
		ch->pu = __builtin_ctz(ch->farm);
	if (first != next || last < first || last >= app->n_stages) {
		btc_error(d, loc,
			  "--chunks '%s': chunk %s:%d-%d must start at stage %d and end by stage %d",
			  spec, farm ? "{...}" : tok, (int)first, (int)last, next, app->n_stages - 1);
		return false;
	}
	ch->first_stage = (int)first;
	ch->last_stage = (int)last;
	return true;
}

/* Checks how a schedule's chunks share PUs: a PU runs one chunk, or
 * several that each have a core count, summing to at most its pinnable
 * cores; a farm member runs nothing else. Reports and returns false. */
static bool check_pu_sharing(const char *spec, const struct btc_schedule *s,
			     const struct btc_device *dev, struct btc_diag *d)
{
	struct btc_loc loc = {0};
	int api[BTC_N_BACKENDS] = {0}; /* a PU of each backend in use, + 1 */
	for (int u = 0; u < dev->n_pus; u++) {
		const char *name = dev->pus[u].name;
		int uses = 0, whole = 0, in_farm = 0, sum = 0;
		for (int c = 0; c < s->n_chunks; c++) {
			const struct btc_sched_chunk *ch = &s->chunks[c];
			bool on = ch->farm ? (ch->farm >> u) & 1u : ch->pu == u;
			if (!on)
				continue;
			uses++;
			in_farm += ch->farm != 0;
			whole += ch->farm == 0 && ch->cores == 0;
			sum += ch->farm ? 0 : ch->cores; /* a whole PU takes its pinnable cores */
		}
		if (uses && !api[dev->pus[u].kind])
			api[dev->pus[u].kind] = u + 1;
		if (api[BTC_BACKEND_CUDA] && api[BTC_BACKEND_VULKAN]) {
			btc_error(d, loc,
				  "--chunks '%s': PUs '%s' (cuda) and '%s' (vulkan): a pipeline uses one GPU API",
				  spec, dev->pus[api[BTC_BACKEND_CUDA] - 1].name,
				  dev->pus[api[BTC_BACKEND_VULKAN] - 1].name);
			return false;
		}
		if (uses > 1 && in_farm) {
			btc_error(d, loc,
				  "--chunks '%s': PU '%s' is a farm member and runs another chunk",
				  spec, name);
			return false;
		}
		if (uses > 1 && whole) {
			btc_error(
				d, loc,
				"--chunks '%s': PU '%s' runs two chunks (split its cores: %s[K]:..., %s[K]:...)",
				spec, name, name, name);
			return false;
		}
		if (uses > 1 && sum > dev->pus[u].n_cores) {
			btc_error(d, loc, "--chunks '%s': the chunks on PU '%s' ask for %d cores; it has %d",
				  spec, name, sum, dev->pus[u].n_cores);
			return false;
		}
		const int *pin;
		int n_pin = btc_pu_pinnable(&dev->pus[u], &pin);
		if (dev->pus[u].kind == BTC_BACKEND_CPU && uses && sum > n_pin) {
			btc_error(
				d, loc,
				"--chunks '%s': the chunks on PU '%s' need %d pinnable cores; it has %d (%s's `pinnable`)",
				spec, name, sum, n_pin, dev->name);
			return false;
		}
		if (dev->pus[u].kind == BTC_BACKEND_CPU && uses && n_pin == 0) {
			btc_error(d, loc, "--chunks '%s': PU '%s' has no pinnable core", spec, name);
			return false;
		}
	}
	return true;
}

bool btc_plan_parse_spec(const char *spec, const struct btc_app *app, const struct btc_device *dev,
			 struct btc_schedule *out, struct btc_diag *d)
{
	memset(out, 0, sizeof(*out));
	char *copy = btc_xstrdup(spec);
	int next = 0;
	bool ok = true;
	struct btc_loc loc = {0};
	/* Chunks are separated by the commas outside {...}. */
	char *tok = copy;
	while (ok && tok) {
		char *q = tok;
		int depth = 0;
		for (; *q && !(*q == ',' && depth == 0); q++)
			depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
		char *rest = *q ? q + 1 : NULL;
		*q = '\0';
		struct btc_sched_chunk ch;
		if (out->n_chunks == BTC_SCHED_MAX_PUS) {
			btc_error(d, loc, "--chunks '%s': too many chunks", spec);
			ok = false;
		} else if (!parse_chunk(spec, tok, next, app, dev, &ch, d)) {
			ok = false;
		} else {
			out->chunks[out->n_chunks++] = ch;
			next = ch.last_stage + 1;
		}
		tok = rest;
	}
	if (ok && next != app->n_stages) {
		btc_error(d, loc, "--chunks '%s': stages %d..%d are not scheduled", spec, next,
			  app->n_stages - 1);
		ok = false;
	}
	if (ok)
		ok = check_pu_sharing(spec, out, dev, d);
	/* All of its PU's cores is the paper's whole-PU chunk. */
	for (int c = 0; ok && c < out->n_chunks; c++)
		if (out->chunks[c].cores == dev->pus[out->chunks[c].pu].n_cores)
			out->chunks[c].cores = 0;
	free(copy);
	return ok;
}

char *btc_plan_schedule_label(const struct btc_schedule *s, const struct btc_device *dev)
{
	struct btc_out o;
	btc_out_init(&o);
	for (int c = 0; c < s->n_chunks; c++) {
		const struct btc_sched_chunk *ch = &s->chunks[c];
		btc_outf(&o, "%s", c ? " " : "");
		if (ch->farm) {
			btc_outf(&o, "{");
			for (int u = 0, k = 0; u < dev->n_pus && u < 32; u++)
				if ((ch->farm >> u) & 1u)
					btc_outf(&o, "%s%s", k++ ? "," : "", dev->pus[u].name);
			btc_outf(&o, "}");
		} else if (ch->cores) {
			btc_outf(&o, "%s[%d]", dev->pus[ch->pu].name, ch->cores);
		} else {
			btc_outf(&o, "%s", dev->pus[ch->pu].name);
		}
		if (ch->first_stage == ch->last_stage)
			btc_outf(&o, ":%d", ch->first_stage);
		else
			btc_outf(&o, ":%d-%d", ch->first_stage, ch->last_stage);
	}
	return o.buf;
}

void btc_plan_count(const struct btc_plan *plan, int *n_cand, int *n_base, int *n_bound,
		    int *n_space)
{
	*n_cand = *n_base = *n_bound = *n_space = 0;
	for (int i = 0; i < plan->n_schedules; i++) {
		const struct btc_plan_schedule *g = &plan->schedules[i];
		*n_base += g->baseline;
		*n_space += !g->baseline && g->space_only;
		*n_bound += !g->baseline && !g->space_only && g->from_bound;
		*n_cand += !g->baseline && !g->space_only && !g->from_bound;
	}
}

const char *btc_plan_schedule_kind(const struct btc_plan_schedule *g)
{
	return g->baseline ? "baseline" : g->from_bound ? "bound" : "candidate";
}
