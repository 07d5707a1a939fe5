/* The run status area (util/runstatus.h). */
#include "util/runstatus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <btrt_status.h>

#include "util/out.h"

void btc_runstatus_open(struct btc_runstatus *s)
{
	s->fd = memfd_create("btrt-status", 0);
	uint32_t offer = BTRT_STATUS_OFFER; /* the program maps only this */
	if (s->fd >= 0 && (ftruncate(s->fd, sizeof(struct btrt_status)) != 0 ||
			   pwrite(s->fd, &offer, sizeof(offer), 0) != (ssize_t)sizeof(offer))) {
		close(s->fd);
		s->fd = -1;
	}
	if (s->fd < 0)
		return;
	char v[16];
	snprintf(v, sizeof(v), "%d", s->fd);
	setenv(BTRT_STATUS_ENV, v, 1);
}

/* "stage 1 'add' on PU 'cpu' (task 4)" for slot x, appended to o. */
static void put_slot(struct btc_out *o, const struct btrt_status_slot *x)
{
	char name[BTRT_STATUS_NAME + 1], pu[BTRT_STATUS_NAME + 1];
	snprintf(name, sizeof(name), "%.*s", BTRT_STATUS_NAME, x->stage_name);
	snprintf(pu, sizeof(pu), "%.*s", BTRT_STATUS_NAME, x->pu);
	if (x->stage >= 0)
		btc_outf(o, "stage %d ", x->stage);
	if (!pu[0])
		btc_outf(o, "%s", name);
	else
		btc_outf(o, "'%s' on PU '%s' (task %llu)", name, pu,
			       (unsigned long long)x->seq);
}

char *btc_runstatus_text(const struct btc_runstatus *s, int rc)
{
	if (s->fd < 0)
		return NULL;
	struct btrt_status st;
	if (pread(s->fd, &st, sizeof(st), 0) != (ssize_t)sizeof(st) ||
	    st.magic != BTRT_STATUS_MAGIC || st.state != BTRT_STATUS_RUNNING)
		return NULL;
	struct btc_out o;
	btc_out_init(&o);
	int busy = 0;
	for (int i = 0; i < BTRT_STATUS_SLOTS; i++) {
		if (!st.slot[i].busy)
			continue;
		btc_outf(&o, "%s", busy ? ", " : "");
		put_slot(&o, &st.slot[i]);
		busy++;
	}
	if (!busy)
		btc_outf(&o, "no kernel (between tasks)");
	if (busy == 1 && rc <= 128) /* the one kernel running ended it */
		btc_outf(&o, " ended the process with _exit(%d) or exit_group(%d)", rc, rc);
	else if (rc > 128)
		btc_outf(&o, " %s running when the process was killed by signal %d (SIG%s)",
			 busy > 1 ? "were" : "was", rc - 128,
			 sigabbrev_np(rc - 128) ? sigabbrev_np(rc - 128) : "?");
	else
		btc_outf(&o, " %s running when the process ended with _exit(%d) or exit_group(%d)",
			 busy > 1 ? "were" : "was", rc, rc);
	char phase[sizeof(st.phase) + 1];
	snprintf(phase, sizeof(phase), "%.*s", (int)sizeof(st.phase), st.phase);
	btc_outf(&o, " during the %s, after %llu task%s", phase[0] ? phase : "run",
		       (unsigned long long)st.tasks_done, st.tasks_done == 1 ? "" : "s");
	return o.buf; /* malloc'd; o is not freed */
}

void btc_runstatus_close(struct btc_runstatus *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	unsetenv(BTRT_STATUS_ENV);
}
