/* mt_half.h: IEEE binary16 and bfloat16 conversions (round to nearest, ties to even). */
#ifndef MT_HALF_H
#define MT_HALF_H

#include <stdint.h>
#include <string.h>

/* how the functions are declared: CUDA kernels (backends/cuda/kernels) make them host and device
 * functions */
#ifndef MT_HALF_FN
#define MT_HALF_FN static inline
#endif

MT_HALF_FN uint32_t mt_f32_bits(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    return x;
}

MT_HALF_FN float mt_bits_f32(uint32_t x) {
    float f;
    memcpy(&f, &x, 4);
    return f;
}

MT_HALF_FN uint16_t mt_f32_to_f16(float f) {
    uint32_t x = mt_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xff) /* inf stays inf; NaN stays a quiet NaN with the top payload bits */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* a half subnormal, or zero */
        if (e < -10) return (uint16_t)sign;
        uint32_t m24 = mant | 0x800000u;
        int shift = 14 - e;
        uint32_t r = m24 >> shift, rem = m24 & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t h = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* a carry may reach inf: correct */
    return (uint16_t)(sign | h);
}

MT_HALF_FN float mt_f16_to_f32(uint16_t h) {
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0) {
        if (mant == 0) return mt_bits_f32(sign);
        int e = 1; /* normalise the subnormal */
        while (!(mant & 0x400u)) {
            mant <<= 1;
            e--;
        }
        mant &= 0x3ffu;
        return mt_bits_f32(sign | ((uint32_t)(e + 112) << 23) | (mant << 13));
    }
    if (exp == 31) return mt_bits_f32(sign | 0x7f800000u | (mant << 13));
    return mt_bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
}

MT_HALF_FN uint16_t mt_f32_to_bf16(float f) {
    uint32_t x = mt_f32_bits(f);
    if (f != f) return 0x7fc0u;
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

MT_HALF_FN float mt_bf16_to_f32(uint16_t b) {
    return mt_bits_f32((uint32_t)b << 16);
}

#endif
