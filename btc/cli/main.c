/* btc: the command line. Everything but option parsing is in btc-core. */
#include "cli/cli.h"

int main(int argc, char **argv)
{
	return btc_cli_main(argc, argv);
}
