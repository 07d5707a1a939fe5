#include "front/yamldoc.h"
#include "util/num.h"
#include "util/infile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void syntax_error(yaml_parser_t *parser, const char *path, struct btc_diag *d)
{
	struct btc_loc loc = {path, (int)parser->problem_mark.line + 1,
			      (int)parser->problem_mark.column + 1};
	if (parser->context)
		btc_error(d, loc, "YAML syntax: %s %s", parser->problem, parser->context);
	else
		btc_error(d, loc, "YAML syntax: %s",
			  parser->problem ? parser->problem : "invalid document");
}

/* Reads the file at path into a new NUL-terminated buffer of at most
 * BTC_YAML_MAX_BYTES bytes; reports and returns NULL otherwise. */
static char *read_limited(const char *path, size_t *len, struct btc_diag *d)
{
	FILE *f = btc_open_input(path, "rb", d);
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = btc_xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap > BTC_YAML_MAX_BYTES)
				break;
			cap *= 2;
			buf = btc_xrealloc(buf, cap + 1);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	bool err = ferror(f);
	fclose(f);
	if (err || n > BTC_YAML_MAX_BYTES) {
		if (err)
			btc_error(d, (struct btc_loc){path, 0, 0}, "cannot read");
		else
			btc_error(d, (struct btc_loc){path, 0, 0},
				  "file too large (more than %d bytes)", BTC_YAML_MAX_BYTES);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* One open collection while composing: its node, the pending mapping key
 * (0: none) and its anchor (registered when the collection is complete, so
 * that an alias can never refer to an enclosing node: no cycles). */
struct frame {
	int node, key;
	char *anchor;
};

struct anchor {
	char *name;
	int node;
};

struct composer {
	yaml_document_t *doc;
	struct frame stack[BTC_YAML_MAX_DEPTH];
	int depth;
	struct anchor *anchors;
	int n_anchors, cap_anchors;
	int n_nodes; /* nodes and aliases so far */
};

static bool add_anchor(struct composer *c, char *name, int node, struct btc_loc loc,
		       struct btc_diag *d)
{
	if (!name)
		return true;
	if (c->n_anchors == BTC_YAML_MAX_ANCHORS) {
		btc_error(d, loc, "YAML: too many anchors (at most %d)", BTC_YAML_MAX_ANCHORS);
		return false;
	}
	if (c->n_anchors == c->cap_anchors) {
		c->cap_anchors = c->cap_anchors ? 2 * c->cap_anchors : 8;
		c->anchors = btc_xrealloc(c->anchors, sizeof(*c->anchors) * (size_t)c->cap_anchors);
	}
	c->anchors[c->n_anchors++] = (struct anchor){btc_xstrdup(name), node};
	return true;
}

/* Attaches node id to the open collection (as an item, a key or a value). */
static bool attach(struct composer *c, int id)
{
	if (c->depth == 0)
		return true; /* the root: node 1 */
	struct frame *f = &c->stack[c->depth - 1];
	yaml_node_t *parent = yaml_document_get_node(c->doc, f->node);
	if (parent->type == YAML_SEQUENCE_NODE)
		return yaml_document_append_sequence_item(c->doc, f->node, id);
	if (!f->key) {
		f->key = id;
		return true;
	}
	int key = f->key;
	f->key = 0;
	return yaml_document_append_mapping_pair(c->doc, f->node, key, id);
}

static void set_marks(yaml_document_t *doc, int id, const yaml_event_t *ev)
{
	yaml_node_t *n = yaml_document_get_node(doc, id);
	n->start_mark = ev->start_mark;
	n->end_mark = ev->end_mark;
}

/* Builds the first document of the stream from parser events, refusing
 * collections nested deeper than BTC_YAML_MAX_DEPTH at the first node past
 * the limit (libyaml's own loader has no limit, and its scanner is
 * quadratic in the nesting depth). Returns true when the document is
 * complete; false after reporting an error. */
static bool compose(yaml_parser_t *parser, yaml_document_t *doc, const char *path,
		    struct btc_diag *d)
{
	struct composer c = {.doc = doc};
	bool ok = false, done = false;
	while (!done) {
		yaml_event_t ev;
		if (!yaml_parser_parse(parser, &ev)) {
			syntax_error(parser, path, d);
			break;
		}
		struct btc_loc loc = {path, (int)ev.start_mark.line + 1,
				      (int)ev.start_mark.column + 1};
		int id = 0;
		bool fail = false;
		if ((ev.type == YAML_SCALAR_EVENT || ev.type == YAML_ALIAS_EVENT ||
		     ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) &&
		    ++c.n_nodes > BTC_YAML_MAX_NODES) {
			btc_error(d, loc, "YAML: too many nodes (at most %d)", BTC_YAML_MAX_NODES);
			yaml_event_delete(&ev);
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT: /* no document: empty */
			done = ok = true;
			break;
		case YAML_DOCUMENT_END_EVENT:
			done = ok = true;
			break;
		case YAML_ALIAS_EVENT: {
			int i;
			for (i = c.n_anchors - 1; i >= 0; i--)
				if (!strcmp(c.anchors[i].name, (const char *)ev.data.alias.anchor))
					break;
			if (i < 0) {
				btc_error(d, loc, "YAML: undefined alias '%s'",
					  (const char *)ev.data.alias.anchor);
				fail = true;
				break;
			}
			fail = !attach(&c, c.anchors[i].node);
			break;
		}
		case YAML_SCALAR_EVENT:
			id = yaml_document_add_scalar(doc, ev.data.scalar.tag, ev.data.scalar.value,
						      (int)ev.data.scalar.length,
						      ev.data.scalar.style);
			fail = !id || !attach(&c, id);
			if (!fail) {
				set_marks(doc, id, &ev);
				fail = !add_anchor(&c, (char *)ev.data.scalar.anchor, id, loc, d);
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (c.depth == BTC_YAML_MAX_DEPTH) {
				btc_error(d, loc, "YAML nested too deeply (more than %d levels)",
					  BTC_YAML_MAX_DEPTH);
				fail = true;
				break;
			}
			if (ev.type == YAML_SEQUENCE_START_EVENT)
				id = yaml_document_add_sequence(doc, ev.data.sequence_start.tag,
								ev.data.sequence_start.style);
			else
				id = yaml_document_add_mapping(doc, ev.data.mapping_start.tag,
							       ev.data.mapping_start.style);
			fail = !id || !attach(&c, id);
			if (fail)
				break;
			set_marks(doc, id, &ev);
			c.stack[c.depth++] = (struct frame){
				id, 0,
				ev.type == YAML_SEQUENCE_START_EVENT
					? (char *)ev.data.sequence_start.anchor
					: (char *)ev.data.mapping_start.anchor};
			if (c.stack[c.depth - 1].anchor)
				c.stack[c.depth - 1].anchor = btc_xstrdup(
					c.stack[c.depth - 1].anchor);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT: {
			struct frame *f = &c.stack[--c.depth];
			yaml_document_get_node(doc, f->node)->end_mark = ev.end_mark;
			fail = !add_anchor(&c, f->anchor, f->node, loc, d);
			free(f->anchor);
			f->anchor = NULL;
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (fail)
			break;
	}
	while (c.depth > 0)
		free(c.stack[--c.depth].anchor);
	for (int i = 0; i < c.n_anchors; i++)
		free(c.anchors[i].name);
	free(c.anchors);
	return ok;
}

bool btc_yaml_load(struct btc_yaml *y, const char *path, const char *text, struct btc_diag *d)
{
	yaml_parser_t parser;
	char *buf = NULL;
	size_t len;
	bool ok = false;
	int before = d->errors;

	memset(y, 0, sizeof(*y));
	y->file = path;
	if (text) {
		len = strlen(text);
		if (len > BTC_YAML_MAX_BYTES) {
			btc_error(d, (struct btc_loc){path, 0, 0},
				  "file too large (more than %d bytes)", BTC_YAML_MAX_BYTES);
			return false;
		}
	} else {
		buf = read_limited(path, &len, d);
		if (!buf)
			return false;
		text = buf;
	}
	if (!yaml_parser_initialize(&parser))
		btc_panic("yaml_parser_initialize failed");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_document_initialize(&y->doc, NULL, NULL, NULL, 1, 1))
		btc_panic("yaml_document_initialize failed");
	y->loaded = true;
	if (!compose(&parser, &y->doc, path, d)) {
		if (d->errors == before)
			btc_error(d, (struct btc_loc){path, 0, 0},
				  "YAML: cannot store the document (out of memory)");
		btc_yaml_free(y);
		goto out;
	}
	if (!yaml_document_get_root_node(&y->doc)) {
		btc_error(d, (struct btc_loc){path, 1, 1}, "empty document");
		btc_yaml_free(y);
		goto out;
	}
	ok = true;
out:
	yaml_parser_delete(&parser);
	free(buf);
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
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "empty";
	}
}

bool btc_yaml_map(struct btc_yaml *y, yaml_node_t *map, const char *what, const char *const keys[],
		  yaml_node_t *out[], struct btc_diag *d)
{
	int nkeys = 0;
	int before = d->errors;

	while (keys[nkeys])
		out[nkeys++] = NULL;
	if (map->type != YAML_MAPPING_NODE) {
		btc_error(d, btc_yaml_loc(y, map), "%s must be a mapping, not %s", what,
			  node_kind(map));
		return false;
	}
	yaml_node_t *keynodes[64] = {0};
	if (nkeys > 64)
		btc_panic("too many keys");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&y->doc, p->value);
		if (k->type != YAML_SCALAR_NODE) {
			btc_error(d, btc_yaml_loc(y, k), "%s keys must be scalars", what);
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
			btc_error(d, btc_yaml_loc(y, k), "unknown key '%s' in %s", key, what);
			continue;
		}
		if (keynodes[i]) {
			struct btc_loc first = btc_yaml_loc(y, keynodes[i]);
			btc_error(d, btc_yaml_loc(y, k),
				  "duplicate key '%s' in %s (first at line %d)", key, what,
				  first.line);
			continue;
		}
		keynodes[i] = k;
		out[i] = v;
	}
	for (int i = 0; i < nkeys; i++)
		if (keys[i][0] == '!' && !out[i])
			btc_error(d, btc_yaml_loc(y, map), "%s is missing required key '%s'", what,
				  keys[i] + 1);
	return d->errors == before;
}

bool btc_yaml_str(struct btc_yaml *y, yaml_node_t *n, const char *what, const char **out,
		  struct btc_diag *d)
{
	if (n->type != YAML_SCALAR_NODE) {
		btc_error(d, btc_yaml_loc(y, n), "%s must be a scalar, not %s", what, node_kind(n));
		return false;
	}
	*out = (const char *)n->data.scalar.value;
	return true;
}

bool btc_is_ident(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

bool btc_yaml_name(struct btc_yaml *y, yaml_node_t *n, const char *what, enum btc_name_kind kind,
		   const char **out, struct btc_diag *d)
{
	if (!btc_yaml_str(y, n, what, out, d))
		return false;
	const char *why = btc_name_problem(*out, kind);
	if (why) {
		btc_error(d, btc_yaml_loc(y, n), "%s '%s' %s", what, *out, why);
		return false;
	}
	return true;
}

bool btc_yaml_ident(struct btc_yaml *y, yaml_node_t *n, const char *what, const char **out,
		    struct btc_diag *d)
{
	return btc_yaml_name(y, n, what, BTC_NAME_C, out, d);
}

bool btc_yaml_int(struct btc_yaml *y, yaml_node_t *n, const char *what, int64_t min, int64_t max,
		  int64_t *out, struct btc_diag *d)
{
	const char *s;
	if (!btc_yaml_str(y, n, what, &s, d))
		return false;
	long v; /* digits only: no '+', blank or 0x; no wrap */
	if (!btc_parse_int(s, LONG_MIN, LONG_MAX, &v)) {
		btc_error(d, btc_yaml_loc(y, n), "%s must be an integer, not '%s'", what, s);
		return false;
	}
	if (v < min || v > max) {
		btc_error(d, btc_yaml_loc(y, n), "%s must be between %lld and %lld, not %ld", what,
			  (long long)min, (long long)max, v);
		return false;
	}
	*out = v;
	return true;
}

bool btc_yaml_bool(struct btc_yaml *y, yaml_node_t *n, const char *what, bool *out,
		   struct btc_diag *d)
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
	btc_error(d, btc_yaml_loc(y, n), "%s must be true or false, not '%s'", what, s);
	return false;
}

bool btc_yaml_seq(struct btc_yaml *y, yaml_node_t *n, const char *what, int *len,
		  struct btc_diag *d)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		btc_error(d, btc_yaml_loc(y, n), "%s must be a list, not %s", what, node_kind(n));
		return false;
	}
	*len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
	return true;
}

yaml_node_t *btc_yaml_item(struct btc_yaml *y, yaml_node_t *seq, int i)
{
	return yaml_document_get_node(&y->doc, seq->data.sequence.items.start[i]);
}
