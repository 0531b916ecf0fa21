/* One share of an output's CPU files (sk_read_options.share_rank of
 * share_count): a contiguous range of CPU indices, which is a contiguous
 * range of the Hilbert curve in RAMSES, balanced by the bytes of the files
 * the component reads. Every rank computes the same ranges from the same
 * file sizes, so no rank needs to tell another which files it takes; under
 * MPI the sizes are rank 0's, broadcast (sk_mpi_ramses_sizes), so that the
 * metadata servers see one rank's stat calls, not every rank's. */
#include <sys/stat.h>

#include "formats/ramses/internal.h"
#include "snapkit/memory.h"

static int64_t stat_bytes(const sk_ramses *r, rs_kind kind, int icpu)
{
    char path[4096];
    struct stat st;
    rs_cpu_path(r, kind, icpu, path, sizeof path);
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

static int64_t file_bytes(const sk_ramses *r, rs_kind kind, int icpu)
{
    if (r->file_sizes && kind != RS_SINKS)
        return r->file_sizes[(size_t)kind * (size_t)r->info.ncpu + (size_t)(icpu - 1)];
    return stat_bytes(r, kind, icpu);
}

const char *rs_dir(const sk_ramses *r)
{
    return r->dir;
}

size_t rs_file_sizes_count(const sk_ramses *r)
{
    return (size_t)(RS_CLUMPS + 1) * (size_t)r->info.ncpu;
}

void rs_file_sizes(const sk_ramses *r, int64_t *sizes)
{
    int ncpu = r->info.ncpu;
    for (int k = 0; k <= RS_CLUMPS; k++) {
        int64_t *row = sizes + (size_t)k * (size_t)ncpu;
        for (int c = 0; c < ncpu; c++)
            row[c] = k != RS_SINKS && (c == 0 || row[0] > 0) ? stat_bytes(r, (rs_kind)k, c + 1) : 0;
    }
}

void rs_set_file_sizes(sk_ramses *r, int64_t *sizes)
{
    sk_free(r->file_sizes);
    r->file_sizes = sizes;
}

/* CPU file icpu's bytes for a component: its AMR file too for cells. */
static int64_t cpu_bytes(const sk_ramses *r, rs_kind kind, int icpu)
{
    if (kind == RS_SINKS)
        return 1;
    int64_t b = file_bytes(r, kind, icpu);
    if (kind != RS_PART && kind != RS_CLUMPS)
        b += file_bytes(r, RS_AMR, icpu);
    return b;
}

int rs_share_owner(int64_t before, int64_t bytes, int64_t total, int count)
{
    /* The rank whose slice of [0, total) holds the file's middle byte:
     * non-decreasing in the file index, so every rank's files are contiguous. */
    double mid = (double)before + 0.5 * (double)bytes;
    int owner = total > 0 ? (int)((double)count * mid / (double)total) : 0;
    return owner < 0 ? 0 : owner >= count ? count - 1 : owner;
}

void rs_share_mask(const sk_ramses *r, rs_kind kind, const sk_read_options *opt, uint8_t *mask)
{
    int count = opt->share_count, ncpu = r->info.ncpu;
    if (count <= 1)
        return;
    int64_t *bytes = sk_malloc(sizeof *bytes * (size_t)(ncpu ? ncpu : 1));
    int64_t total = 0;
    for (int c = 0; c < ncpu; c++) {
        /* Without sizes (allocation failed), every file weighs the same. */
        int64_t b = bytes ? cpu_bytes(r, kind, c + 1) : 1;
        if (bytes)
            bytes[c] = b;
        total += b;
    }
    int64_t before = 0;
    for (int c = 0; c < ncpu; c++) {
        int64_t b = bytes ? bytes[c] : 1;
        if (rs_share_owner(before, b, total, count) != opt->share_rank)
            mask[c] = 0;
        before += b;
    }
    sk_free(bytes);
}
