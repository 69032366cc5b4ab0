#include "alloc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each block is preceded by a 64-byte header that records its size, so the
 * counters stay exact without a side table. */
#define RF_ALIGN 64

static atomic_size_t live_bytes;
static atomic_size_t peak_bytes;

void *rf_alloc(size_t bytes)
{
    size_t total = bytes + RF_ALIGN;
    if (total < bytes)
        return NULL;
    total = (total + RF_ALIGN - 1) / RF_ALIGN * RF_ALIGN;
    unsigned char *base = aligned_alloc(RF_ALIGN, total);
    if (base == NULL)
        return NULL;
    memset(base, 0, total);
    *(size_t *)base = bytes;
    size_t now = atomic_fetch_add(&live_bytes, bytes) + bytes;
    size_t peak = atomic_load(&peak_bytes);
    while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now))
        ;
    return base + RF_ALIGN;
}

void rf_free(void *p)
{
    if (p == NULL)
        return;
    unsigned char *base = (unsigned char *)p - RF_ALIGN;
    atomic_fetch_sub(&live_bytes, *(size_t *)base);
    free(base);
}

size_t rf_alloc_live_bytes(void) { return atomic_load(&live_bytes); }
size_t rf_alloc_peak_bytes(void) { return atomic_load(&peak_bytes); }
void rf_alloc_reset_peak(void) { atomic_store(&peak_bytes, atomic_load(&live_bytes)); }

static size_t status_field_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return 0;
    char line[256];
    size_t kib = 0, n = strlen(field);
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, field, n) == 0) {
            kib = strtoull(line + n, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

size_t rf_process_rss_bytes(void) { return status_field_kib("VmRSS:") * 1024; }
size_t rf_process_peak_rss_bytes(void) { return status_field_kib("VmHWM:") * 1024; }
