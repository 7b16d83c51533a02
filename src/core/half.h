/*
** half.h -- IEEE 754 binary16 conversions.
*/
#ifndef WNN_CORE_HALF_H
#define WNN_CORE_HALF_H

#include <stdint.h>

/* Exact widening of a binary16 bit pattern. */
float wnn__half_to_float(uint16_t h);
/* Narrowing with round-to-nearest-even; overflow gives +-Inf, NaN stays NaN. */
uint16_t wnn__float_to_half(float f);

#endif
