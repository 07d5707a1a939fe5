#include "front/yamldoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool btc_yaml_load(struct btc_yaml *y, const char *path, const char *text,
		   struct btc_diag *d)
{
	yaml_parser_t parser;
	FILE *f = NULL;
	bool ok = false;

	memset(y, 0, sizeof(*y));
	y->file = path;
	if (!yaml_parser_initialize(&parser))
		btc_panic("yaml_parser_initialize failed");
	if (text) {
		yaml_parser_set_input_string(&parser, (const unsigned char *)text,
					     strlen(text));
	} else {
		f = fopen(path, "rb");
		if (!f) {
			btc_error(d, (struct btc_loc){path, 0, 0}, "cannot open: %s",
				  strerror(errno));
			yaml_parser_delete(&parser);
			return false;
		}
		yaml_parser_set_input_file(&parser, f);
	}
	if (!yaml_parser_load(&parser, &y->doc)) {
		struct btc_loc loc = {path, (int)parser.problem_mark.line + 1,
				      (int)parser.problem_mark.column + 1};
		if (parser.context)
			btc_error(d, loc, "YAML syntax: %s %s", parser.problem,
				  parser.context);
		else
			btc_error(d, loc, "YAML syntax: %s",
				  parser.problem ? parser.problem : "invalid document");
		goto out;
	}
	y->loaded = true;
	if (!yaml_document_get_root_node(&y->doc)) {
		btc_error(d, (struct btc_loc){path, 1, 1}, "empty document");
		btc_yaml_free(y);
		goto out;
	}
	ok = true;
out:
	yaml_parser_delete(&parser);
	if (f)
		fclose(f);
	return ok;
}

void btc_yaml_free(struct btc_yaml *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	y->loaded = false;
}

yaml_node_t *btc_yaml_root(struct btc_yaml *y)
{
	return yaml_document_get_root_node(&y->doc);
}

struct btc_loc btc_yaml_loc(const struct btc_yaml *y, const yaml_node_t *n)
{
	return (struct btc_loc){y->file, (int)n->start_mark.line + 1,
				(int)n->start_mark.column + 1};
}

int btc_yaml_value_offset(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE)
		return 0;
	return n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
	       n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
}

static const char *node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "empty";
	}
}

bool btc_yaml_map(struct btc_yaml *y, yaml_node_t *map, const char *what,
		  const char *const keys[], yaml_node_t *out[],
		  struct btc_diag *d)
{
	int nkeys = 0;
	int before = d->errors;

	while (keys[nkeys])
		out[nkeys++] = NULL;
	if (map->type != YAML_MAPPING_NODE) {
		btc_error(d, btc_yaml_loc(y, map), "%s must be a mapping, not %s",
			  what, node_kind(map));
		return false;
	}
	yaml_node_t *keynodes[64] = {0};
	if (nkeys > 64)
		btc_panic("too many keys");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&y->doc, p->value);
		if (k->type != YAML_SCALAR_NODE) {
			btc_error(d, btc_yaml_loc(y, k), "%s keys must be scalars",
				  what);
			continue;
		}
		const char *key = (const char *)k->data.scalar.value;
		int i;
		for (i = 0; i < nkeys; i++) {
			const char *want = keys[i][0] == '!' ? keys[i] + 1 : keys[i];
			if (strcmp(want, key) == 0)
				break;
		}
		if (i == nkeys) {
			btc_error(d, btc_yaml_loc(y, k), "unknown key '%s' in %s",
				  key, what);
			continue;
		}
		if (keynodes[i]) {
			struct btc_loc first = btc_yaml_loc(y, keynodes[i]);
			btc_error(d, btc_yaml_loc(y, k),
				  "duplicate key '%s' in %s (first at line %d)",
				  key, what, first.line);
			continue;
		}
		keynodes[i] = k;
		out[i] = v;
	}
	for (int i = 0; i < nkeys; i++)
		if (keys[i][0] == '!' && !out[i])
			btc_error(d, btc_yaml_loc(y, map),
				  "%s is missing required key '%s'", what,
				  keys[i] + 1);
	return d->errors == before;
}

bool btc_yaml_str(struct btc_yaml *y, yaml_node_t *n, const char *what,
		  const char **out, struct btc_diag *d)
{
	if (n->type != YAML_SCALAR_NODE) {
		btc_error(d, btc_yaml_loc(y, n), "%s must be a scalar, not %s",
			  what, node_kind(n));
		return false;
	}
	*out = (const char *)n->data.scalar.value;
	return true;
}

bool btc_is_ident(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

bool btc_yaml_ident(struct btc_yaml *y, yaml_node_t *n, const char *what,
		    const char **out, struct btc_diag *d)
{
	if (!btc_yaml_str(y, n, what, out, d))
		return false;
	if (!btc_is_ident(*out)) {
		btc_error(d, btc_yaml_loc(y, n),
			  "%s '%s' is not a C identifier", what, *out);
		return false;
	}
	return true;
}

bool btc_yaml_int(struct btc_yaml *y, yaml_node_t *n, const char *what,
		  int64_t min, int64_t max, int64_t *out, struct btc_diag *d)
{
	const char *s;
	if (!btc_yaml_str(y, n, what, &s, d))
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno == ERANGE) {
		btc_error(d, btc_yaml_loc(y, n), "%s must be an integer, not '%s'",
			  what, s);
		return false;
	}
	if (v < min || v > max) {
		btc_error(d, btc_yaml_loc(y, n),
			  "%s must be between %lld and %lld, not %lld", what,
			  (long long)min, (long long)max, v);
		return false;
	}
	*out = v;
	return true;
}

bool btc_yaml_bool(struct btc_yaml *y, yaml_node_t *n, const char *what,
		   bool *out, struct btc_diag *d)
{
	const char *s;
	if (!btc_yaml_str(y, n, what, &s, d))
		return false;
	if (!strcmp(s, "true") || !strcmp(s, "yes")) {
		*out = true;
		return true;
	}
	if (!strcmp(s, "false") || !strcmp(s, "no")) {
		*out = false;
		return true;
	}
	btc_error(d, btc_yaml_loc(y, n), "%s must be true or false, not '%s'",
		  what, s);
	return false;
}

bool btc_yaml_seq(struct btc_yaml *y, yaml_node_t *n, const char *what,
		  int *len, struct btc_diag *d)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		btc_error(d, btc_yaml_loc(y, n), "%s must be a list, not %s", what,
			  node_kind(n));
		return false;
	}
	*len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
	return true;
}

yaml_node_t *btc_yaml_item(struct btc_yaml *y, yaml_node_t *seq, int i)
{
	return yaml_document_get_node(&y->doc, seq->data.sequence.items.start[i]);
}
