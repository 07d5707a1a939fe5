#include "front/table_origin.h"

#include <stdlib.h>
#include <string.h>

bool btc_table_check_ref_origin(const char *path, const struct btc_app *app, struct btc_diag *d)
{
	if (!path)
		return true;
	/* the last four components: profiles / DEVICE / APPDIR / FILE */
	const char *c[4] = {NULL};
	size_t len[4] = {0};
	const char *end = path + strlen(path);
	for (int k = 3; k >= 0; k--) {
		const char *slash = end;
		while (slash > path && slash[-1] != '/')
			slash--;
		c[k] = slash;
		len[k] = (size_t)(end - slash);
		if (slash == path && k > 0)
			return true; /* fewer components */
		end = slash - 1;
	}
	if (len[0] != 8 || strncmp(c[0], "profiles", 8) || !len[2])
		return true;
	char *dir = strndup(c[2], len[2]);
	for (char *p = dir; *p; p++)
		if (*p == '-')
			*p = '_';
	bool ok = !strcmp(dir, app->name);
	if (!ok)
		btc_error(d, (struct btc_loc){path, 0, 0},
			  "reference table of app '%.*s' (its folder), not '%s': the reference "
			  "layout numbers stages and names no app, so another app's table with as "
			  "many stages would load",
			  (int)len[2], c[2], app->name);
	free(dir);
	return ok;
}
