/* io.c: octree_io, the octree app's input and output check.
 *
 * open() parses every frame of the input (a directory of .pcd files, taken
 * in name order, or one file) once; load() copies frame seq mod count into
 * the TaskObject with its bounding cube (btrt_io_copy: streaming stores); check() compares the task's octree
 * with the sequential reference (computed once per frame, on first use) and
 * prints the digest line. check may run on several threads at once for
 * different tasks (docs/app-format.md, "io"): it holds s->lock only to look
 * up the reference and to count. */
#include "io.h"

#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pcd.h"
#include "reference.h"

struct octree_io_state {
	struct octree_params params;
	int n_frames;
	char **paths;
	struct pcd_cloud *clouds;     /* [n_frames] */
	float (*cubes)[4];            /* [n_frames] */
	pthread_mutex_t lock;         /* guards the making of refs (have_ref)
					 and the counters; a made ref is read
					 without it */
	struct octree_ref *refs;      /* [n_frames], filled on first check */
	unsigned char *have_ref;
	uint64_t checked, failed;
};

static void msg(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void msg(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void octree_free_paths(char **paths, int n)
{
	for (int i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

int octree_list_inputs(const char *dir, char ***paths, char *err, size_t errlen)
{
	struct stat st;
	*paths = NULL;
	if (stat(dir, &st)) {
		msg(err, errlen, "%s: cannot open input", dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		*paths = malloc(sizeof **paths);
		if (!*paths || !((*paths)[0] = strdup(dir))) {
			free(*paths);
			*paths = NULL;
			msg(err, errlen, "out of memory");
			return -1;
		}
		return 1;
	}
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0, cap = 0;
	char **v = NULL;
	if (!d) {
		msg(err, errlen, "%s: cannot open directory", dir);
		return -1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".pcd"))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			char **nv = realloc(v, (size_t)cap * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		size_t plen = strlen(dir) + len + 2;
		if (!(v[n] = malloc(plen)))
			break;
		snprintf(v[n++], plen, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n == 0) {
		free(v);
		msg(err, errlen, "%s: no .pcd files", dir);
		return -1;
	}
	qsort(v, (size_t)n, sizeof *v, cmp_str);
	*paths = v;
	return n;
}

void octree_fill_task(struct octree_task *t, const float *xyzw, uint32_t n)
{
	float cube[4];
	octree_bounding_cube(xyzw, n, cube);
	memcpy(t->points, xyzw, (size_t)n * 4 * sizeof(float));
	memcpy(t->cube, cube, sizeof cube);
	t->n_points[0] = n;
}

void octree_digest(char *buf, size_t len, uint64_t seq, uint32_t n_points,
		   uint32_t n_unique, const int32_t *nodes, uint32_t n_nodes)
{
	uint64_t h = octree_fnv1a(nodes, (size_t)n_nodes * OCTREE_NODE_WORDS * 4);
	snprintf(buf, len, "frame %" PRIu64 " points %u unique %u nodes %u hash %016" PRIx64,
		 seq, n_points, n_unique, n_nodes, h);
}

static void io_close(void *state, FILE *out);

static int read_frame(struct octree_io_state *s, int f, char *err, size_t errlen)
{
	uint32_t limit = s->params.max_points > UINT32_MAX ? UINT32_MAX
		: (uint32_t)s->params.max_points;
	if (pcd_read_file(s->paths[f], limit, &s->clouds[f], err, errlen))
		return -1;
	octree_bounding_cube(s->clouds[f].xyzw, s->clouds[f].n, s->cubes[f]);
	return 0;
}

/* A step of one frame that writes only that frame's state. */
typedef int (*frame_fn)(struct octree_io_state *s, int f, char *err, size_t errlen);

/* for_each_frame's frames: each one's outcome and error apart. */
struct frame_pool {
	struct octree_io_state *s;
	frame_fn fn;
	int *rc;          /* [n] */
	char (*err)[256]; /* [n] */
};

static void frame_one(void *ctx, size_t f)
{
	struct frame_pool *fp = ctx;
	fp->rc[f] = fp->fn(fp->s, (int)f, fp->err[f], sizeof fp->err[f]);
}

/* fn on frames 0..n-1 at once (btrt_io_parallel: on as many threads as
 * the process may use, at most 64 and n): the input's open and the
 * references before a run take about n / threads frames' time rather
 * than n (the tuner runs every schedule's program afresh: 6 frames of
 * octree's input), and a directory of many frames starts no more threads
 * than cores. The first failing frame in order names the error, however
 * the threads end; without memory for the frames' results, one after the
 * other. 0, or -1 with err. */
static int for_each_frame(struct octree_io_state *s, int n, frame_fn fn, char *err, size_t errlen)
{
	struct frame_pool fp = {.s = s, .fn = fn};
	fp.rc = calloc((size_t)n + 1, sizeof *fp.rc);
	fp.err = calloc((size_t)n + 1, sizeof *fp.err);
	if (!fp.rc || !fp.err) {
		free(fp.rc);
		free(fp.err);
		for (int f = 0; f < n; f++)
			if (fn(s, f, err, errlen))
				return -1;
		return 0;
	}
	btrt_io_parallel((size_t)n, frame_one, &fp);
	int rc = 0;
	for (int f = 0; f < n && rc == 0; f++)
		if (fp.rc[f]) {
			msg(err, errlen, "%s", fp.err[f]);
			rc = -1;
		}
	free(fp.rc);
	free(fp.err);
	return rc;
}

static void *io_open(const char *path, const void *params, char *err, size_t errlen)
{
	struct octree_io_state *s = calloc(1, sizeof *s);
	struct octree_params defaults = OCTREE_DEFAULT_PARAMS;
	if (!s) {
		msg(err, errlen, "out of memory");
		return NULL;
	}
	s->params = params ? *(const struct octree_params *)params : defaults;
	pthread_mutex_init(&s->lock, NULL);
	if (!path) {
		msg(err, errlen, "no input: pass a directory of .pcd files or one .pcd file");
		io_close(s, NULL);
		return NULL;
	}
	s->n_frames = octree_list_inputs(path, &s->paths, err, errlen);
	if (s->n_frames < 0) {
		s->n_frames = 0;
		io_close(s, NULL);
		return NULL;
	}
	s->clouds = calloc((size_t)s->n_frames, sizeof *s->clouds);
	s->cubes = calloc((size_t)s->n_frames, sizeof *s->cubes);
	s->refs = calloc((size_t)s->n_frames, sizeof *s->refs);
	s->have_ref = calloc((size_t)s->n_frames, 1);
	if (!s->clouds || !s->cubes || !s->refs || !s->have_ref) {
		msg(err, errlen, "out of memory");
		io_close(s, NULL);
		return NULL;
	}
	if (for_each_frame(s, s->n_frames, read_frame, err, errlen)) {
		io_close(s, NULL);
		return NULL;
	}
	return s;
}

static int io_load(void *state, uint64_t seq, void *task, char *err, size_t errlen)
{
	struct octree_io_state *s = state;
	struct octree_task *t = task;
	const struct pcd_cloud *c = &s->clouds[seq % (uint64_t)s->n_frames];
	(void)err;
	(void)errlen;
	btrt_io_copy(t->points, c->xyzw, (size_t)c->n * 4 * sizeof(float));
	memcpy(t->cube, s->cubes[seq % (uint64_t)s->n_frames], 4 * sizeof(float));
	t->n_points[0] = c->n;
	return 1;
}

/* The sequential reference of frame f, computed once. Call with s->lock
 * (io_prepare holds it for its threads, each frame on one of them). */
static int ensure_ref(struct octree_io_state *s, int f, char *err, size_t errlen)
{
	if (s->have_ref[f])
		return 0;
	const struct pcd_cloud *c = &s->clouds[f];
	if (octree_reference(c->xyzw, c->n, s->cubes[f], &s->refs[f], err, errlen))
		return -1;
	s->have_ref[f] = 1;
	return 0;
}

/* Before a run: the references of every frame the run will check, at
 * once (for_each_frame; each reference is sequential and writes only its
 * own refs[f]; before a run nothing else reads them), so a run starts
 * about one frame's reference after its input opened, not n of them.
 * Holds s->lock throughout. */
static int io_prepare(void *state, uint64_t n_items, char *err, size_t errlen)
{
	struct octree_io_state *s = state;
	int n = (int)(n_items && n_items < (uint64_t)s->n_frames ? n_items : (uint64_t)s->n_frames);
	pthread_mutex_lock(&s->lock);
	int rc = for_each_frame(s, n, ensure_ref, err, errlen);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int io_check(void *state, uint64_t seq, const void *task, FILE *out,
		    char *err, size_t errlen)
{
	struct octree_io_state *s = state;
	const struct octree_task *t = task;
	int f = (int)(seq % (uint64_t)s->n_frames), rc = 0;
	char line[160] = "";
	/* The lock covers the reference lookup (computed once; prepare made
	 * them all before a timed run) and the counters only: checks of
	 * different tasks may run at once (the io sink's check farm), and a
	 * reference, once made, is never written again. */
	pthread_mutex_lock(&s->lock);
	int bad = ensure_ref(s, f, err, errlen);
	pthread_mutex_unlock(&s->lock);
	if (bad)
		return -1;
	const struct octree_ref *r = &s->refs[f];
	uint32_t nu = t->n_unique[0], nn = t->n_nodes[0];
	uint64_t cap = octree_max_nodes((uint64_t)s->params.max_points);
	/* The digest (a hash of the node array) only when someone reads it:
	 * the byte comparison below is the check. */
	if (out)
		octree_digest(line, sizeof line, seq, t->n_points[0], nu, t->nodes,
			      nn <= cap ? nn : 0);
	if (t->n_points[0] != r->n_points || nu != r->n_unique || nn != r->n_nodes ||
	    memcmp(t->nodes, r->nodes, (size_t)nn * sizeof *r->nodes)) {
		msg(err, errlen, "frame %" PRIu64 " (%s): octree differs from the reference "
		    "(unique %u vs %u, nodes %u vs %u, reference hash %016" PRIx64 ")",
		    seq, s->paths[f], nu, r->n_unique, nn, r->n_nodes, r->hash);
		rc = -1;
	}
	pthread_mutex_lock(&s->lock);
	s->checked++;
	s->failed += rc != 0;
	pthread_mutex_unlock(&s->lock);
	if (out)
		fprintf(out, "%s%s\n", line, rc ? " MISMATCH" : "");
	return rc;
}

static void io_close(void *state, FILE *out)
{
	struct octree_io_state *s = state;
	if (!s)
		return;
	if (out)
		fprintf(out, "octree: %" PRIu64 " frames checked, %" PRIu64 " mismatches "
			"(%d input files)\n", s->checked, s->failed, s->n_frames);
	for (int i = 0; i < s->n_frames; i++) {
		if (s->clouds)
			pcd_free(&s->clouds[i]);
		if (s->refs)
			octree_ref_free(&s->refs[i]);
	}
	octree_free_paths(s->paths, s->n_frames);
	free(s->clouds);
	free(s->cubes);
	free(s->refs);
	free(s->have_ref);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const struct btrt_app_io octree_io = {
	.open = io_open,
	.load = io_load,
	.check = io_check,
	.close = io_close,
	.prepare = io_prepare,
};
