/* The run status shared with the parent (btrt_status.h): a mirror of the
 * watch table's slots, the run's state and the count of finished tasks,
 * in a memfd the parent passed by BTRT_STATUS_FD. Every write is a plain
 * store into the shared mapping (relaxed atomics: the parent reads only
 * after the process is gone, when every store it made is there). Nothing
 * here fails the run: without the variable, or with a descriptor that
 * cannot be mapped, the program runs unobserved. */
#include "btrt_watchdog.h"

#include <btrt_status.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static struct btrt_status *status;
/* The strings last copied into each slot (a slot's owner alone writes
 * its entry): the copy is made only when the stage or PU changes. */
static const char *copied_name[BTRT_STATUS_SLOTS], *copied_pu[BTRT_STATUS_SLOTS];

static void copy(char *dst, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n > BTRT_STATUS_NAME - 1)
		n = BTRT_STATUS_NAME - 1;
	memcpy(dst, s ? s : "", n);
	dst[n] = 0;
}

void btrt_status_map(const char *phase)
{
	const char *v = getenv(BTRT_STATUS_ENV);
	if (!v || !*v || status)
		return;
	char *end;
	long fd = strtol(v, &end, 10);
	/* for this process only: a program it starts does not inherit the
	 * number (the descriptor is closed below) */
	unsetenv(BTRT_STATUS_ENV);
	struct stat st;
	uint32_t offer = 0;
	if (*end || fd < 3 || fd > 1 << 20 || fstat((int)fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)sizeof *status ||
	    pread((int)fd, &offer, sizeof offer, 0) != (ssize_t)sizeof offer ||
	    offer != BTRT_STATUS_OFFER)
		return;
	void *m = mmap(NULL, sizeof *status, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	/* the mapping stays; the descriptor is not passed on to what the
	 * program may start */
	close((int)fd);
	if (m == MAP_FAILED)
		return;
	status = m;
	memset(status, 0, sizeof *status);
	copy(status->phase, phase);
	__atomic_store_n(&status->magic, BTRT_STATUS_MAGIC, __ATOMIC_RELEASE);
}

void btrt_status_state(unsigned state)
{
	if (status)
		__atomic_store_n(&status->state, (uint32_t)state, __ATOMIC_RELEASE);
}

void btrt_status_begin(int slot, int stage, const char *name, const char *pu, uint64_t seq)
{
	if (!status || slot < 0 || slot >= BTRT_STATUS_SLOTS)
		return;
	struct btrt_status_slot *s = &status->slot[slot];
	if (copied_name[slot] != name) {
		copy(s->stage_name, name);
		copied_name[slot] = name;
	}
	if (copied_pu[slot] != pu) {
		copy(s->pu, pu);
		copied_pu[slot] = pu;
	}
	__atomic_store_n(&s->stage, (int32_t)stage, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, seq, __ATOMIC_RELAXED);
	__atomic_store_n(&s->busy, 1u, __ATOMIC_RELEASE);
}

void btrt_status_end(int slot, int leave)
{
	if (!status || slot < 0 || slot >= BTRT_STATUS_SLOTS)
		return;
	__atomic_store_n(&status->slot[slot].busy, 0u, __ATOMIC_RELEASE);
	if (leave) /* the next owner copies its own strings */
		copied_name[slot] = copied_pu[slot] = NULL;
}

void btrt_status_task_done(void)
{
	if (status)
		__atomic_fetch_add(&status->tasks_done, 1, __ATOMIC_RELAXED);
}
