/* snapkit convert of several outputs: one worker process per output, a
 * few at once (convert_run.c). */
#ifndef SNAPKIT_CLI_CONVERT_RUN_H
#define SNAPKIT_CLI_CONVERT_RUN_H

typedef struct convert_run_args {
    const char **sources;  /* the outputs, as given */
    int nsources;
    const char *dir;       /* where output_NNNNN.snapkit go; NULL: one output, one file */
    long long jobs;        /* 0: the fewer of the outputs and the budget */
    long long threads;     /* the budget asked for (0: the job's) */
    int resume, json;
    char **pass;           /* options every worker gets as given (selection, components...) */
    int npass;
} convert_run_args;

/* Keep argv[first..last] for the workers. */
void convert_run_pass(convert_run_args *a, char **argv, int first, int last);
/* Does -o PATH name a folder: ending in '/' or an existing folder? */
int convert_run_is_folder(const char *path);
/* Convert every source into a->dir. Returns the exit status. */
int convert_run(const convert_run_args *a);

#endif
