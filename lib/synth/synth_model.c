/* The analytic model behind synthetic outputs: where cells refine, and the
 * smooth fields and particle densities they carry.
 *
 * Refinement. A cell c at level l (size h) refines when the block of its 27
 * neighbours, [c - h, c + 2h) per axis on the periodic box, comes closer to
 * a clump centre than R_l, with R_l shrinking with l. Because that block
 * lies inside the block of the parent of every neighbour, a refined cell's
 * neighbours' parents refine too: RAMSES's 2:1 rule holds by construction,
 * and whether a cell refines needs nothing but its own position. The random
 * mode gets the same property from "hot" cells that are hot only inside a
 * hot parent, refining a cell when a hot cell is among its 27 neighbours. */
#include <math.h>

#include "synth/synth_internal.h"

/* Each finer level refines within 0.63 of the radius of the coarser one:
 * about twice the leaf cells per level, like zoom and blast runs. */
#define RADIUS_SHRINK 0.63
#define RHO_BACKGROUND 0.1

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t synth_hash(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    return mix64(mix64(mix64(mix64(seed) ^ a) ^ b) ^ c);
}

double synth_uniform(uint64_t h)
{
    return (double)(h >> 11) * 0x1.0p-53;
}

void synth_model_init(synth_model *m, const sk_synth_options *opt)
{
    *m = (synth_model){.levelmin = opt->levelmin, .levelmax = opt->levelmax,
                       .bits = opt->levelmax + 1, .refine = opt->refine, .seed = opt->seed,
                       .boxlen = opt->boxlen,
                       .nvar = opt->nvar < 5 ? 5 : opt->nvar > 99 ? 99 : opt->nvar};
    if (opt->refine == SK_SYNTH_SPHERE) {
        m->nclumps = 1;
        for (int a = 0; a < 3; a++)
            m->centre[0][a] = 0.5 + 0.02 * (synth_uniform(synth_hash(opt->seed, 1, 0, a)) - 0.5);
        m->size[0] = 1.0;
        m->core[0] = 0.05;
        m->rho0[0] = 100.0;
        m->param = 0.2;
    } else {
        m->nclumps = SYNTH_MAX_CLUMPS;
        for (int i = 0; i < m->nclumps; i++) {
            for (int a = 0; a < 3; a++)
                m->centre[i][a] = 0.2 + 0.6 * synth_uniform(synth_hash(opt->seed, 2, i, a));
            m->size[i] = 0.5 + synth_uniform(synth_hash(opt->seed, 3, i, 0));
            m->core[i] = 0.03 * m->size[i];
            m->rho0[i] = 100.0 / m->size[i];
        }
        m->param = opt->refine == SK_SYNTH_RANDOM ? 0.2 : 0.1;
    }
    for (int i = 0; i < m->nclumps; i++) {
        double a = m->core[i] * opt->boxlen;
        m->mass[i] = 4.0 / 3.0 * M_PI * m->rho0[i] * a * a * a;
    }
}

/* Distance on the unit torus from point y to the interval [lo, hi]. */
static double torus_gap(double lo, double hi, double y)
{
    double best = INFINITY;
    for (int k = -1; k <= 1; k++) {
        double v = y + k;
        double d = v < lo ? lo - v : v > hi ? v - hi : 0.0;
        if (d < best)
            best = d;
    }
    return best;
}

static int refined_near_clumps(const synth_model *m, int level, const uint32_t c[3])
{
    double h = ldexp(1.0, -level);
    double shrink = pow(RADIUS_SHRINK, level - m->levelmin);
    for (int i = 0; i < m->nclumps; i++) {
        double r = m->param * m->size[i] * shrink;
        double d2 = 0;
        for (int a = 0; a < 3 && d2 < r * r; a++) {
            double g = torus_gap(((double)c[a] - 1.0) * h, ((double)c[a] + 2.0) * h, m->centre[i][a]);
            d2 += g * g;
        }
        if (d2 < r * r)
            return 1;
    }
    return 0;
}

static uint64_t pack(uint32_t x, uint32_t y, uint32_t z)
{
    return (uint64_t)x | (uint64_t)y << 21 | (uint64_t)z << 42;
}

/* Hot: the cell and each of its ancestors down to levelmin drew below p. */
static int hot(const synth_model *m, int level, uint32_t x, uint32_t y, uint32_t z)
{
    for (int j = m->levelmin; j <= level; j++) {
        int s = level - j;
        uint64_t h = synth_hash(m->seed, 0x686f74ull + (uint64_t)j, pack(x >> s, y >> s, z >> s), 0);
        if (!(synth_uniform(h) < m->param))
            return 0;
    }
    return 1;
}

static int refined_random(const synth_model *m, int level, const uint32_t c[3])
{
    uint32_t mask = (1u << level) - 1u;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                if (hot(m, level, (c[0] + (uint32_t)dx) & mask, (c[1] + (uint32_t)dy) & mask,
                        (c[2] + (uint32_t)dz) & mask))
                    return 1;
    return 0;
}

int synth_refined(const synth_model *m, int level, uint32_t cx, uint32_t cy, uint32_t cz)
{
    if (level < m->levelmin)
        return 1;
    if (level >= m->levelmax)
        return 0;
    const uint32_t c[3] = {cx, cy, cz};
    return m->refine == SK_SYNTH_RANDOM ? refined_random(m, level, c)
                                        : refined_near_clumps(m, level, c);
}

static double plummer(double r2, double a)
{
    double q = 1.0 + r2 / (a * a);
    return 1.0 / (q * q * sqrt(q));
}

void synth_hydro(const synth_model *m, const double x[3], double *out)
{
    static const double bulk[3] = {0.05, -0.03, 0.02};
    double rho = RHO_BACKGROUND, v[3] = {bulk[0], bulk[1], bulk[2]};
    for (int i = 0; i < m->nclumps; i++) {
        double d[3], r2 = 0, a = m->core[i];
        for (int k = 0; k < 3; k++) {
            d[k] = x[k] - m->centre[i][k];
            r2 += d[k] * d[k];
        }
        rho += m->rho0[i] * plummer(r2, a);
        /* Rotation about z with a little infall, fading outside the core. */
        double g = 1.0 / (a * (1.0 + r2 / (a * a)));
        v[0] += g * (-d[1] - 0.25 * d[0]);
        v[1] += g * (d[0] - 0.25 * d[1]);
        v[2] += g * (-0.25 * d[2]);
    }
    const double two_pi = 2.0 * M_PI;
    out[0] = rho;
    out[1] = v[0];
    out[2] = v[1];
    out[3] = v[2];
    out[4] = 0.01 * pow(rho, 5.0 / 3.0) *
             (1.0 + 0.2 * sin(two_pi * x[0]) * sin(two_pi * x[1]) * sin(two_pi * x[2]));
    if (m->nvar > 5)
        out[5] = 0.001 + 0.02 * (rho - RHO_BACKGROUND) / rho;
    for (int k = 1; k + 5 < m->nvar; k++)
        out[5 + k] = 0.5 + 0.4 * sin(two_pi * (k * x[0] + x[1]) + k) * cos(two_pi * x[2]);
}

void synth_gravity(const synth_model *m, const double x[3], double out[4])
{
    double phi = 0, f[3] = {0, 0, 0};
    for (int i = 0; i < m->nclumps; i++) {
        double d[3], r2 = 0, a = m->core[i] * m->boxlen;
        for (int k = 0; k < 3; k++) {
            d[k] = (x[k] - m->centre[i][k]) * m->boxlen;
            r2 += d[k] * d[k];
        }
        double s = sqrt(r2 + a * a);
        phi -= m->mass[i] / s;
        double g = m->mass[i] / (s * s * s);
        for (int k = 0; k < 3; k++)
            f[k] -= g * d[k];
    }
    out[0] = phi;
    out[1] = f[0];
    out[2] = f[1];
    out[3] = f[2];
}

double synth_particle_density(const synth_model *m, int family, const double x[3])
{
    /* Dark matter in wide haloes over a thin background; stars in the cores. */
    double rho = family == 1 ? 0.05 : 1e-9;
    double widen = family == 1 ? 3.0 : 0.5;
    for (int i = 0; i < m->nclumps; i++) {
        double r2 = 0;
        for (int a = 0; a < 3; a++) {
            double d = x[a] - m->centre[i][a];
            r2 += d * d;
        }
        rho += m->rho0[i] * plummer(r2, m->core[i] * widen);
    }
    return rho;
}
