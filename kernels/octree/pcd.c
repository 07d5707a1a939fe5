/* pcd.c: PCD reader (see pcd.h). Format reference: the PCL file format
 * documentation, "The PCD (Point Cloud Data) file format", v0.7: a text
 * header of KEYWORD value lines ending with DATA, then the points, in
 * text (ascii), point-major records (binary) or, for binary_compressed,
 * two little-endian uint32 (compressed size, uncompressed size) and an
 * LZF block that expands to field-major arrays (all x, then all y, ...). */
#include "pcd.h"
#include "errmsg.h"

#include <errno.h>
#include <liblzf/lzf.h> /* Debian's liblzf-dev: /usr/include/liblzf/lzf.h */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCD_MAX_FIELDS 256
#define PCD_MAX_HEADER (1u << 16)   /* bytes of header before DATA */
#define PCD_MAX_COUNT (1u << 20)    /* COUNT of one field */

struct pcd_field {
	char name[64];
	unsigned size;   /* bytes per value: 1, 2, 4, 8 */
	char type;       /* 'I', 'U', 'F' */
	unsigned count;  /* values per point */
	uint64_t offset; /* byte offset in a point record */
	uint64_t index;  /* index of its first value in an ascii line */
};

struct pcd_header {
	struct pcd_field f[PCD_MAX_FIELDS];
	int n_fields, n_size, n_type, n_count;
	int64_t width, height, points;
	int have_width, have_height, have_points;
	char data[20];
};


/* Splits the line [s, e) into at most max whitespace-separated tokens,
 * copied NUL-terminated into buf (size bufsz). Returns the token count, or
 * -1 when the line does not fit. */
static int split(const char *s, const char *e, char *buf, size_t bufsz,
		 char **tok, int max)
{
	size_t len = (size_t)(e - s);
	int n = 0;
	if (len + 1 > bufsz)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (char *p = buf; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return -1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
	}
	return n;
}

/* Parses a non-negative decimal integer token <= max. */
static int parse_uint(const char *t, int64_t max, int64_t *v)
{
	char *end;
	long long x;
	if (*t < '0' || *t > '9')
		return -1;
	errno = 0;
	x = strtoll(t, &end, 10);
	if (errno || *end || x < 0 || x > max)
		return -1;
	*v = x;
	return 0;
}

static int find_field(const struct pcd_header *h, const char *name)
{
	for (int i = 0; i < h->n_fields; i++)
		if (strcmp(h->f[i].name, name) == 0)
			return i;
	return -1;
}

/* Reads the header lines up to and including DATA; *pos is the offset of
 * the first data byte on return. */
static int parse_header(const uint8_t *data, size_t size, struct pcd_header *h,
			size_t *pos, char *err, size_t errlen)
{
	char *tok[PCD_MAX_FIELDS + 1];
	size_t p = 0;
	int lineno = 0;
	memset(h, 0, sizeof *h);
	while (p < size) {
		const char *s = (const char *)data + p;
		const char *nl = memchr(s, '\n', size - p);
		const char *e = nl ? nl : (const char *)data + size;
		char buf[4096];
		int n;
		lineno++;
		p = (size_t)(e - (const char *)data) + (nl ? 1 : 0);
		if (p > PCD_MAX_HEADER)
			return octree_fail(err, errlen, "line %d: header longer than %u bytes "
				    "(no DATA line?)", lineno, PCD_MAX_HEADER);
		n = split(s, e, buf, sizeof buf, tok, PCD_MAX_FIELDS + 1);
		if (n < 0)
			return octree_fail(err, errlen, "line %d: header line too long "
				    "(at most %d fields)", lineno, PCD_MAX_FIELDS);
		if (n == 0 || tok[0][0] == '#')
			continue;
		const char *kw = tok[0];
		int nv = n - 1;
		char **v = tok + 1;
		if (!strcmp(kw, "VERSION") || !strcmp(kw, "VIEWPOINT")) {
			continue;
		} else if (!strcmp(kw, "FIELDS") || !strcmp(kw, "COLUMNS")) {
			if (nv < 1)
				return octree_fail(err, errlen, "line %d: FIELDS without names", lineno);
			h->n_fields = nv;
			for (int i = 0; i < nv; i++) {
				if (strlen(v[i]) >= sizeof h->f[i].name)
					return octree_fail(err, errlen, "line %d: field name too long", lineno);
				strcpy(h->f[i].name, v[i]);
			}
		} else if (!strcmp(kw, "SIZE") || !strcmp(kw, "TYPE") || !strcmp(kw, "COUNT")) {
			if (!h->n_fields)
				return octree_fail(err, errlen, "line %d: %s before FIELDS", lineno, kw);
			if (nv != h->n_fields)
				return octree_fail(err, errlen, "line %d: %s has %d values for %d fields",
					    lineno, kw, nv, h->n_fields);
			for (int i = 0; i < nv; i++) {
				int64_t x;
				if (kw[0] == 'T') {
					if (strlen(v[i]) != 1 || !strchr("IUF", v[i][0]))
						return octree_fail(err, errlen, "line %d: TYPE '%s' is not I, U or F",
							    lineno, v[i]);
					h->f[i].type = v[i][0];
				} else if (kw[0] == 'S') {
					if (parse_uint(v[i], 8, &x) || (x != 1 && x != 2 && x != 4 && x != 8))
						return octree_fail(err, errlen, "line %d: SIZE '%s' is not 1, 2, 4 or 8",
							    lineno, v[i]);
					h->f[i].size = (unsigned)x;
				} else {
					if (parse_uint(v[i], PCD_MAX_COUNT, &x) || x < 1)
						return octree_fail(err, errlen, "line %d: bad COUNT '%s'", lineno, v[i]);
					h->f[i].count = (unsigned)x;
				}
			}
			if (kw[0] == 'T')
				h->n_type = nv;
			else if (kw[0] == 'S')
				h->n_size = nv;
			else
				h->n_count = nv;
		} else if (!strcmp(kw, "WIDTH") || !strcmp(kw, "HEIGHT") || !strcmp(kw, "POINTS")) {
			int64_t x;
			if (nv != 1 || parse_uint(v[0], UINT32_MAX, &x))
				return octree_fail(err, errlen, "line %d: bad %s value", lineno, kw);
			if (kw[0] == 'W') {
				h->width = x;
				h->have_width = 1;
			} else if (kw[0] == 'H') {
				h->height = x;
				h->have_height = 1;
			} else {
				h->points = x;
				h->have_points = 1;
			}
		} else if (!strcmp(kw, "DATA")) {
			if (nv != 1 || strlen(v[0]) >= sizeof h->data)
				return octree_fail(err, errlen, "line %d: bad DATA line", lineno);
			strcpy(h->data, v[0]);
			*pos = p;
			return 0;
		} else {
			return octree_fail(err, errlen, "line %d: unknown header keyword '%.40s'", lineno, kw);
		}
	}
	return octree_fail(err, errlen, "no DATA line (file truncated in the header?)");
}

/* Checks the header and fills offsets; returns the point record size. */
static int check_header(struct pcd_header *h, uint32_t max_points, uint64_t *rec,
			uint64_t *values, char *err, size_t errlen)
{
	uint64_t off = 0, nval = 0;
	if (!h->n_fields)
		return octree_fail(err, errlen, "no FIELDS line");
	if (h->n_size != h->n_fields || h->n_type != h->n_fields)
		return octree_fail(err, errlen, "SIZE and TYPE must give one value per field");
	for (int i = 0; i < h->n_fields; i++) {
		struct pcd_field *f = &h->f[i];
		if (!h->n_count)
			f->count = 1;
		if (f->type == 'F' && f->size != 4 && f->size != 8)
			return octree_fail(err, errlen, "field '%s': float of SIZE %u", f->name, f->size);
		f->offset = off;
		f->index = nval;
		off += (uint64_t)f->size * f->count;
		nval += f->count;
	}
	static const char *axes[3] = { "x", "y", "z" };
	for (int a = 0; a < 3; a++) {
		int i = find_field(h, axes[a]);
		if (i < 0)
			return octree_fail(err, errlen, "no field '%s'", axes[a]);
		if (h->f[i].type != 'F' || h->f[i].count != 1)
			return octree_fail(err, errlen, "field '%s' must be TYPE F with COUNT 1", axes[a]);
	}
	/* WIDTH and HEIGHT are at most 2^32 - 1 each: the product fits uint64 */
	uint64_t wh = (uint64_t)h->width * (uint64_t)(h->have_height ? h->height : 1);
	if (!h->have_points) {
		if (!h->have_width)
			return octree_fail(err, errlen, "neither POINTS nor WIDTH given");
		if (wh > (uint64_t)max_points)
			return octree_fail(err, errlen, "WIDTH*HEIGHT %llu exceeds the limit of %u points",
				    (unsigned long long)wh, max_points);
		h->points = (int64_t)wh;
	} else if (h->have_width && wh != (uint64_t)h->points) {
		return octree_fail(err, errlen, "POINTS %lld does not match WIDTH*HEIGHT %llu",
			    (long long)h->points, (unsigned long long)wh);
	}
	if (h->points > (int64_t)max_points)
		return octree_fail(err, errlen, "POINTS %lld exceeds the limit of %u points",
			    (long long)h->points, max_points);
	*rec = off;
	*values = nval;
	return 0;
}

static double get_value(const uint8_t *p, unsigned size)
{
	if (size == 8) {
		double d;
		memcpy(&d, p, 8);
		return d;
	}
	float f;
	memcpy(&f, p, 4);
	return f;
}

static void keep(struct pcd_cloud *c, double x, double y, double z)
{
	float fx = (float)x, fy = (float)y, fz = (float)z;
	if (!isfinite(fx) || !isfinite(fy) || !isfinite(fz))
		return;
	float *q = c->xyzw + (size_t)c->n * 4;
	q[0] = fx;
	q[1] = fy;
	q[2] = fz;
	q[3] = 0.0f;
	c->n++;
}

static int read_ascii(const struct pcd_header *h, const uint8_t *data, size_t size,
		      size_t pos, uint64_t nval, struct pcd_cloud *c, char *err, size_t errlen)
{
	const struct pcd_field *fx = &h->f[find_field(h, "x")];
	const struct pcd_field *fy = &h->f[find_field(h, "y")];
	const struct pcd_field *fz = &h->f[find_field(h, "z")];
	uint64_t got = 0;
	char buf[256];
	while (got < (uint64_t)h->points) {
		if (pos >= size)
			return octree_fail(err, errlen, "truncated ascii data: %llu of %lld points",
				    (unsigned long long)got, (long long)h->points);
		const char *s = (const char *)data + pos;
		const char *nl = memchr(s, '\n', size - pos);
		const char *e = nl ? nl : (const char *)data + size;
		pos = (size_t)(e - (const char *)data) + (nl ? 1 : 0);
		double xyz[3] = { 0, 0, 0 };
		uint64_t k = 0;
		const char *p = s;
		for (;;) {
			while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
				p++;
			if (p == e)
				break;
			const char *q = p;
			while (q < e && *q != ' ' && *q != '\t' && *q != '\r')
				q++;
			const struct pcd_field *want[3] = { fx, fy, fz };
			for (int a = 0; a < 3; a++) {
				if (k != want[a]->index)
					continue;
				size_t len = (size_t)(q - p);
				char *end;
				if (len >= sizeof buf)
					return octree_fail(err, errlen, "point %llu: value too long",
						    (unsigned long long)got);
				memcpy(buf, p, len);
				buf[len] = '\0';
				xyz[a] = strtod(buf, &end);
				if (*end)
					return octree_fail(err, errlen, "point %llu: bad number '%.40s'",
						    (unsigned long long)got, buf);
			}
			k++;
			p = q;
		}
		if (k == 0)
			continue; /* blank line */
		if (k != nval)
			return octree_fail(err, errlen, "point %llu: %llu values, expected %llu",
				    (unsigned long long)got, (unsigned long long)k,
				    (unsigned long long)nval);
		keep(c, xyz[0], xyz[1], xyz[2]);
		got++;
	}
	return 0;
}

int pcd_parse(const uint8_t *data, size_t size, uint32_t max_points,
	      struct pcd_cloud *out, char *err, size_t errlen)
{
	struct pcd_header h;
	size_t pos = 0;
	uint64_t rec = 0, nval = 0;
	memset(out, 0, sizeof *out);
	if (parse_header(data, size, &h, &pos, err, errlen) ||
	    check_header(&h, max_points, &rec, &nval, err, errlen))
		return -1;
	uint64_t n = (uint64_t)h.points;
	if (n)
		out->xyzw = malloc(n * 4 * sizeof(float));
	if (n && !out->xyzw)
		return octree_fail(err, errlen, "out of memory for %llu points", (unsigned long long)n);
	out->n_declared = (uint32_t)n;
	out->width = (uint32_t)(h.have_width ? h.width : h.points);
	out->height = (uint32_t)(h.have_height ? h.height : 1);
	snprintf(out->data_kind, sizeof out->data_kind, "%s", h.data);
	const struct pcd_field *f[3] = { &h.f[find_field(&h, "x")],
		&h.f[find_field(&h, "y")], &h.f[find_field(&h, "z")] };
	int rc = 0;
	if (!strcmp(h.data, "ascii")) {
		rc = read_ascii(&h, data, size, pos, nval, out, err, errlen);
	} else if (!strcmp(h.data, "binary")) {
		if (n && rec > (size - pos) / n)
			rc = octree_fail(err, errlen, "truncated binary data: need %llu bytes, have %zu",
				  (unsigned long long)(rec * n), size - pos);
		for (uint64_t i = 0; !rc && i < n; i++) {
			const uint8_t *r = data + pos + i * rec;
			keep(out, get_value(r + f[0]->offset, f[0]->size),
			     get_value(r + f[1]->offset, f[1]->size),
			     get_value(r + f[2]->offset, f[2]->size));
		}
	} else if (!strcmp(h.data, "binary_compressed")) {
		uint32_t csize = 0, usize = 0;
		if (size - pos < 8) {
			rc = octree_fail(err, errlen, "truncated binary_compressed data: no block sizes");
		} else {
			memcpy(&csize, data + pos, 4);
			memcpy(&usize, data + pos + 4, 4);
			pos += 8;
		}
		if (rc)
			;
		else if ((uint64_t)usize != rec * n)
			rc = octree_fail(err, errlen, "binary_compressed: uncompressed size %u, "
				  "expected %llu (POINTS x point size)", usize,
				  (unsigned long long)(rec * n));
		else if (usize > 88ull * csize + 8)
			/* an LZF token of at most 3 bytes expands to at most 264 */
			rc = octree_fail(err, errlen, "corrupt LZF block: %u bytes cannot expand to %u",
				  csize, usize);
		else if (csize > size - pos)
			rc = octree_fail(err, errlen, "truncated binary_compressed data: block of %u "
				  "bytes, %zu left", csize, size - pos);
		else if (usize) {
			uint8_t *u = malloc(usize);
			if (!u) {
				rc = octree_fail(err, errlen, "out of memory (%u bytes)", usize);
			} else {
				unsigned got = lzf_decompress(data + pos, csize, u, usize);
				if (got != usize) {
					rc = octree_fail(err, errlen, "corrupt LZF block: expanded to %u of "
						  "%u bytes", got, usize);
				} else {
					/* field-major: field j's values start at offset_j * n */
					for (uint64_t i = 0; i < n; i++)
						keep(out,
						     get_value(u + f[0]->offset * n + i * f[0]->size, f[0]->size),
						     get_value(u + f[1]->offset * n + i * f[1]->size, f[1]->size),
						     get_value(u + f[2]->offset * n + i * f[2]->size, f[2]->size));
				}
				free(u);
			}
		}
	} else {
		rc = octree_fail(err, errlen, "unknown DATA kind '%.20s' (ascii, binary or "
			  "binary_compressed)", h.data);
	}
	if (rc)
		pcd_free(out);
	return rc;
}

int pcd_read_file(const char *path, uint32_t max_points, struct pcd_cloud *out,
		  char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;
	memset(out, 0, sizeof *out);
	if (!fp)
		return octree_fail(err, errlen, "%s: %s", path, strerror(errno));
	if (fseek(fp, 0, SEEK_END) || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) {
		fclose(fp);
		return octree_fail(err, errlen, "%s: cannot seek", path);
	}
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, fp) != (size_t)len) {
		free(buf);
		fclose(fp);
		return octree_fail(err, errlen, "%s: read failed", path);
	}
	fclose(fp);
	char msg[256];
	int rc = pcd_parse(buf, (size_t)len, max_points, out, msg, sizeof msg);
	free(buf);
	if (rc)
		return octree_fail(err, errlen, "%s: %s", path, msg);
	return 0;
}

void pcd_free(struct pcd_cloud *c)
{
	if (!c)
		return;
	free(c->xyzw);
	memset(c, 0, sizeof *c);
}
