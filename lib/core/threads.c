/* The thread budget: never more threads than the job owns. Schedulers tell a
 * job its share through environment variables; the affinity mask covers
 * cgroups/taskset/numactl; the machine count is the last resort. */
#include "snapkit/threads.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sk_parse_cpu_count(const char *text)
{
    if (!text)
        return 0;
    while (*text == ' ' || *text == '\t')
        text++;
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (end == text || v <= 0 || v > 1 << 20)
        return 0;
    return (int)v;
}

static const char *const k_sources[] = {
    "SLURM_CPUS_PER_TASK", "SLURM_JOB_CPUS_PER_NODE", "PBS_NP", "NSLOTS", "OMP_NUM_THREADS",
};

static void take_min(sk_thread_budget *b, int value, const char *source)
{
    if (value > 0 && (b->owned == 0 || value < b->owned)) {
        b->owned = value;
        snprintf(b->limited_by, sizeof b->limited_by, "%s", source);
    }
}

int sk_thread_budget_from(int requested, sk_env_fn env, void *ctx, int affinity_cpus,
                          int machine_cpus, sk_thread_budget *out)
{
    memset(out, 0, sizeof *out);
    out->requested = requested > 0 ? requested : 0;
    out->machine = machine_cpus > 0 ? machine_cpus : 1;
    out->affinity = affinity_cpus > 0 ? affinity_cpus : out->machine;
    /* The machine is the fallback; each narrower source replaces it. */
    take_min(out, out->machine, "machine");
    take_min(out, out->affinity, "affinity");
    for (size_t i = 0; env && i < sizeof k_sources / sizeof k_sources[0]; i++)
        take_min(out, sk_parse_cpu_count(env(k_sources[i], ctx)), k_sources[i]);
    out->threads = out->owned;
    if (out->requested > 0 && out->requested < out->threads)
        out->threads = out->requested;
    return out->threads;
}

static const char *real_env(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

static int affinity_count(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    return CPU_COUNT(&set);
}

static _Atomic int g_ranks_on_node = 1;

void sk_thread_budget_set_ranks(int ranks_on_node)
{
    g_ranks_on_node = ranks_on_node > 1 ? ranks_on_node : 1;
}

int sk_thread_budget_ranks(void)
{
    return g_ranks_on_node;
}

/* A count that the ranks on the node share, rather than each one's own. */
static int node_wide(const sk_thread_budget *b)
{
    return !strcmp(b->limited_by, "machine") || !strcmp(b->limited_by, "SLURM_JOB_CPUS_PER_NODE") ||
           !strcmp(b->limited_by, "PBS_NP") || !strcmp(b->limited_by, "NSLOTS") ||
           (!strcmp(b->limited_by, "affinity") && b->affinity == b->machine);
}

int sk_thread_budget_get(int requested, sk_thread_budget *out)
{
    long machine = sysconf(_SC_NPROCESSORS_ONLN);
    sk_thread_budget_from(requested, real_env, NULL, affinity_count(),
                          machine > 0 ? (int)machine : 1, out);
    int ranks = g_ranks_on_node;
    if (ranks > 1 && node_wide(out)) {
        out->owned = out->owned / ranks > 0 ? out->owned / ranks : 1;
        size_t len = strlen(out->limited_by);
        snprintf(out->limited_by + len, sizeof out->limited_by - len, " / %d ranks", ranks);
        out->threads = out->requested > 0 && out->requested < out->owned ? out->requested
                                                                         : out->owned;
    }
    return out->threads;
}
