#include "front/expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum expr_op {
	OP_NUM,
	OP_NAME,
	OP_NEG,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_MOD,
	OP_CEIL_DIV,
	OP_MIN,
	OP_MAX,
};

struct btc_expr {
	enum expr_op op;
	int64_t num;
	char *name;
	struct btc_loc loc; /* position of this node's token */
	struct btc_expr *a, *b;
	char *text; /* root only: source text */
	int height; /* 1 for a leaf; bounds every recursion */
};

struct parser {
	const char *s, *p;
	struct btc_loc loc;
	struct btc_diag *d;
	int nest; /* parser recursion depth (unary, parens, calls) */
	bool failed;
};

static struct btc_loc at(struct parser *ps, const char *p)
{
	struct btc_loc l = ps->loc;
	l.col += (int)(p - ps->s);
	return l;
}

static void fail(struct parser *ps, const char *p, const char *fmt, const char *arg)
{
	if (!ps->failed)
		btc_error(ps->d, at(ps, p), fmt, arg);
	ps->failed = true;
}

static void skip(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static struct btc_expr *node(enum expr_op op, struct btc_loc loc)
{
	struct btc_expr *e = btc_xcalloc(1, sizeof(*e));
	e->op = op;
	e->loc = loc;
	e->height = 1;
	return e;
}

/* Sets e's height from its operands; past BTC_EXPR_MAX_DEPTH reports at
 * e's operator and fails the parse, so that no later walk (evaluation,
 * C rendering, freeing) recurses deeper than the limit. */
static void set_height(struct parser *ps, struct btc_expr *e)
{
	int h = 0;
	if (e->a && e->a->height > h)
		h = e->a->height;
	if (e->b && e->b->height > h)
		h = e->b->height;
	e->height = h + 1;
	if (e->height > BTC_EXPR_MAX_DEPTH && !ps->failed) {
		btc_error(ps->d, e->loc, "expression nested too deeply (more than %d levels)",
			  BTC_EXPR_MAX_DEPTH);
		ps->failed = true;
	}
}

/* Enters one level of parser recursion for the construct at `where`;
 * false (reported there) past the limit. */
static bool enter(struct parser *ps, const char *where)
{
	if (ps->nest >= BTC_EXPR_MAX_DEPTH) {
		if (!ps->failed)
			btc_error(ps->d, at(ps, where),
				  "expression nested too deeply (more than %d levels)",
				  BTC_EXPR_MAX_DEPTH);
		ps->failed = true;
		return false;
	}
	ps->nest++;
	return true;
}

static struct btc_expr *parse_sum(struct parser *ps);

static struct btc_expr *parse_primary(struct parser *ps)
{
	skip(ps);
	const char *start = ps->p;
	if (isdigit((unsigned char)*ps->p)) {
		errno = 0;
		char *end;
		long long v = strtoll(ps->p, &end, 10);
		if (errno == ERANGE) {
			fail(ps, start, "integer literal out of range%s", "");
			return NULL;
		}
		ps->p = end;
		struct btc_expr *e = node(OP_NUM, at(ps, start));
		e->num = v;
		return e;
	}
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
			ps->p++;
		size_t n = (size_t)(ps->p - start);
		char *name = btc_xmalloc(n + 1);
		memcpy(name, start, n);
		name[n] = '\0';
		skip(ps);
		if (*ps->p != '(') {
			struct btc_expr *e = node(OP_NAME, at(ps, start));
			e->name = name;
			return e;
		}
		enum expr_op op;
		if (!strcmp(name, "ceil_div"))
			op = OP_CEIL_DIV;
		else if (!strcmp(name, "min"))
			op = OP_MIN;
		else if (!strcmp(name, "max"))
			op = OP_MAX;
		else {
			fail(ps, start, "unknown function '%s' (expected ceil_div, min or max)",
			     name);
			free(name);
			return NULL;
		}
		free(name);
		ps->p++;
		struct btc_expr *e = node(op, at(ps, start));
		if (!enter(ps, start))
			return e;
		e->a = parse_sum(ps);
		ps->nest--;
		skip(ps);
		if (ps->failed)
			return e;
		if (*ps->p == '\0') {
			fail(ps, ps->p, "unexpected end of expression in call%s",
			     " (quote expressions that contain ',' inside [ ] or { })");
			return e;
		}
		if (*ps->p != ',') {
			fail(ps, ps->p, "expected ',' in call%s", "");
			return e;
		}
		ps->p++;
		if (!enter(ps, start))
			return e;
		e->b = parse_sum(ps);
		ps->nest--;
		set_height(ps, e);
		skip(ps);
		if (ps->failed)
			return e;
		if (*ps->p != ')') {
			fail(ps, ps->p, "expected ')' to close call%s", "");
			return e;
		}
		ps->p++;
		return e;
	}
	if (*ps->p == '(') {
		if (!enter(ps, ps->p))
			return NULL;
		ps->p++;
		struct btc_expr *e = parse_sum(ps);
		ps->nest--;
		skip(ps);
		if (ps->failed)
			return e; /* never step past the end after an error */
		if (*ps->p != ')')
			fail(ps, ps->p, "expected ')'%s", "");
		else
			ps->p++;
		return e;
	}
	if (*ps->p == '\0')
		fail(ps, ps->p, "unexpected end of expression%s", "");
	else {
		char c[2] = {*ps->p, 0};
		fail(ps, ps->p, "unexpected character '%s' in expression", c);
	}
	return NULL;
}

static struct btc_expr *parse_unary(struct parser *ps)
{
	skip(ps);
	if (*ps->p == '-') {
		struct btc_expr *e = node(OP_NEG, at(ps, ps->p));
		if (!enter(ps, ps->p))
			return e;
		ps->p++;
		e->a = parse_unary(ps);
		ps->nest--;
		if (e->a)
			set_height(ps, e);
		return e;
	}
	return parse_primary(ps);
}

/* The binary operators by precedence level, loosest first; every level is
 * left-associative. */
static const struct {
	char ch;
	enum expr_op op;
} levels[2][4] = {
	{{'+', OP_ADD}, {'-', OP_SUB}},
	{{'*', OP_MUL}, {'/', OP_DIV}, {'%', OP_MOD}},
};

static struct btc_expr *parse_level(struct parser *ps, int level)
{
	if (level == 2)
		return parse_unary(ps);
	struct btc_expr *l = parse_level(ps, level + 1);
	for (;;) {
		skip(ps);
		int k = 0;
		while (k < 4 && levels[level][k].ch && levels[level][k].ch != *ps->p)
			k++;
		if (k == 4 || !levels[level][k].ch || ps->failed)
			return l;
		struct btc_expr *e = node(levels[level][k].op, at(ps, ps->p));
		ps->p++;
		e->a = l;
		e->b = parse_level(ps, level + 1);
		l = e;
		set_height(ps, e);
	}
}

static struct btc_expr *parse_sum(struct parser *ps)
{
	return parse_level(ps, 0);
}

struct btc_expr *btc_expr_parse(const char *text, struct btc_loc loc, struct btc_diag *d)
{
	size_t len = strlen(text);
	if (len > BTC_EXPR_MAX_TEXT) {
		btc_error(d, loc, "expression too long (%zu bytes; at most %d)", len,
			  BTC_EXPR_MAX_TEXT);
		return NULL;
	}
	struct parser ps = {.s = text, .p = text, .loc = loc, .d = d};
	struct btc_expr *e = parse_sum(&ps);
	skip(&ps);
	if (!ps.failed && *ps.p != '\0') {
		char c[2] = {*ps.p, 0};
		fail(&ps, ps.p, "unexpected '%s' after expression", c);
	}
	if (ps.failed) {
		btc_expr_free(e);
		return NULL;
	}
	e->text = btc_xstrdup(text);
	return e;
}

void btc_expr_free(struct btc_expr *e)
{
	if (!e)
		return;
	btc_expr_free(e->a);
	btc_expr_free(e->b);
	free(e->name);
	free(e->text);
	free(e);
}

const char *btc_expr_text(const struct btc_expr *e)
{
	return e->text;
}

static bool eval(const struct btc_expr *e, btc_expr_lookup lookup, void *env, int64_t *v,
		 struct btc_diag *d)
{
	int64_t a = 0, b = 0;
	switch (e->op) {
	case OP_NUM:
		*v = e->num;
		return true;
	case OP_NAME:
		if (lookup && lookup(env, e->name, v))
			return true;
		btc_error(d, e->loc, "undefined name '%s' in expression", e->name);
		return false;
	default:
		break;
	}
	if (!eval(e->a, lookup, env, &a, d))
		return false;
	if (e->b && !eval(e->b, lookup, env, &b, d))
		return false;
	bool ovf = false;
	switch (e->op) {
	case OP_NEG:
		ovf = __builtin_sub_overflow((int64_t)0, a, v);
		break;
	case OP_ADD:
		ovf = __builtin_add_overflow(a, b, v);
		break;
	case OP_SUB:
		ovf = __builtin_sub_overflow(a, b, v);
		break;
	case OP_MUL:
		ovf = __builtin_mul_overflow(a, b, v);
		break;
	case OP_DIV:
	case OP_MOD:
	case OP_CEIL_DIV:
		if (b == 0) {
			btc_error(d, e->loc, "division by zero in expression");
			return false;
		}
		if (a == INT64_MIN && b == -1) {
			ovf = true;
			break;
		}
		if (e->op == OP_DIV)
			*v = a / b;
		else if (e->op == OP_MOD)
			*v = a % b;
		else {
			int64_t q = a / b;
			*v = q + ((a % b != 0) && ((a < 0) == (b < 0)));
		}
		break;
	case OP_MIN:
		*v = a < b ? a : b;
		break;
	case OP_MAX:
		*v = a > b ? a : b;
		break;
	default:
		btc_panic("bad expression op %d", e->op);
	}
	if (ovf) {
		btc_error(d, e->loc, "integer overflow in expression");
		return false;
	}
	return true;
}

bool btc_expr_eval(const struct btc_expr *e, btc_expr_lookup lookup, void *env, int64_t *value,
		   struct btc_diag *d)
{
	return eval(e, lookup, env, value, d);
}

bool btc_expr_check_names(const struct btc_expr *e, btc_expr_lookup lookup, void *env,
			  struct btc_diag *d)
{
	if (!e)
		return true;
	bool ok = btc_expr_check_names(e->a, lookup, env, d);
	ok &= btc_expr_check_names(e->b, lookup, env, d);
	if (e->op == OP_NAME) {
		int64_t v;
		if (!lookup || !lookup(env, e->name, &v)) {
			btc_error(d, e->loc, "undefined name '%s' in expression", e->name);
			return false;
		}
	}
	return ok;
}

struct strbuf {
	char *s;
	size_t len, cap;
};

static void put(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		sb->s = btc_xrealloc(sb->s, sb->cap);
	}
	memcpy(sb->s + sb->len, s, n + 1);
	sb->len += n;
}

static void to_c(const struct btc_expr *e, const char *prefix, const char *const *locals,
		 struct strbuf *sb)
{
	static const char *const binop[] = {
		[OP_ADD] = " + ", [OP_SUB] = " - ", [OP_MUL] = " * ",
		[OP_DIV] = " / ", [OP_MOD] = " % ",
	};
	char num[32];
	switch (e->op) {
	case OP_NUM:
		snprintf(num, sizeof(num), "INT64_C(%lld)", (long long)e->num);
		put(sb, num);
		return;
	case OP_NAME:
		for (const char *const *l = locals; l && *l; l++)
			if (!strcmp(*l, e->name)) {
				put(sb, e->name);
				return;
			}
		put(sb, prefix);
		put(sb, e->name);
		return;
	case OP_NEG:
		put(sb, "(-");
		to_c(e->a, prefix, locals, sb);
		put(sb, ")");
		return;
	case OP_CEIL_DIV:
	case OP_MIN:
	case OP_MAX:
		put(sb, e->op == OP_CEIL_DIV ? "BTRT_CEIL_DIV("
			: e->op == OP_MIN    ? "BTRT_MIN("
					     : "BTRT_MAX(");
		to_c(e->a, prefix, locals, sb);
		put(sb, ", ");
		to_c(e->b, prefix, locals, sb);
		put(sb, ")");
		return;
	default:
		put(sb, "(");
		to_c(e->a, prefix, locals, sb);
		put(sb, binop[e->op]);
		to_c(e->b, prefix, locals, sb);
		put(sb, ")");
		return;
	}
}

char *btc_expr_to_c(const struct btc_expr *e, const char *prefix, const char *const *locals)
{
	struct strbuf sb = {0};
	put(&sb, "");
	to_c(e, prefix, locals, &sb);
	return sb.s;
}
