/* The program's JSON files in a build without libcjson (a cross build
 * whose sysroot has none): --report and --failure fail with a message;
 * the run itself and its summary line are unchanged. */
#include "btrt_program_internal.h"

static int no_json(const char *path)
{
	fprintf(stderr, "cannot write %s: this build has no JSON library (libcjson was not "
		"found when it was configured)\n", path);
	return -1;
}

char *btrt_report_text(const char *path, const struct btrt_program *prog,
		       const struct btrt_program_options *o,
		       const struct btrt_program_outcome *out)
{
	(void)prog;
	(void)o;
	(void)out;
	no_json(path);
	return NULL;
}

int btrt_report_write(const char *path, const struct btrt_program *prog,
		      const struct btrt_program_options *o,
		      const struct btrt_program_outcome *out)
{
	(void)prog;
	(void)o;
	(void)out;
	return no_json(path);
}

int btrt_failure_write(const char *path, const struct btrt_error *failure, long schedule)
{
	(void)failure;
	(void)schedule;
	return no_json(path);
}

#include "btrt_workload_internal.h"

int btrt_workload_report_write(const char *path, const struct btrt_workload *w,
			       const struct btrt_workload_options *o,
			       const struct btrt_workload_figures *f, uint32_t n)
{
	(void)w;
	(void)o;
	(void)f;
	(void)n;
	return no_json(path);
}

int btrt_workload_list_json(const struct btrt_workload *w, FILE *out)
{
	(void)w;
	(void)out;
	return no_json("the stream list");
}

int btrt_program_list_json(const struct btrt_program *prog, FILE *out)
{
	(void)prog;
	(void)out;
	return no_json("the schedule list");
}
