/* Whether a launcher started this process, from the variables mpirun,
 * mpiexec and srun set. Reading the environment here is the one exception
 * besides the thread budget: starting MPI in a plain run would cost a
 * second and, on some machines, fail for want of a launcher. */
#include <stdlib.h>

#include "snapkit/util/mpi.h"

const char *sk_mpi_launched(void)
{
    /* Open MPI, PMIx (Open MPI 4+, srun --mpi=pmix), PMI (MPICH, srun
     * --mpi=pmi2), MPICH's Hydra. */
    static const char *const k_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE",
                                         "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof k_vars / sizeof k_vars[0]; i++)
        if (getenv(k_vars[i]))
            return k_vars[i];
    /* srun without an MPI plugin: a step of several tasks. One task of a
     * batch script also has SLURM_PROCID, so the count must say more than one. */
    const char *ntasks = getenv("SLURM_STEP_NUM_TASKS");
    if (getenv("SLURM_PROCID") && ntasks && atoi(ntasks) > 1)
        return "SLURM_STEP_NUM_TASKS";
    return NULL;
}
