/* SPDX-License-Identifier: Apache-2.0 */
/*
** cli_help.h -- the wnn program's help (cli_help.c): the overview, one page
** per command and the environment variables, as `wnn --help`, `wnn help
** TOPIC` and `wnn COMMAND --help` print them. docs/wnn.1 says the same.
*/
#ifndef WNN_TOOLS_CLI_HELP_H
#define WNN_TOOLS_CLI_HELP_H

#include <stdbool.h>

/* Whether topic is a command or topic with a help page. */
bool cli_help_has(const char *topic);

/* Prints the help of topic (NULL: the overview) to stdout and returns 0;
** for an unknown topic prints the topics to stderr and returns the usage
** exit code. */
int cli_help(const char *topic);

#endif /* WNN_TOOLS_CLI_HELP_H */
