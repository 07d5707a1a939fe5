/* btc --help and btc CMD --help, from the command table (cli/cli.c) and
 * the option table (cli/options.c). */
#include <stdio.h>

#include "cli/commands.h"

static const char intro[] =
	"btc compiles a streaming app (stages with OpenMP, CUDA and Vulkan\n"
	"kernels) into a software pipeline for a heterogeneous device, following\n"
	"the BetterTogether method: profile, schedule (Z3), generate, tune.\n";

static const char environment[] =
	"environment: BTC_ROOT (btc's source tree), BTC_DEVICE_DIR (device library,\n"
	"default <source>/devices), BTC_TEMPLATE_DIR\n";

/* Writes text indented by `indent` spaces after each newline. */
static void indented(const char *text, int indent, FILE *out)
{
	for (const char *p = text; *p; p++) {
		fputc(*p, out);
		if (*p == '\n' && p[1])
			fprintf(out, "%*s", indent, "");
	}
}

void btc_cli_usage(FILE *out)
{
	fputs("usage: btc <command> [options]\n"
	      "       btc APP.yaml --device DEV [options]         (generate; `btc gen`)\n"
	      "       btc APP.yaml --device host --run [options]  (the main job; `btc tune`)\n"
	      "\n",
	      out);
	fputs(intro, out);
	fputs("\ncommands:\n", out);
	for (int c = 0; c < BTC_CLI_N_CMDS; c++) {
		const struct btc_cli_command *cmd = &btc_cli_commands[c];
		fprintf(out, "  %s%s%s\n%22s", cmd->name, *cmd->synopsis ? " " : "", cmd->synopsis,
			"");
		indented(cmd->summary, 22, out);
		fputc('\n', out);
	}
	fputs("\noptions, and the commands that take them (`btc COMMAND --help` explains\n"
	      "a command's options):\n",
	      out);
	const char *names[BTC_CLI_N_CMDS];
	for (int c = 0; c < BTC_CLI_N_CMDS; c++)
		names[c] = btc_cli_commands[c].name;
	btc_cli_print_option_index(names, out);
	fputs("  -h, --help           this help (every command)\n"
	      "  --version            print the version\n\n",
	      out);
	fputs(environment, out);
}

void btc_cli_command_usage(enum btc_cli_cmd cmd, FILE *out)
{
	const struct btc_cli_command *c = &btc_cli_commands[cmd];
	fprintf(out, "usage: btc %s%s%s\n(btc %s --help lists its options)\n", c->name,
		*c->synopsis ? " " : "", c->synopsis, c->name);
}

void btc_cli_command_help(enum btc_cli_cmd cmd, FILE *out)
{
	const struct btc_cli_command *c = &btc_cli_commands[cmd];
	fprintf(out, "usage: btc %s%s%s\n\n", c->name, *c->synopsis ? " " : "", c->synopsis);
	fprintf(out, "btc %s: ", c->name);
	indented(c->summary, 0, out);
	fputs(".\n\noptions:\n", out);
	btc_cli_print_options(cmd, out);
	fputc('\n', out);
	fputs(environment, out);
}
