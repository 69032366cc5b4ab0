#include "tb_record.h"

#include <string.h>

/* Neither zlib (CRC-32 only) nor any Debian library offers CRC-32C, so it
 * is computed here with one 256-entry table of the reflected polynomial
 * 0x82f63b78; tests/test_tb_events.c checks it against RFC 3720's vectors. */
static uint32_t crc_table[256];

static gpointer make_table(gpointer unused)
{
    (void)unused;
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        crc_table[i] = c;
    }
    return NULL;
}

uint32_t rf_crc32c(const void *data, size_t len)
{
    static GOnce once = G_ONCE_INIT;
    g_once(&once, make_table, NULL);
    const uint8_t *p = data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++)
        crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}

uint32_t rf_tb_masked_crc(const void *data, size_t len)
{
    uint32_t crc = rf_crc32c(data, len);
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

uint8_t *rf_tb_record_frame(const void *data, size_t len, size_t *framed_len)
{
    *framed_len = RF_TB_RECORD_HEADER + len + RF_TB_RECORD_FOOTER;
    uint8_t *out = g_malloc(*framed_len);
    put_le(out, len, 8);
    put_le(out + 8, rf_tb_masked_crc(out, 8), 4);
    if (len > 0)
        memcpy(out + RF_TB_RECORD_HEADER, data, len);
    put_le(out + RF_TB_RECORD_HEADER + len, rf_tb_masked_crc(data, len), 4);
    return out;
}

rf_tb_record_result rf_tb_record_next(const uint8_t *buf, size_t size, size_t offset, const uint8_t **data,
                                      size_t *len, size_t *next, const char **problem)
{
    if (offset >= size)
        return RF_TB_RECORD_END;
    size_t left = size - offset;
    const uint8_t *p = buf + offset;
    if (left < RF_TB_RECORD_HEADER)
        return RF_TB_RECORD_TRUNCATED;
    if (get_le(p + 8, 4) != rf_tb_masked_crc(p, 8)) {
        *problem = "the record length's CRC-32C does not match";
        return RF_TB_RECORD_BAD;
    }
    uint64_t n = get_le(p, 8);
    if (n > left - RF_TB_RECORD_HEADER || left - RF_TB_RECORD_HEADER - n < RF_TB_RECORD_FOOTER)
        return RF_TB_RECORD_TRUNCATED;
    if (get_le(p + RF_TB_RECORD_HEADER + n, 4) != rf_tb_masked_crc(p + RF_TB_RECORD_HEADER, n)) {
        *problem = "the record data's CRC-32C does not match";
        return RF_TB_RECORD_BAD;
    }
    *data = p + RF_TB_RECORD_HEADER;
    *len = (size_t)n;
    *next = offset + RF_TB_RECORD_HEADER + (size_t)n + RF_TB_RECORD_FOOTER;
    return RF_TB_RECORD_OK;
}
