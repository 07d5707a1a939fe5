#include "front/device.h"

#include <dirent.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "front/yamldoc.h"
#include "util/str.h"
#include "util/escape.h"
#include "util/num.h"
#include "util/infile.h"

int btc_device_pu_index(const struct btc_device *dev, const char *name)
{
	for (int i = 0; i < dev->n_pus; i++)
		if (!strcmp(dev->pus[i].name, name))
			return i;
	return -1;
}

int btc_pu_pinnable(const struct btc_pu *pu, const int **cores)
{
	if (pu->pinnable) {
		*cores = pu->pinnable;
		return pu->n_pinnable;
	}
	*cores = pu->cores;
	return pu->n_cores;
}

static void pu_free(struct btc_pu *pu)
{
	free(pu->name);
	free(pu->cores);
	free(pu->pinnable);
	free(pu->core_type);
	free(pu->gpu_name);
	free(pu->select);
	free(pu->ref_column);
}

void btc_device_free(struct btc_device *dev)
{
	if (!dev)
		return;
	for (int i = 0; i < dev->n_pus; i++)
		pu_free(&dev->pus[i]);
	free(dev->name);
	free(dev->description);
	free(dev->os);
	free(dev->arch);
	free(dev->cross_file);
	free(dev->path);
	free(dev);
}

static bool one_of(const char *s, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (!strcmp(s, *allowed))
			return true;
	return false;
}

/* `pinnable: [ids]`: a nonempty subset of the CPU PU's cores, no id twice. */
static void load_pinnable(struct btc_yaml *y, yaml_node_t *n, struct btc_pu *pu, struct btc_diag *d)
{
	int len;
	if (pu->kind != BTC_BACKEND_CPU) {
		btc_error(d, btc_yaml_loc(y, n), "pinnable is only for CPU PUs");
		return;
	}
	if (!btc_yaml_seq(y, n, "pinnable", &len, d))
		return;
	if (len == 0) {
		btc_error(d, btc_yaml_loc(y, n),
			  "PU '%s': pinnable lists no core (a CPU PU needs one to run on)",
			  pu->name);
		return;
	}
	pu->pinnable = btc_xcalloc((size_t)len, sizeof(int));
	for (int i = 0; i < len; i++) {
		int64_t c;
		yaml_node_t *item = btc_yaml_item(y, n, i);
		if (!btc_yaml_int(y, item, "core id", 0, 1023, &c, d))
			continue;
		bool in = false, twice = false;
		for (int j = 0; j < pu->n_cores; j++)
			in |= pu->cores[j] == c;
		for (int j = 0; j < pu->n_pinnable; j++)
			twice |= pu->pinnable[j] == c;
		if (!in)
			btc_error(d, btc_yaml_loc(y, item),
				  "pinnable core %d is not one of PU '%s''s cores", (int)c, pu->name);
		else if (twice)
			btc_error(d, btc_yaml_loc(y, item), "pinnable core %d listed twice", (int)c);
		else
			pu->pinnable[pu->n_pinnable++] = (int)c;
	}
}

static void load_pu(struct btc_yaml *y, yaml_node_t *n, struct btc_device *dev, struct btc_diag *d)
{
	static const char *const keys[] = {"!name",      "!kind",         "cores",
					   "core_type",  "max_freq_mhz",  "gpu",
					   "select",     "subgroup_size", "unified_memory",
					   "cpu_backed", "table_column",  "compute_capability",
					   "pinnable",   NULL};
	yaml_node_t *v[13];
	const char *s;
	if (!btc_yaml_map(y, n, "PU", keys, v, d) && !v[0])
		return;
	if (!btc_yaml_name(y, v[0], "PU name", BTC_NAME_C_LABEL, &s, d))
		return;
	if (btc_device_pu_index(dev, s) >= 0) {
		btc_error(d, btc_yaml_loc(y, v[0]), "duplicate PU '%s'", s);
		return;
	}
	if (dev->n_pus == BTC_MAX_PUS) {
		btc_error(d, btc_yaml_loc(y, n), "too many PUs (at most %d)", BTC_MAX_PUS);
		return;
	}
	struct btc_pu *pu = &dev->pus[dev->n_pus++];
	pu->name = btc_xstrdup(s);
	pu->loc = btc_yaml_loc(y, n);
	if (v[1] && btc_yaml_str(y, v[1], "PU kind", &s, d)) {
		int k;
		for (k = 0; k < BTC_N_BACKENDS; k++)
			if (!strcmp(s, btc_backend_name((enum btc_backend)k)))
				break;
		if (k == BTC_N_BACKENDS)
			btc_error(d, btc_yaml_loc(y, v[1]),
				  "unknown PU kind '%s' (expected cpu, cuda or vulkan)", s);
		else
			pu->kind = (enum btc_backend)k;
	}
	int len;
	if (v[2] && btc_yaml_seq(y, v[2], "cores", &len, d)) {
		pu->cores = btc_xcalloc((size_t)len, sizeof(int));
		for (int i = 0; i < len; i++) {
			int64_t c;
			yaml_node_t *item = btc_yaml_item(y, v[2], i);
			if (!btc_yaml_int(y, item, "core id", 0, 1023, &c, d))
				continue;
			for (int j = 0; j < pu->n_cores; j++)
				if (pu->cores[j] == c) {
					btc_error(d, btc_yaml_loc(y, item), "core %d listed twice",
						  (int)c);
					c = -1;
					break;
				}
			if (c >= 0)
				pu->cores[pu->n_cores++] = (int)c;
		}
	}
	if (pu->kind == BTC_BACKEND_CPU && pu->n_cores == 0 && v[1])
		btc_error(d, pu->loc, "CPU PU '%s' has no cores", pu->name);
	if (v[12])
		load_pinnable(y, v[12], pu, d);
	if (v[3] && btc_yaml_str(y, v[3], "core_type", &s, d))
		pu->core_type = btc_xstrdup(s);
	int64_t i64;
	if (v[4] && btc_yaml_int(y, v[4], "max_freq_mhz", 1, 100000, &i64, d))
		pu->max_freq_mhz = (int)i64;
	if (v[5] && btc_yaml_str(y, v[5], "gpu", &s, d))
		pu->gpu_name = btc_xstrdup(s);
	if (v[6] && btc_yaml_str(y, v[6], "select", &s, d))
		pu->select = btc_xstrdup(s);
	if (v[7] && btc_yaml_int(y, v[7], "subgroup_size", 1, 1024, &i64, d))
		pu->subgroup_size = (int)i64;
	if (v[8])
		btc_yaml_bool(y, v[8], "unified_memory", &pu->unified_memory, d);
	if (v[9])
		btc_yaml_bool(y, v[9], "cpu_backed", &pu->cpu_backed, d);
	if (v[10] && btc_yaml_str(y, v[10], "table_column", &s, d))
		pu->ref_column = btc_xstrdup(s);
	if (v[11] && btc_yaml_str(y, v[11], "compute_capability", &s, d)) {
		const char *dot = strchr(s, '.');
		long major = 0, minor = 0;
		if (!dot || !btc_parse_int_n(s, (int)(dot - s), 1, 20, &major) ||
		    !btc_parse_int(dot + 1, 0, 9, &minor))
			btc_error(d, btc_yaml_loc(y, v[11]),
				  "compute_capability must look like 8.7, not '%s'", s);
		else
			pu->cuda_arch = (int)(major * 10 + minor);
	}
	if (pu->kind != BTC_BACKEND_CUDA && v[11])
		btc_error(d, btc_yaml_loc(y, v[11]), "compute_capability is only for CUDA PUs");
	if (pu->kind == BTC_BACKEND_CPU && (v[5] || v[6] || v[7] || v[8] || v[9]))
		btc_error(
			d, pu->loc,
			"CPU PU '%s' cannot have GPU keys (gpu, select, subgroup_size, unified_memory, cpu_backed)",
			pu->name);
}

static void check_core_overlap(struct btc_device *dev, struct btc_diag *d)
{
	for (int a = 0; a < dev->n_pus; a++)
		for (int b = a + 1; b < dev->n_pus; b++) {
			struct btc_pu *pa = &dev->pus[a], *pb = &dev->pus[b];
			if (pa->kind != BTC_BACKEND_CPU || pb->kind != BTC_BACKEND_CPU)
				continue;
			for (int i = 0; i < pa->n_cores; i++)
				for (int j = 0; j < pb->n_cores; j++)
					if (pa->cores[i] == pb->cores[j]) {
						btc_error(
							d, pb->loc,
							"core %d belongs to both PU '%s' and PU '%s'",
							pa->cores[i], pa->name, pb->name);
						return;
					}
		}
}

/* load_yaml's body: the device, or NULL after reporting. */
static struct btc_device *parse_yaml(const char *path, const char *text, struct btc_diag *d)
{
	static const char *const keys[] = {"!device",    "description", "!os",        "!arch",
					   "cross_file", "!pus",        "cpu_groups", NULL};
	static const char *const oses[] = {"linux", "android", NULL};
	static const char *const arches[] = {"x86_64", "aarch64", NULL};
	struct btc_yaml y;
	int before = d->errors;
	if (!btc_yaml_load(&y, path, text, d))
		return NULL;
	struct btc_device *dev = btc_xcalloc(1, sizeof(*dev));
	dev->path = btc_xstrdup(path);
	/* the locations kept in the device (pu->loc) name the device's own
	 * copy: the caller's path may be freed (btc_device_load's library
	 * path is) */
	y.file = dev->path;
	yaml_node_t *v[7];
	const char *s;
	btc_yaml_map(&y, btc_yaml_root(&y), "device description", keys, v, d);
	if (v[0] && btc_yaml_name(&y, v[0], "device name", BTC_NAME_FILE, &s, d))
		dev->name = btc_xstrdup(s);
	if (v[1] && btc_yaml_str(&y, v[1], "description", &s, d))
		dev->description = btc_xstrdup(s);
	if (v[2] && btc_yaml_str(&y, v[2], "os", &s, d)) {
		if (!one_of(s, oses))
			btc_error(d, btc_yaml_loc(&y, v[2]),
				  "unknown os '%s' (expected linux or android)", s);
		dev->os = btc_xstrdup(s);
	}
	if (v[3] && btc_yaml_str(&y, v[3], "arch", &s, d)) {
		if (!one_of(s, arches))
			btc_error(d, btc_yaml_loc(&y, v[3]),
				  "unknown arch '%s' (expected x86_64 or aarch64)", s);
		dev->arch = btc_xstrdup(s);
	}
	if (v[4] && btc_yaml_str(&y, v[4], "cross_file", &s, d))
		dev->cross_file = btc_xstrdup(s);
	int len;
	if (v[5] && btc_yaml_seq(&y, v[5], "pus", &len, d)) {
		if (len == 0)
			btc_error(d, btc_yaml_loc(&y, v[5]), "a device needs at least one PU");
		for (int i = 0; i < len; i++)
			load_pu(&y, btc_yaml_item(&y, v[5], i), dev, d);
	}
	if (d->errors == before)
		check_core_overlap(dev, d);
	int64_t groups = 1;
	if (v[6] && btc_yaml_int(&y, v[6], "cpu_groups", 1, 64, &groups, d) && d->errors == before)
		btc_device_split_cpus(dev, (int)groups, d);
	btc_yaml_free(&y);
	if (d->errors != before) {
		btc_device_free(dev);
		return NULL;
	}
	return dev;
}

/* The device file at path (text: its contents, or NULL to read it); its
 * errors past BTC_DIAG_MAX_PER_FILE summed up in one line, as the app and
 * table loaders do (btc_diag_flush). */
static struct btc_device *load_yaml(const char *path, const char *text, struct btc_diag *d)
{
	struct btc_device *dev = parse_yaml(path, text, d);
	btc_diag_flush(d); /* "... and N more errors" */
	return dev;
}

struct btc_device *btc_device_load(const char *name_or_path, const char *device_dir,
				   const char *text, struct btc_diag *d)
{
	if (!text && !strcmp(name_or_path, "host"))
		return btc_device_detect_host("/sys");
	size_t n = strlen(name_or_path);
	bool is_path = strchr(name_or_path, '/') ||
		       (n > 5 && !strcmp(name_or_path + n - 5, ".yaml"));
	if (text || is_path)
		return load_yaml(name_or_path, text, d);
	const char *why = btc_name_problem(name_or_path, BTC_NAME_FILE);
	if (why) {
		btc_error(d, (struct btc_loc){0}, "device name '%s' %s", name_or_path, why);
		return NULL;
	}
	char *path = btc_xasprintf("%s/%s.yaml", device_dir, name_or_path);
	FILE *f = btc_fopen_regular(path, "r", NULL);
	if (!f) {
		btc_error(d, (struct btc_loc){0},
			  "unknown device '%s' (no %s; `btc devices` lists the known ones)",
			  name_or_path, path);
		free(path);
		return NULL;
	}
	fclose(f);
	struct btc_device *dev = load_yaml(path, NULL, d);
	free(path);
	return dev;
}

bool btc_device_split_cpus(struct btc_device *dev, int n, struct btc_diag *d)
{
	if (n <= 1)
		return true;
	int needed = 0, split = 0;
	for (int i = 0; i < dev->n_pus; i++) {
		bool s = dev->pus[i].kind == BTC_BACKEND_CPU && dev->pus[i].n_cores >= n;
		split += s;
		needed += s ? n : 1;
	}
	if (!split) {
		btc_error(d, (struct btc_loc){dev->path, 0, 0},
			  "cannot split CPU PUs into %d groups: no CPU PU has %d cores", n, n);
		return false;
	}
	if (needed > BTC_MAX_PUS) {
		btc_error(d, (struct btc_loc){dev->path, 0, 0},
			  "splitting CPU PUs into %d groups exceeds %d PUs", n, BTC_MAX_PUS);
		return false;
	}
	/* The new names must stay names and stay unique ("a" split in 10 and
	 * "a1" split in 2 would both make "a10"). */
	char *names[BTC_MAX_PUS];
	int n_names = 0;
	bool ok = true;
	for (int i = 0; i < dev->n_pus; i++) {
		struct btc_pu *pu = &dev->pus[i];
		bool s = pu->kind == BTC_BACKEND_CPU && pu->n_cores >= n;
		for (int g = 0; g < (s ? n : 1); g++)
			names[n_names++] = s ? btc_xasprintf("%s%d", pu->name, g)
					     : btc_xstrdup(pu->name);
	}
	for (int i = 0; i < n_names && ok; i++) {
		const char *why = btc_name_problem(names[i], BTC_NAME_C_LABEL);
		if (why) {
			btc_error(d, (struct btc_loc){dev->path, 0, 0},
				  "splitting CPU PUs into %d groups: PU name '%s' %s", n, names[i],
				  why);
			ok = false;
		}
		for (int j = 0; j < i && ok; j++)
			if (!strcmp(names[i], names[j])) {
				btc_error(
					d, (struct btc_loc){dev->path, 0, 0},
					"splitting CPU PUs into %d groups makes two PUs named '%s'",
					n, names[i]);
				ok = false;
			}
	}
	for (int i = 0; i < n_names; i++)
		free(names[i]);
	if (!ok)
		return false;
	struct btc_pu out[BTC_MAX_PUS];
	int n_out = 0;
	for (int i = 0; i < dev->n_pus; i++) {
		struct btc_pu *pu = &dev->pus[i];
		if (pu->kind != BTC_BACKEND_CPU || pu->n_cores < n) {
			out[n_out++] = *pu;
			continue;
		}
		for (int g = 0; g < n; g++) {
			int lo = pu->n_cores * g / n, hi = pu->n_cores * (g + 1) / n;
			struct btc_pu *q = &out[n_out++];
			*q = *pu;
			q->name = btc_xasprintf("%s%d", pu->name, g);
			q->cores = btc_xcalloc((size_t)(hi - lo), sizeof(int));
			memcpy(q->cores, pu->cores + lo, (size_t)(hi - lo) * sizeof(int));
			q->n_cores = hi - lo;
			q->core_type = pu->core_type ? btc_xstrdup(pu->core_type) : NULL;
			q->ref_column = NULL;
			q->pinnable = NULL;
			q->n_pinnable = 0;
			if (pu->pinnable) {
				/* The group's share of the pinnable cores (maybe none:
				 * schedules then cannot use the group). */
				q->pinnable = btc_xcalloc((size_t)(hi - lo), sizeof(int));
				for (int k = 0; k < pu->n_pinnable; k++)
					for (int c = lo; c < hi; c++)
						if (pu->pinnable[k] == pu->cores[c])
							q->pinnable[q->n_pinnable++] = pu->pinnable[k];
			}
		}
		pu_free(pu);
	}
	memcpy(dev->pus, out, sizeof(out[0]) * (size_t)n_out);
	dev->n_pus = n_out;
	return true;
}

static void put_scalar(FILE *out, const char *s)
{
	char *q = btc_yaml_scalar(s);
	fputs(q, out);
	free(q);
}

void btc_device_write_yaml(const struct btc_device *dev, FILE *out)
{
	fputs("device: ", out);
	put_scalar(out, dev->name);
	fputc('\n', out);
	if (dev->description) {
		fputs("description: ", out);
		put_scalar(out, dev->description);
		fputc('\n', out);
	}
	fprintf(out, "os: %s\narch: %s\n", dev->os, dev->arch);
	if (dev->cross_file) {
		fputs("cross_file: ", out);
		put_scalar(out, dev->cross_file);
		fputc('\n', out);
	}
	fputs("pus:\n", out);
	for (int i = 0; i < dev->n_pus; i++) {
		const struct btc_pu *pu = &dev->pus[i];
		fprintf(out, "  - name: %s\n    kind: %s\n", pu->name, btc_backend_name(pu->kind));
		if (pu->n_cores) {
			fputs("    cores: [", out);
			for (int c = 0; c < pu->n_cores; c++)
				fprintf(out, "%s%d", c ? ", " : "", pu->cores[c]);
			fputs("]\n", out);
		}
		if (pu->pinnable) {
			fputs("    pinnable: [", out);
			for (int c = 0; c < pu->n_pinnable; c++)
				fprintf(out, "%s%d", c ? ", " : "", pu->pinnable[c]);
			fputs("]\n", out);
		}
		if (pu->core_type) {
			fputs("    core_type: ", out);
			put_scalar(out, pu->core_type);
			fputc('\n', out);
		}
		if (pu->max_freq_mhz)
			fprintf(out, "    max_freq_mhz: %d\n", pu->max_freq_mhz);
		if (pu->gpu_name) {
			fputs("    gpu: ", out);
			put_scalar(out, pu->gpu_name);
			fputc('\n', out);
		}
		if (pu->select) {
			fputs("    select: ", out);
			put_scalar(out, pu->select);
			fputc('\n', out);
		}
		if (pu->subgroup_size)
			fprintf(out, "    subgroup_size: %d\n", pu->subgroup_size);
		if (pu->cuda_arch)
			fprintf(out, "    compute_capability: \"%d.%d\"\n", pu->cuda_arch / 10,
				pu->cuda_arch % 10);
		if (pu->kind != BTC_BACKEND_CPU)
			fprintf(out, "    unified_memory: %s\n    cpu_backed: %s\n",
				pu->unified_memory ? "true" : "false",
				pu->cpu_backed ? "true" : "false");
		if (pu->ref_column) {
			fputs("    table_column: ", out);
			put_scalar(out, pu->ref_column);
			fputc('\n', out);
		}
	}
}

static void add_ints(cJSON *o, const char *key, const int *v, int n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
}

struct cJSON *btc_device_to_json(const struct btc_device *dev)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "device", dev->name);
	if (dev->description)
		cJSON_AddStringToObject(j, "description", dev->description);
	cJSON_AddStringToObject(j, "os", dev->os);
	cJSON_AddStringToObject(j, "arch", dev->arch);
	if (dev->cross_file)
		cJSON_AddStringToObject(j, "cross_file", dev->cross_file);
	cJSON *pus = cJSON_AddArrayToObject(j, "pus");
	for (int i = 0; i < dev->n_pus; i++) {
		const struct btc_pu *pu = &dev->pus[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", pu->name);
		cJSON_AddStringToObject(o, "kind", btc_backend_name(pu->kind));
		if (pu->n_cores)
			add_ints(o, "cores", pu->cores, pu->n_cores);
		if (pu->pinnable)
			add_ints(o, "pinnable", pu->pinnable, pu->n_pinnable);
		if (pu->core_type)
			cJSON_AddStringToObject(o, "core_type", pu->core_type);
		if (pu->max_freq_mhz)
			cJSON_AddNumberToObject(o, "max_freq_mhz", pu->max_freq_mhz);
		if (pu->gpu_name)
			cJSON_AddStringToObject(o, "gpu", pu->gpu_name);
		if (pu->select)
			cJSON_AddStringToObject(o, "select", pu->select);
		if (pu->subgroup_size)
			cJSON_AddNumberToObject(o, "subgroup_size", pu->subgroup_size);
		if (pu->cuda_arch) {
			char cc[16];
			snprintf(cc, sizeof(cc), "%d.%d", pu->cuda_arch / 10, pu->cuda_arch % 10);
			cJSON_AddStringToObject(o, "compute_capability", cc);
		}
		if (pu->kind != BTC_BACKEND_CPU) {
			cJSON_AddBoolToObject(o, "unified_memory", pu->unified_memory);
			cJSON_AddBoolToObject(o, "cpu_backed", pu->cpu_backed);
		}
		if (pu->ref_column)
			cJSON_AddStringToObject(o, "table_column", pu->ref_column);
		cJSON_AddItemToArray(pus, o);
	}
	return j;
}

int btc_device_list(const char *device_dir, FILE *out, struct btc_diag *d)
{
	DIR *dir = opendir(device_dir);
	if (!dir) {
		btc_error(d, (struct btc_loc){device_dir, 0, 0}, "cannot open device directory");
		return -1;
	}
	char *names[256];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir)) && n < 256) {
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml"))
			names[n++] = strndup(e->d_name, len - 5);
	}
	closedir(dir);
	qsort(names, (size_t)n, sizeof(char *), btc_str_qsort_cmp);
	fprintf(out, "%-24s %-8s %-8s %s\n", "DEVICE", "OS", "ARCH", "PUS");
	fprintf(out, "%-24s %-8s %-8s %s\n", "host", "-", "-",
		"detected at run time (`btc device host`)");
	int bad = 0;
	for (int i = 0; i < n; i++) {
		struct btc_device *dev = btc_device_load(names[i], device_dir, NULL, d);
		if (!dev) {
			bad++;
			free(names[i]);
			continue;
		}
		fprintf(out, "%-24s %-8s %-8s", names[i], dev->os, dev->arch);
		for (int p = 0; p < dev->n_pus; p++)
			fprintf(out, "%s%s(%s)", p ? ", " : " ", dev->pus[p].name,
				btc_backend_name(dev->pus[p].kind));
		fputc('\n', out);
		btc_device_free(dev);
		free(names[i]);
	}
	return bad ? -1 : 0;
}
