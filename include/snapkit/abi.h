/* snapkit/abi.h - the layout of the public structs, as this library was built.
 *
 * Bindings that mirror structs by hand (Python's ctypes, Julia, Fortran's
 * bind(C)) ask the library for the size of each struct and the offset and
 * size of each member, and refuse to run when their copy disagrees, rather
 * than read or write the wrong bytes. The answers come from sizeof and
 * offsetof over the structs these headers declare.
 */
#ifndef SNAPKIT_ABI_H
#define SNAPKIT_ABI_H

#include "snapkit/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size of the public struct `name` (its typedef name, e.g. "sk_error") in
 * *size and its number of members in *nfields (either may be NULL).
 * Returns 0, or -1 when the library describes no struct of that name. */
SK_API int sk_abi_struct(const char *name, size_t *size, int *nfields);

/* Offset and size of member `field` of struct `struct_name` (either output
 * may be NULL). Members are named as in the header; an array member's size
 * is the whole array's. Returns 0, or -1 when struct or member is unknown. */
SK_API int sk_abi_field(const char *struct_name, const char *field, size_t *offset, size_t *size);

/* Name of member `index` (0 .. nfields-1, in declaration order) of struct
 * `struct_name`, so a binding can check it mirrors every member; NULL when
 * out of range or the struct is unknown. */
SK_API const char *sk_abi_field_name(const char *struct_name, int index);

/* Name of described struct `index` (0, 1, ...); NULL past the last one. */
SK_API const char *sk_abi_struct_name(int index);

#ifdef __cplusplus
}
#endif
#endif
