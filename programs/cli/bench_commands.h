/* The `snapkit bench` subcommands, dispatched by bench.c. */
#ifndef SNAPKIT_CLI_BENCH_COMMANDS_H
#define SNAPKIT_CLI_BENCH_COMMANDS_H

int cmd_bench_storage(int argc, char **argv);
int cmd_bench_read(int argc, char **argv);
int cmd_bench_sweep(int argc, char **argv);
int cmd_bench_ranks(int argc, char **argv);
int cmd_bench_outputs(int argc, char **argv);
int cmd_bench_convert(int argc, char **argv);
int cmd_bench_project(int argc, char **argv);
int cmd_bench_lmax(int argc, char **argv);
int cmd_bench_sphere(int argc, char **argv); /* bench_sphere.c */
int cmd_bench_analyse(int argc, char **argv); /* bench_analyse.c */
int cmd_bench_report(int argc, char **argv);
int cmd_bench_compare(int argc, char **argv);
int cmd_bench_plot(int argc, char **argv);
int cmd_bench_clumps(int argc, char **argv); /* bench_clumps.c */
int cmd_bench_atoms(int argc, char **argv);  /* bench_atoms.c */

#endif
