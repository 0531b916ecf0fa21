/* snapkit/export.h - which declarations libsnapkit exports.
 *
 * The library is built with -fvisibility=hidden: a function is visible to
 * programs only when its declaration in a public header carries SK_API, so
 * the internals of every module stay out of the shared library's ABI.
 */
#ifndef SNAPKIT_EXPORT_H
#define SNAPKIT_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define SK_API __attribute__((visibility("default")))
#else
#define SK_API
#endif

#endif
