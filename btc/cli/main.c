/* btc: the command line. Everything but option parsing is in btc-core. */
#include "cli/cli.h"

#include <signal.h>

int main(int argc, char **argv)
{
	/* Past RLIMIT_FSIZE a write fails with EFBIG, which the writer names
	 * (util/fsafe.h), instead of SIGXFSZ ending btc unexplained. */
	signal(SIGXFSZ, SIG_IGN);
	return btc_cli_main(argc, argv);
}
