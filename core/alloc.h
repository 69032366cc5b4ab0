/* The engine's tracked allocator.
 *
 * Every buffer the engine owns (parameters, optimizer state, the activation
 * arena, scratch, batch staging) comes from rf_alloc, so the engine knows its
 * exact live bytes and high-water mark. That measured peak is what the memory
 * planner's estimate is checked against. Buffers are 64-byte aligned and
 * zero-filled.
 */
#ifndef RF_ALLOC_H
#define RF_ALLOC_H

#include <stddef.h>

void *rf_alloc(size_t bytes);          /* NULL on failure; zeroed; 64-byte aligned */
void rf_free(void *p);                 /* NULL is fine */

size_t rf_alloc_live_bytes(void);      /* bytes currently held */
size_t rf_alloc_peak_bytes(void);      /* high-water mark since the last reset */
void rf_alloc_reset_peak(void);        /* peak := live */

/* Resident set size of this process right now, from /proc (0 if unknown),
 * and its high-water mark (VmHWM). */
size_t rf_process_rss_bytes(void);
size_t rf_process_peak_rss_bytes(void);

#endif
