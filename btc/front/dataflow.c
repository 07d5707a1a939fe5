#include "front/dataflow.h"

int btc_app_check_dataflow(const struct btc_app *app, struct btc_diag *d)
{
	int warnings = 0;
	for (int s = 0; s < app->n_stages; s++) {
		const struct btc_stage *st = &app->stages[s];
		for (int i = 0; i < st->n_reads; i++) {
			int b = st->reads[i];
			bool before = false;
			for (int e = 0; e < s && !before; e++)
				before = btc_stage_writes(&app->stages[e], b);
			int later = -1;
			for (int e = s + 1; e < app->n_stages && later < 0; e++)
				if (btc_stage_writes(&app->stages[e], b))
					later = e;
			if (before || later < 0)
				continue;
			btc_warning(d, st->loc,
				    "stage '%s' reads buffer '%s' before any stage writes it (stage "
				    "'%s' writes it later): it sees what io.load left there, or a "
				    "stale value; are the stages in order, or is '%s' missing from an "
				    "earlier stage's writes?",
				    st->name, app->buffers[b].name, app->stages[later].name,
				    app->buffers[b].name);
			warnings++;
		}
	}
	return warnings;
}
