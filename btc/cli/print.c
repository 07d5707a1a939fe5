/* The model printers of `btc check` (cli/print.h). */
#include "cli/print.h"

void btc_cli_print_app(const struct btc_app *app, FILE *out)
{
	fprintf(out, "app %s (%s): %d stages, %d buffers, %d params\n", app->name, app->path,
		app->n_stages, app->n_buffers, app->n_params);
	if (app->n_params) {
		fputs("params:\n", out);
		for (int i = 0; i < app->n_params; i++)
			fprintf(out, "  %-20s %lld\n", app->params[i].name,
				(long long)app->params[i].value);
	}
	fputs("buffers (TaskObject layout):\n", out);
	int64_t total = 0;
	for (int i = 0; i < app->n_buffers; i++) {
		const struct btc_buffer *b = &app->buffers[i];
		int64_t bytes = b->count_value * btc_elem_size(b->elem);
		total += bytes;
		fprintf(out, "  %2d %-20s %-4s x %-12lld %10.1f KiB  %-8s  count: %s\n", i, b->name,
			btc_elem_name(b->elem), (long long)b->count_value, (double)bytes / 1024.0,
			b->scratch ? "scratch" : btc_placement_name(b->placement),
			btc_expr_text(b->count));
	}
	fprintf(out, "  TaskObject size: %.1f KiB\n", (double)total / 1024.0);
	fputs("stages:\n", out);
	for (int i = 0; i < app->n_stages; i++) {
		const struct btc_stage *s = &app->stages[i];
		fprintf(out, "  %2d %-16s kernels:", i, s->name);
		for (int b = 0; b < BTC_N_BACKENDS; b++)
			if (btc_stage_has(s, (enum btc_backend)b))
				fprintf(out, " %s", btc_backend_name((enum btc_backend)b));
		if (s->n_vk) {
			int64_t n = 0;
			for (int k = 0; k < s->n_vk; k++)
				n += s->vk[k].repeat;
			fprintf(out, " (%lld dispatches)", (long long)n);
		}
		fputs("\n       reads:", out);
		for (int k = 0; k < s->n_reads; k++)
			fprintf(out, " %s", app->buffers[s->reads[k]].name);
		fputs("  writes:", out);
		for (int k = 0; k < s->n_writes; k++)
			fprintf(out, " %s", app->buffers[s->writes[k]].name);
		fputc('\n', out);
	}
}

void btc_cli_print_device(const struct btc_device *dev, FILE *out)
{
	fprintf(out, "device %s (%s, %s): %d PUs\n", dev->name, dev->os, dev->arch, dev->n_pus);
	for (int p = 0; p < dev->n_pus; p++) {
		const struct btc_pu *pu = &dev->pus[p];
		fprintf(out, "  %-10s %-6s", pu->name, btc_backend_name(pu->kind));
		if (pu->kind == BTC_BACKEND_CPU) {
			fputs(" cores", out);
			for (int c = 0; c < pu->n_cores; c++)
				fprintf(out, "%s%d", c ? "," : " ", pu->cores[c]);
			if (pu->core_type)
				fprintf(out, "  %s", pu->core_type);
			if (pu->max_freq_mhz)
				fprintf(out, " @ %d MHz", pu->max_freq_mhz);
		} else {
			fprintf(out, " %s", pu->gpu_name ? pu->gpu_name : "GPU");
			if (pu->subgroup_size)
				fprintf(out, ", subgroup %d", pu->subgroup_size);
			if (pu->cpu_backed)
				fputs(", CPU-backed (shares the CPU cores)", out);
			else if (pu->unified_memory)
				fputs(", unified memory", out);
		}
		fputc('\n', out);
	}
}

void btc_cli_print_table(const struct btc_table *t, const struct btc_app *app,
			 const struct btc_device *dev, FILE *out)
{
	for (int m = 0; m < BTC_N_MODES; m++) {
		if (!t->has_mode[m])
			continue;
		fprintf(out, "profiling table (%s, ms):\n  %-16s", btc_mode_name((enum btc_mode)m),
			"stage");
		for (int p = 0; p < dev->n_pus; p++)
			fprintf(out, " %10s", dev->pus[p].name);
		fputc('\n', out);
		for (int s = 0; s < app->n_stages; s++) {
			fprintf(out, "  %-16s", app->stages[s].name);
			for (int p = 0; p < dev->n_pus; p++) {
				const struct btc_table_entry *e = btc_table_at(t, (enum btc_mode)m,
									       s, p);
				if (e->present && btc_stage_has(&app->stages[s], dev->pus[p].kind))
					fprintf(out, " %10.4f", e->mean_ms);
				else
					fprintf(out, " %10s", "-");
			}
			fputc('\n', out);
		}
	}
}
