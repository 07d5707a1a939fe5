/* NumPy .npy reader: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
   Layout: "\x93NUMPY", major, minor, header length (u16 LE for 1.x, u32 LE
   for 2.x/3.x), a Python dict literal
   {'descr': '<f4', 'fortran_order': False, 'shape': (16, 3, 3, 3), }
   padded with spaces and '\n', then the raw data. */
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void npy_shape_str(const int64_t *shape, int ndim, char *buf, size_t len)
{
	size_t n = 0;
	n += (size_t)snprintf(buf + n, len - n, "(");
	for (int i = 0; i < ndim && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? ", " : "",
				      (long long)shape[i]);
	if (n < len)
		snprintf(buf + n, len - n, ndim == 1 ? ",)" : ")");
}

void npy_free(struct npy_array *a)
{
	free(a->data);
	a->data = NULL;
	a->count = 0;
}

/* Finds the value text after 'key': in the header dict; NULL if absent. */
static const char *dict_value(const char *hdr, const char *key)
{
	char pat[32];
	snprintf(pat, sizeof pat, "'%s'", key);
	const char *p = strstr(hdr, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	while (isspace((unsigned char)*p))
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

int npy_read_f32(const char *path, struct npy_array *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	unsigned char pre[12];
	char *hdr = NULL;
	char descr[32] = "?", shape_s[160] = "?";
	int rc = -1;
	if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
		snprintf(err, errlen, "%s: not a NumPy .npy file (bad magic)", path);
		goto out;
	}
	size_t hlen;
	if (pre[6] == 1) {
		if (fread(pre + 8, 1, 2, f) != 2)
			goto trunc;
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
	} else if (pre[6] == 2 || pre[6] == 3) {
		if (fread(pre + 8, 1, 4, f) != 4)
			goto trunc;
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
		       (size_t)pre[11] << 24;
	} else {
		snprintf(err, errlen, "%s: unsupported .npy format version %d.%d",
			 path, pre[6], pre[7]);
		goto out;
	}
	if (hlen > (1u << 20)) {
		snprintf(err, errlen, "%s: .npy header too long (%zu bytes)", path, hlen);
		goto out;
	}
	hdr = malloc(hlen + 1);
	if (!hdr) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	if (fread(hdr, 1, hlen, f) != hlen)
		goto trunc;
	hdr[hlen] = '\0';

	/* descr: a quoted string such as '<f4'. */
	const char *d = dict_value(hdr, "descr");
	if (d && (*d == '\'' || *d == '"')) {
		char q = *d++;
		size_t n = 0;
		while (d[n] && d[n] != q && n + 1 < sizeof descr)
			n++;
		memcpy(descr, d, n);
		descr[n] = '\0';
	} else {
		snprintf(err, errlen, "%s: malformed .npy header (no 'descr'): %s", path, hdr);
		goto out;
	}
	/* shape: a tuple of non-negative integers. */
	const char *s = dict_value(hdr, "shape");
	if (!s || *s != '(') {
		snprintf(err, errlen, "%s: malformed .npy header (no 'shape'): %s", path, hdr);
		goto out;
	}
	s++;
	for (;;) {
		while (isspace((unsigned char)*s) || *s == ',')
			s++;
		if (*s == ')')
			break;
		char *end;
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (end == s || v < 0 || errno || out->ndim == NPY_MAX_DIMS) {
			snprintf(err, errlen, "%s: malformed or unsupported .npy shape in header: %s",
				 path, hdr);
			goto out;
		}
		out->shape[out->ndim++] = v;
		s = end;
	}
	npy_shape_str(out->shape, out->ndim, shape_s, sizeof shape_s);
	const char *fo = dict_value(hdr, "fortran_order");
	int fortran = fo && strncmp(fo, "True", 4) == 0;
	if (!fo || (!fortran && strncmp(fo, "False", 5) != 0)) {
		snprintf(err, errlen, "%s: malformed .npy header (fortran_order): %s", path, hdr);
		goto out;
	}
	if (strcmp(descr, "<f4") != 0 || fortran) {
		snprintf(err, errlen,
			 "%s: dtype '%s', shape %s%s: expected float32 ('<f4') in C order",
			 path, descr, shape_s, fortran ? ", Fortran order" : "");
		goto out;
	}
	size_t count = 1;
	for (int i = 0; i < out->ndim; i++) {
		if (out->shape[i] != 0 && count > SIZE_MAX / 4 / (size_t)out->shape[i]) {
			snprintf(err, errlen, "%s: shape %s too large", path, shape_s);
			goto out;
		}
		count *= (size_t)out->shape[i];
	}
	out->count = count;
	/* The data must be in the file before anything is allocated for it:
	   a header can claim any shape. */
	long here = ftell(f), end = -1;
	if (here >= 0 && fseek(f, 0, SEEK_END) == 0)
		end = ftell(f);
	if (here < 0 || end < 0 || fseek(f, here, SEEK_SET) != 0) {
		snprintf(err, errlen, "%s: cannot determine the size: %s", path, strerror(errno));
		goto out;
	}
	if ((size_t)(end - here) / sizeof(float) < count) {
		snprintf(err, errlen, "%s: truncated data: dtype '%s', shape %s needs %zu bytes, the file has %ld",
			 path, descr, shape_s, count * sizeof(float), end - here);
		goto out;
	}
	out->data = malloc(count ? count * sizeof(float) : 1);
	if (!out->data) {
		snprintf(err, errlen, "%s: out of memory for shape %s", path, shape_s);
		goto out;
	}
	if (fread(out->data, sizeof(float), count, f) != count) {
		snprintf(err, errlen, "%s: truncated data: dtype '%s', shape %s needs %zu bytes",
			 path, descr, shape_s, count * sizeof(float));
		goto out;
	}
	rc = 0;
	goto out;
trunc:
	snprintf(err, errlen, "%s: truncated .npy header", path);
out:
	if (rc)
		npy_free(out);
	free(hdr);
	fclose(f);
	return rc;
}
