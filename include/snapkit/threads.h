/* snapkit/threads.h - the thread budget.
 *
 * The library never uses more threads than the job owns. The budget is the
 * smallest of: the caller's request (0 = as many as allowed), the scheduler's
 * allocation (SLURM_CPUS_PER_TASK, SLURM_JOB_CPUS_PER_NODE, PBS_NP, NSLOTS),
 * OMP_NUM_THREADS, the CPUs in the process's affinity mask, and the machine.
 */
#ifndef SNAPKIT_THREADS_H
#define SNAPKIT_THREADS_H

#include "snapkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_thread_budget {
    int threads;        /* what to use: >= 1 */
    int requested;      /* the request as given (0 = none) */
    int owned;          /* CPUs the job owns: the budget without the request */
    int machine;        /* online CPUs of the machine */
    int affinity;       /* CPUs in the affinity mask (machine when unknown) */
    char limited_by[64];/* what set `owned`: "SLURM_CPUS_PER_TASK", ..., "affinity", "machine" */
} sk_thread_budget;

/* Look-up of an environment variable; returns NULL when unset. */
typedef const char *(*sk_env_fn)(const char *name, void *ctx);

/* Budget from the real environment and affinity mask. Returns out->threads. */
SK_API int sk_thread_budget_get(int requested, sk_thread_budget *out);

/* Ranks of one job sharing this node (MPI; set by sk_mpi_start): a
 * node-wide count (the machine, SLURM_JOB_CPUS_PER_NODE, PBS_NP, NSLOTS,
 * an affinity mask shared by the ranks) is divided among them, at least
 * one thread each, so that ranks x threads never oversubscribe the node.
 * A per-task count (SLURM_CPUS_PER_TASK, OMP_NUM_THREADS) or a mask
 * narrower than the machine (ranks bound to cores) is each rank's already.
 * limited_by then ends in " / N ranks". 1 (the default): a lone process. */
SK_API void sk_thread_budget_set_ranks(int ranks_on_node);
SK_API int sk_thread_budget_ranks(void);

/* Budget from a given environment, affinity count and machine count:
 * the testable core of sk_thread_budget_get. */
SK_API int sk_thread_budget_from(int requested, sk_env_fn env, void *ctx,
                                 int affinity_cpus, int machine_cpus,
                                 sk_thread_budget *out);

/* Parse a scheduler CPU count such as "16", "16(x2),8" (SLURM) -> 16.
 * Returns 0 when the text holds no positive count. */
SK_API int sk_parse_cpu_count(const char *text);

#ifdef __cplusplus
}
#endif
#endif
