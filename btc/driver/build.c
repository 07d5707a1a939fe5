/* The build driver: generate a project, configure it with meson (natively
 * or with the device's cross file), build it with ninja. Writes only under
 * the project directory; a failed configuration's build directory is
 * removed in-process (driver/files.h), never by a shell command. */
#include "driver/build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "driver/files.h"
#include "util/out.h"
#include "util/paths.h"
#include "util/proc.h"

/* meson setup DIR/build DIR [--cross-file ...]; on failure shows its log
 * and removes DIR/build, which meson would not reuse. */
static int meson_setup(const char *dir, const char *build, const char *cross, struct btc_diag *d)
{
	/* nvcc cannot cross-compile for the boards here: CUDA is off in
	 * cross builds (build on the Jetson itself for CUDA). */
	char *argv[] = {"meson",
			"setup",
			(char *)build,
			(char *)dir,
			cross ? "-Dcuda=disabled" : NULL,
			"--cross-file",
			(char *)cross,
			NULL};
	char *log = btc_xasprintf("%s/setup.log", dir);
	int rc = btc_run(argv, log, true);
	if (rc != 0 && !btc_interrupted()) {
		fprintf(stderr, "btc: meson setup failed; its output:\n");
		char *text = btc_read_file(log, NULL);
		fputs(text ? text : "(none)\n", stderr);
		free(text);
	}
	if (rc != 0)
		btc_files_remove_under(dir, "build", d);
	else
		unlink(log); /* it names paths of this machine: not part of the project */
	free(log);
	return rc;
}

bool btc_job_build(const char *dir, const struct btc_device *dev, bool *built, struct btc_diag *d)
{
	/* The temporary files of the build's children (meson, the compiler)
	 * and of later runs go inside the project directory: what an
	 * interrupted compiler leaves (gcc's *.cdtor.o) stays there, not in
	 * /tmp (scripts/hostile, interrupts/build-INT-pid). */
	char *tmpdir = btc_xasprintf("%s/.btc-tmp", dir);
	char *abs = btc_mkdirs(tmpdir, d) ? realpath(tmpdir, NULL) : NULL;
	if (abs) /* absolute: the compilers run in other folders */
		setenv("TMPDIR", abs, 1);
	free(abs);
	free(tmpdir);
	struct utsname u;
	const char *host_arch = uname(&u) == 0 ? u.machine : "x86_64";
	char *build = btc_xasprintf("%s/build", dir);
	char *cross = NULL;
	bool runnable = true;
	*built = false;
	if (strcmp(dev->arch, host_arch) || !strcmp(dev->os, "android")) {
		if (!dev->cross_file) {
			btc_error(d, (struct btc_loc){0},
				  "device '%s' (%s) has no cross_file to build with", dev->name,
				  dev->arch);
			free(build);
			return false;
		}
		cross = btc_xasprintf("%s/%s", btc_source_root(), dev->cross_file);
		/* The cross file's C compiler must exist; the Android NDK's does not here. */
		runnable = !strcmp(dev->os, "linux") && btc_have_program("aarch64-linux-gnu-gcc");
	}
	if (!runnable) {
		printf("The %s toolchain is not installed here; build the project where it is:\n"
		       "  meson setup %s %s --cross-file %s\n  ninja -C %s\n",
		       dev->os, build, dir, cross, build);
		free(build);
		free(cross);
		return true;
	}
	int rc = 0;
	char *ninja_file = btc_xasprintf("%s/build.ninja", build);
	if (access(ninja_file, F_OK) != 0)
		rc = meson_setup(dir, build, cross, d);
	if (rc == 0) {
		char *argv[] = {"ninja", "-C", build, NULL};
		rc = btc_run(argv, "/dev/null", true);
		if (rc != 0 && !btc_interrupted()) /* again, with the compiler's output in view */
			rc = btc_run(argv, NULL, false);
	}
	if (btc_interrupted())
		btc_error(d, (struct btc_loc){dir, 0, 0}, "building interrupted");
	else if (rc != 0)
		btc_error(d, (struct btc_loc){dir, 0, 0}, "building the generated project failed");
	*built = rc == 0 && !btc_interrupted();
	free(ninja_file);
	free(build);
	free(cross);
	return *built;
}
