/* TFRecord framing, the container of TensorBoard's event files: each
 * record is
 *
 *   uint64 length (little-endian) | uint32 masked CRC-32C of those 8 bytes |
 *   length bytes of data           | uint32 masked CRC-32C of the data
 *
 * where a CRC is masked as ((crc >> 15) | (crc << 17)) + 0xa282ead8.
 * GLib-free apart from GError; no file handling here (tb_writer.c and
 * tb_reader.c own the files). */
#ifndef RF_CONFIG_TB_RECORD_H
#define RF_CONFIG_TB_RECORD_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define RF_TB_RECORD_HEADER 12   /* length and its CRC */
#define RF_TB_RECORD_FOOTER 4    /* the data's CRC */

/* CRC-32C (Castagnoli, reflected, as iSCSI and TFRecord use it). */
uint32_t rf_crc32c(const void *data, size_t len);
uint32_t rf_tb_masked_crc(const void *data, size_t len);

/* `data` framed as one record: RF_TB_RECORD_HEADER + len + RF_TB_RECORD_FOOTER
 * bytes. g_free. */
uint8_t *rf_tb_record_frame(const void *data, size_t len, size_t *framed_len);

typedef enum {
    RF_TB_RECORD_OK,          /* *data, *len: the record; *next: the offset after it */
    RF_TB_RECORD_END,         /* no bytes left */
    RF_TB_RECORD_TRUNCATED,   /* the bytes left end inside a record (a writer still at it, or killed) */
    RF_TB_RECORD_BAD,         /* a CRC does not match: *problem says which */
} rf_tb_record_result;

/* The record at `offset` of buf[0..size). */
rf_tb_record_result rf_tb_record_next(const uint8_t *buf, size_t size, size_t offset, const uint8_t **data,
                                      size_t *len, size_t *next, const char **problem);

#endif
