#include "front/names.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* The 44 keywords of C11 (6.4.1). */
static const char *const c_keywords[] = {
	"auto",       "break",     "case",           "char",
	"const",      "continue",  "default",        "do",
	"double",     "else",      "enum",           "extern",
	"float",      "for",       "goto",           "if",
	"inline",     "int",       "long",           "register",
	"restrict",   "return",    "short",          "signed",
	"sizeof",     "static",    "struct",         "switch",
	"typedef",    "union",     "unsigned",       "void",
	"volatile",   "while",     "_Alignas",       "_Alignof",
	"_Atomic",    "_Bool",     "_Complex",       "_Generic",
	"_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
	NULL,
};

/* Names of the C language and its standard library that the generated
 * files use or include (main, macros of <stddef.h>, <stdio.h>, <errno.h>,
 * <assert.h>, <stdbool.h>, <stdalign.h>, <stdnoreturn.h>, <threads.h>):
 * a kernel symbol or a struct member of the same name would break them. */
static const char *const c_library[] = {
	"main",          "NULL",    "EOF",     "errno",    "assert",       "stdin",
	"stdout",        "stderr",  "true",    "false",    "bool",         "offsetof",
	"static_assert", "alignas", "alignof", "noreturn", "thread_local", NULL,
};

/* The prefix rule: every name the generated files and the runtime define
 * starts with one of these (case as written), so no app name does.
 * btrt_ / BTRT_: the runtime (runtime/include), the pipeline program
 * included (btrt_program_main); app_ / APP_, pipeline_ / PIPELINE_,
 * profiler_ / PROFILER_, STAGE_, N_ (counts), BINDING_, PARAM_: the
 * generated files' tables and macros; the rest: <stdint.h>'s macros. Names
 * generated per stage, schedule and PU follow generated_pattern. */
static const char *const prefixes[] = {
	"btrt_",     "BTRT_",     "app_",    "APP_",    "pipeline_", "PIPELINE_",
	"profiler_", "PROFILER_", "STAGE_",  "N_",      "BINDING_",  "PARAM_",
	"INT8_",     "INT16_",    "INT32_",  "INT64_",  "INTMAX_",   "INTPTR_",
	"UINT8_",    "UINT16_",   "UINT32_", "UINT64_", "UINTMAX_",  "UINTPTR_",
	"SIZE_",     "PTRDIFF_",  NULL,
};

static bool in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* "stage3_cpu", "schedule0_chunks", "pu_big_cores", "pu_service_cores":
 * generated per stage, schedule and PU. */
static bool generated_pattern(const char *s)
{
	if (!strncmp(s, "stage", 5) && isdigit((unsigned char)s[5]))
		return true;
	if (!strncmp(s, "schedule", 8) && isdigit((unsigned char)s[8]))
		return true;
	size_t n = strlen(s);
	return !strncmp(s, "pu_", 3) && n > 9 && !strcmp(s + n - 6, "_cores");
}

const char *btc_name_problem(const char *s, enum btc_name_kind kind)
{
	size_t n = strlen(s);
	if (n == 0)
		return "is empty";
	if (n > BTC_NAME_MAX)
		return "is longer than 63 characters";
	if (kind == BTC_NAME_FILE) {
		if (!isalnum((unsigned char)s[0]))
			return "must start with a letter or a digit";
		for (const char *p = s; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
				return "may only hold letters, digits, '_', '.' and '-'";
		if (strstr(s, ".."))
			return "must not contain '..'";
		return NULL;
	}
	if (!(isalpha((unsigned char)s[0]) && (unsigned char)s[0] < 0x80) && s[0] != '_')
		return "is not a C identifier";
	for (const char *p = s; *p; p++)
		if (!((unsigned char)*p < 0x80 && isalnum((unsigned char)*p)) && *p != '_')
			return "is not a C identifier";
	if (in(s, c_keywords))
		return "is a C keyword";
	if (s[0] == '_' && (s[1] == '_' || isupper((unsigned char)s[1])))
		return "is reserved in C (a leading '__' or '_' and a capital)";
	if (kind == BTC_NAME_C_LABEL)
		return strncasecmp(s, "btrt_", 5)
			       ? NULL
			       : "clashes with names of the generated code or the runtime";
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(s, *p, strlen(*p)))
			return "clashes with names of the generated code or the runtime";
	if (in(s, c_library) || generated_pattern(s))
		return "clashes with names of the generated code or the runtime";
	if (kind == BTC_NAME_C_APP &&
	    (!strcasecmp(s, "app") || !strcasecmp(s, "pipeline") || !strncasecmp(s, "btrt", 4)))
		return "clashes with names of the generated code or the runtime";
	if (kind == BTC_NAME_C_BUFFER && (!strcmp(s, "base") || !strcmp(s, "params")))
		return "clashes with a member of the TaskObject struct";
	return NULL;
}
