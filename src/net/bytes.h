/* Big-endian field access for the wire formats (protocol.c, probe.c). */
#ifndef VP_BYTES_H
#define VP_BYTES_H

#include <stdint.h>

static inline void vp_put16(uint8_t *out, uint16_t value)
{
    out[0] = (uint8_t)(value >> 8);
    out[1] = (uint8_t)value;
}

static inline void vp_put32(uint8_t *out, uint32_t value)
{
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)(value >> (24 - 8 * i));
}

static inline void vp_put64(uint8_t *out, uint64_t value)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(value >> (56 - 8 * i));
}

static inline uint16_t vp_get16(const uint8_t *in)
{
    return (uint16_t)((in[0] << 8) | in[1]);
}

static inline uint32_t vp_get32(const uint8_t *in)
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

static inline uint64_t vp_get64(const uint8_t *in)
{
    return (uint64_t)vp_get32(in) << 32 | vp_get32(in + 4);
}

#endif
