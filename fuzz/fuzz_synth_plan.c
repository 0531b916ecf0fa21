/* libFuzzer: planning synthetic outputs and building one CPU's oct sets
 * (no files), for options drawn from the input. Traps when the plan breaks
 * its own invariants: bounds in order and spanning all keys, numbtot adding
 * up to the octs, a CPU's octs in Hilbert and list order, each once, and as
 * many of its own as numbtot allows.
 *
 * Input: ncpu (2 bytes), levelmin, levelmax span, refinement, cell target
 * (2 bytes), seed (the rest). */
#include <stdint.h>
#include <string.h>

#include "synth/synth_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 7)
        return 0;
    sk_synth_options o;
    sk_synth_options_init(&o);
    o.ncpu = 1 + (int)((data[0] | data[1] << 8) % 3000);
    o.levelmin = 1 + data[2] % 4;
    o.levelmax = o.levelmin + data[3] % 3;
    if (o.levelmax > 6)
        o.levelmax = 6;
    o.refine = (sk_synth_refine)(data[4] % 3);
    o.cells_target = (data[5] | data[6] << 8) % 20000;
    o.seed = 0;
    for (size_t i = 7; i < size && i < 15; i++)
        o.seed = o.seed << 8 | data[i];
    synth_plan p;
    sk_error err;
    if (synth_plan_build(&p, &o, 1, &err) != SK_OK)
        return 0;
    if (p.bound_key[0] != 0 || p.bound_key[p.ncpu] != (uint64_t)1 << (3 * p.bits))
        __builtin_trap();
    for (int d = 1; d <= p.ncpu; d++)
        if (p.bound_key[d] < p.bound_key[d - 1])
            __builtin_trap();
    for (int l = 1; l <= p.levelmax; l++)
        if (p.numbtot[l - 1][0] != p.octs_per_level[l] || p.numbtot[l - 1][1] > p.numbtot[l - 1][2])
            __builtin_trap();
    /* One CPU's levels, as the writer builds them. */
    int cpu = 1 + (int)(o.seed % (uint64_t)p.ncpu);
    synth_level lev[2];
    memset(lev, 0, sizeof lev);
    int rc = synth_level_root(&lev[0], &p, &err);
    for (int l = 1; l <= p.levelmax && rc == SK_OK; l++) {
        synth_level *cur = &lev[(l - 1) % 2], *next = &lev[l % 2];
        synth_level_classify(cur, &p, l, cpu);
        int64_t own = 0;
        for (int64_t i = 0; i < cur->n; i++) {
            own += cur->owner[i] == cpu;
            if (i > 0 && (cur->key[i] <= cur->key[i - 1] || cur->owner[i] < cur->owner[i - 1]))
                __builtin_trap(); /* Hilbert order, lists in order */
            if (synth_level_find(cur, cur->o[3 * i], cur->o[3 * i + 1], cur->o[3 * i + 2]) != i)
                __builtin_trap();
        }
        if (own < p.numbtot[l - 1][1] || own > p.numbtot[l - 1][2])
            __builtin_trap(); /* the CPU holds all of its own octs */
        if (l < p.levelmax)
            rc = synth_level_children(cur, next, &err);
    }
    synth_level_free(&lev[0]);
    synth_level_free(&lev[1]);
    synth_plan_free(&p);
    return 0;
}
