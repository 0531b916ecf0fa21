/* libhdf5, loaded when the first HDF5 file is written rather than linked.
 * Debian's libhdf5 brings libcurl, OpenSSL and libsz with it (36 libraries
 * the dynamic loader would map at the start of every snapkit process),
 * while only `snapkit export` writes HDF5.
 *
 * The writers keep HDF5's documented names: this header points each
 * function and predefined identifier they use at the loaded library. */
#ifndef SNAPKIT_EXPORT_H5LIB_H
#define SNAPKIT_EXPORT_H5LIB_H

#include <hdf5.h>

#include "snapkit/error.h"
#include "snapkit/table.h"

/* X(name): the functions snapkit calls. */
#define H5LIB_FUNCTIONS(X)                                                                     \
    X(H5open) X(H5dont_atexit) X(H5Eset_auto2) X(H5Ewalk2) X(H5Eclear2) X(H5Fcreate) X(H5Fclose) X(H5Gcreate2)  \
    X(H5Gclose) X(H5Screate_simple) X(H5Screate) X(H5Sclose) X(H5Sselect_hyperslab)           \
    X(H5Dget_space) X(H5Pcreate) X(H5Pclose) X(H5Pset_chunk) X(H5Pset_shuffle)                 \
    X(H5Pset_deflate) X(H5Pset_fill_time) X(H5Pset_file_locking) X(H5Dcreate2)                 \
    X(H5Dset_extent) X(H5Dwrite) X(H5Dwrite_chunk) X(H5Dclose) X(H5Acreate2) X(H5Awrite) X(H5Aclose) X(H5Tcopy) \
    X(H5Tset_size) X(H5Tget_size) X(H5Tclose) X(H5Zfilter_avail)
/* X(name): the predefined identifiers (variables HDF5 sets in H5open). */
#define H5LIB_IDS(X)                                                                           \
    X(H5T_NATIVE_INT8_g) X(H5T_NATIVE_UINT8_g) X(H5T_NATIVE_INT16_g) X(H5T_NATIVE_UINT16_g)    \
    X(H5T_NATIVE_INT32_g) X(H5T_NATIVE_UINT32_g) X(H5T_NATIVE_INT64_g) X(H5T_NATIVE_UINT64_g)  \
    X(H5T_NATIVE_FLOAT_g) X(H5T_NATIVE_DOUBLE_g) X(H5T_C_S1_g) X(H5P_CLS_DATASET_CREATE_ID_g)  \
    X(H5P_CLS_FILE_ACCESS_ID_g)

typedef struct h5lib {
#define H5LIB_FN(name) __typeof__(&name) p_##name;
#define H5LIB_ID(name) hid_t *p_##name;
    H5LIB_FUNCTIONS(H5LIB_FN)
    H5LIB_IDS(H5LIB_ID)
#undef H5LIB_FN
#undef H5LIB_ID
} h5lib;

/* Filled by h5lib_load. */
extern h5lib h5lib_calls;

#define H5open h5lib_calls.p_H5open
#define H5dont_atexit h5lib_calls.p_H5dont_atexit
#define H5Eset_auto2 h5lib_calls.p_H5Eset_auto2
#define H5Ewalk2 h5lib_calls.p_H5Ewalk2
#define H5Eclear2 h5lib_calls.p_H5Eclear2
#define H5Fcreate h5lib_calls.p_H5Fcreate
#define H5Fclose h5lib_calls.p_H5Fclose
#define H5Gcreate2 h5lib_calls.p_H5Gcreate2
#define H5Gclose h5lib_calls.p_H5Gclose
#define H5Screate_simple h5lib_calls.p_H5Screate_simple
#define H5Screate h5lib_calls.p_H5Screate
#define H5Sclose h5lib_calls.p_H5Sclose
#define H5Sselect_hyperslab h5lib_calls.p_H5Sselect_hyperslab
#define H5Dget_space h5lib_calls.p_H5Dget_space
#define H5Pcreate h5lib_calls.p_H5Pcreate
#define H5Pclose h5lib_calls.p_H5Pclose
#define H5Pset_chunk h5lib_calls.p_H5Pset_chunk
#define H5Pset_shuffle h5lib_calls.p_H5Pset_shuffle
#define H5Pset_deflate h5lib_calls.p_H5Pset_deflate
#define H5Pset_fill_time h5lib_calls.p_H5Pset_fill_time
#define H5Pset_file_locking h5lib_calls.p_H5Pset_file_locking
#define H5Dcreate2 h5lib_calls.p_H5Dcreate2
#define H5Dset_extent h5lib_calls.p_H5Dset_extent
#define H5Dwrite h5lib_calls.p_H5Dwrite
#define H5Dwrite_chunk h5lib_calls.p_H5Dwrite_chunk
#define H5Dclose h5lib_calls.p_H5Dclose
#define H5Acreate2 h5lib_calls.p_H5Acreate2
#define H5Awrite h5lib_calls.p_H5Awrite
#define H5Aclose h5lib_calls.p_H5Aclose
#define H5Tcopy h5lib_calls.p_H5Tcopy
#define H5Tset_size h5lib_calls.p_H5Tset_size
#define H5Tclose h5lib_calls.p_H5Tclose
#define H5Tget_size h5lib_calls.p_H5Tget_size
#define H5Zfilter_avail h5lib_calls.p_H5Zfilter_avail
/* The identifiers, read after H5open (done by h5lib_load). */
#undef H5T_NATIVE_INT8
#undef H5T_NATIVE_UINT8
#undef H5T_NATIVE_INT16
#undef H5T_NATIVE_UINT16
#undef H5T_NATIVE_INT32
#undef H5T_NATIVE_UINT32
#undef H5T_NATIVE_INT64
#undef H5T_NATIVE_UINT64
#undef H5T_NATIVE_FLOAT
#undef H5T_NATIVE_DOUBLE
#undef H5T_C_S1
#undef H5P_DATASET_CREATE
#undef H5P_FILE_ACCESS
#undef H5F_ACC_TRUNC
#define H5T_NATIVE_INT8 (*h5lib_calls.p_H5T_NATIVE_INT8_g)
#define H5T_NATIVE_UINT8 (*h5lib_calls.p_H5T_NATIVE_UINT8_g)
#define H5T_NATIVE_INT16 (*h5lib_calls.p_H5T_NATIVE_INT16_g)
#define H5T_NATIVE_UINT16 (*h5lib_calls.p_H5T_NATIVE_UINT16_g)
#define H5T_NATIVE_INT32 (*h5lib_calls.p_H5T_NATIVE_INT32_g)
#define H5T_NATIVE_UINT32 (*h5lib_calls.p_H5T_NATIVE_UINT32_g)
#define H5T_NATIVE_INT64 (*h5lib_calls.p_H5T_NATIVE_INT64_g)
#define H5T_NATIVE_UINT64 (*h5lib_calls.p_H5T_NATIVE_UINT64_g)
#define H5T_NATIVE_FLOAT (*h5lib_calls.p_H5T_NATIVE_FLOAT_g)
#define H5T_NATIVE_DOUBLE (*h5lib_calls.p_H5T_NATIVE_DOUBLE_g)
#define H5T_C_S1 (*h5lib_calls.p_H5T_C_S1_g)
#define H5P_DATASET_CREATE (*h5lib_calls.p_H5P_CLS_DATASET_CREATE_ID_g)
#define H5P_FILE_ACCESS (*h5lib_calls.p_H5P_CLS_FILE_ACCESS_ID_g)
/* Without H5check_version, which only a linked program needs. */
#define H5F_ACC_TRUNC 0x0002u

/* Load libhdf5 once (thread-safe: the library named by the environment
 * variable SNAPKIT_HDF5, else the one snapkit was built against) and check
 * that it compresses with deflate. On every call, on the calling thread:
 * HDF5 stops printing its error stack (the library never prints; errors
 * come back through h5lib_fail). SK_ERR_IO naming path when it cannot. */
int h5lib_load(const char *path, sk_error *err);

/* Keep what the calling thread's HDF5 error stack says now, for
 * h5lib_fail after the calls that clean up (each clears the stack): a
 * helper calls it when an HDF5 call fails. The first kept failure stays. */
void h5lib_keep(void);

/* SK_ERR_IO naming path: `what` and the innermost message of the calling
 * thread's HDF5 error stack (or the one kept), which it clears; a failed
 * system call's own words when there are some. Returns SK_ERR_IO. */
int h5lib_fail(sk_error *err, const char *path, const char *what);

/* HDF5's native type of a column type; a negative id for none. */
hid_t h5lib_type(sk_dtype type);

#endif
