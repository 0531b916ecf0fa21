/* snapkit atoms: the inputs as one trajectory (several files, quoted
 * globs, the index sidecar) and the frames a --frames slice selects. */
#ifndef SNAPKIT_CLI_ATOMS_FRAMES_H
#define SNAPKIT_CLI_ATOMS_FRAMES_H

#include "snapkit/snapkit.h"

typedef struct atoms_input {
    char **paths; /* the files, globs expanded (owned) */
    int npaths;
    sk_atoms_traj *traj;
    int64_t start, step, count; /* the selected frames */
} atoms_input;

/* Expand args (a pattern with * ? [ that names no file is a glob: its
 * matches in name order, none is an error), open them as one trajectory
 * (through the sidecars when index) and select `frames` ("start:stop:step";
 * NULL: every frame). CLI status; an error line printed. */
int atoms_input_open(atoms_input *in, const char *const *args, int nargs, sk_atoms_format from,
                     const sk_atoms_options *opts, int index, const char *frames);
void atoms_input_close(atoms_input *in);

/* "frame timestep atoms offset line file" lines of the selected frames. */
void atoms_print_index(const atoms_input *in);

#endif
