/* The faces finder: connected components of the face-adjacency graph.
 * Linking always hangs the larger root under the smaller one, so each
 * component's label is its smallest cell index whatever the order of the
 * unions and the threads. */
#include "clumps_internal.h"
#include "snapkit/memory.h"

int cl_find_faces(const cl_cells *c, int64_t *label, sk_error *err)
{
    /* No neighbour graph: each cell looks through its three upper faces
     * only (every contact is the upper face of one of its two cells) and
     * unites at once, in parallel. */
    for (int64_t i = 0; i < c->n; i++)
        label[i] = i;
    int failed = 0;
#pragma omp parallel num_threads(c->threads) reduction(| : failed)
    {
        cl_list l = {0};
#pragma omp for schedule(dynamic, 4096)
        for (int64_t i = 0; i < c->n; i++) {
            if (failed || cl_neighbours_up(c, i, &l)) {
                failed = 1;
                continue;
            }
            for (int k = 0; k < l.n; k++)
                cl_uf_unite(label, i, l.v[k]);
        }
        cl_list_free(&l);
    }
    if (failed)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for neighbours");
    for (int64_t i = 0; i < c->n; i++)
        label[i] = cl_uf_find(label, i);
    return SK_OK;
}
