/* Entry points of the subcommands listed in commands.def. */
#ifndef SNAPKIT_CLI_COMMANDS_H
#define SNAPKIT_CLI_COMMANDS_H

#define SK_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef SK_COMMAND

#endif
