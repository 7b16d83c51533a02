/* SPDX-License-Identifier: Apache-2.0 */
/*
** half.h -- IEEE 754 binary16 <-> binary32 conversions on bit patterns.
**
** Portable integer code (no F16C, no _Float16) so that every backend and the
** host side of every transfer round the same way: narrowing is round to
** nearest, ties to even, including into and out of the subnormal range.
** Inline, because float16 kernels convert every element.
*/
#ifndef WNN_CORE_HALF_H
#define WNN_CORE_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t wnn__float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float wnn__bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float wnn__half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;

    if (exp == 0x1f) /* Inf, or NaN with its payload kept in the top bits */
        return wnn__bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
        /* Zero or subnormal: mant * 2^-24 is exact in binary32. */
        float mag = (float)mant * 0x1p-24f;
        return wnn__bits_float(sign | wnn__float_bits(mag));
    }
    /* Normal: rebias the exponent from 15 to 127. */
    return wnn__bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

/* Shifts m right by s bits, rounding to nearest with ties to even. */
static inline uint32_t wnn__shift_round_even(uint32_t m, unsigned s)
{
    uint32_t q = m >> s;
    uint32_t rem = m & ((1u << s) - 1u);
    uint32_t half = 1u << (s - 1u);
    if (rem > half || (rem == half && (q & 1u)))
        q++;
    return q;
}

static inline uint16_t wnn__float_to_half(float f)
{
    uint32_t x = wnn__float_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t mag = x & 0x7fffffffu;

    if (mag > 0x7f800000u) /* NaN: keep the payload's top bits, force quiet */
        return (uint16_t)(sign | 0x7e00u | ((mag >> 13) & 0x3ffu));
    if (mag >= 0x47800000u) /* >= 65536 (or Inf): beyond any rounding to 65504 */
        return (uint16_t)(sign | 0x7c00u);
    if (mag >= 0x38800000u) {
        /* Normal range: drop 13 mantissa bits and rebias; a carry out of the
        ** mantissa correctly bumps the exponent, up to Inf at 65520. */
        uint32_t h = wnn__shift_round_even(mag, 13) - (112u << 10);
        return (uint16_t)(sign | h);
    }
    if (mag <= 0x33000000u) /* <= 2^-25: rounds to zero (2^-25 is a tie to 0) */
        return sign;
    /* Subnormal result: value / 2^-24 = m * 2^(e - 126) with the implicit bit.
    ** Rounding up to 0x400 yields the smallest normal, which is right. */
    {
        uint32_t e = mag >> 23;
        uint32_t m = (mag & 0x7fffffu) | 0x800000u;
        return (uint16_t)(sign | wnn__shift_round_even(m, 126u - e));
    }
}

#endif
