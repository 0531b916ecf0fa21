/* Shapes (shape.c) as clipping (clip.c) sees them. */
#ifndef SNAPKIT_CORE_SHAPE_INTERNAL_H
#define SNAPKIT_CORE_SHAPE_INTERNAL_H

#include "snapkit/select.h"

/* Half the extent of the shape (not inverted) along axis k, box units. */
double core_shape_half_extent(const sk_shape *s, int k);

#endif
