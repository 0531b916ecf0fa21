/* The open file shared by the reader's parts (open, read, verify). */
#ifndef SNAPKIT_STORE_READER_H
#define SNAPKIT_STORE_READER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "snapkit/store.h"
#include "formats/snapkit/format.h"

struct sk_store {
    char *path;
    int fd;                  /* -1 when reading from memory */
    const uint8_t *mem;      /* the bytes, when in memory or mapped (atomic) */
    size_t mapped;           /* bytes to unmap at close (0: mem is not ours) */
    int reads;               /* reads begun on the handle (atomic) */
    int64_t size;
    int skip_checksums;
    int64_t footer_offset, footer_bytes;
    st_footer footer;
    /* checks.c: chunk-columns checked in generation checks_gen are not
     * hashed again while checks_kept (atomics; checked_file under the lock) */
    pthread_mutex_t checks_lock;
    uint32_t checks_gen;
    int checks_kept;
    struct stat checked_file;
};

/* Read exactly n bytes at offset (pread, or from memory). */
int st_read_at(const sk_store *s, void *buf, size_t n, int64_t offset, sk_error *err);

/* The n bytes at offset: a pointer into the mapping when the file is
 * mapped (no copy), else read into buf (n bytes) and buf. NULL on failure. */
const uint8_t *st_bytes_at(const sk_store *s, uint8_t *buf, size_t n, int64_t offset,
                           sk_error *err);

/* Note a read (or stream) of the handle beginning: from the second on,
 * the file is read through a mapping. Safe with reads on other threads. */
void st_read_begins(sk_store *s);

/* Whether reads of s come from memory (a mapping, or a file opened from
 * memory) rather than pread. Once true, it stays true. */
static inline int st_in_memory(const sk_store *s)
{
    return __atomic_load_n(&s->mem, __ATOMIC_ACQUIRE) != NULL;
}

/* The stored table called name, or NULL with SK_ERR_ARG listing the tables. */
const st_table *st_find_table(const sk_store *s, const char *name, sk_error *err);

/* checks.c. The handle's record of the checks made (st is the file as
 * opened; NULL for bytes in memory, which are hashed at every read). */
void st_checks_init(sk_store *s, const struct stat *st);
/* At a read's start (from st_read_begins): keep the checks made while the
 * file is the same and its last change more than a second old. */
void st_checks_read_begins(sk_store *s);
/* Disown every check made so far (verify hashes every byte it reads). */
void st_checks_forget(sk_store *s);
/* Check the stored bytes of chunk ci, column j against their checksum
 * (unless the handle skips checksums, or checked them already in the
 * file's current state): SK_ERR_CHECKSUM naming them. */
int st_check_hash(const sk_store *s, const st_table *t, int64_t ci, int j, const uint8_t *stored,
                  sk_error *err);

/* Check and decode the stored bytes of chunk ci, column j into dst. Fails
 * with SK_ERR_CHECKSUM or SK_ERR_FORMAT naming table, chunk and column. */
int st_decode_cc(const sk_store *s, const st_table *t, int64_t ci, int j,
                 const uint8_t *stored, void *dst, uint8_t *scratch, sk_error *err);

#endif
