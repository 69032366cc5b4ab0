/* The machine's memory copy bandwidth, the bound of ops that move bytes
 * rather than multiply (`bench --profile`, core/traffic.h), as
 * core/peak.h's rate is the bound of matrix products.
 */
#ifndef RF_BANDWIDTH_H
#define RF_BANDWIDTH_H

#include "pool.h"

/* Bytes per second that memcpy moves (each byte read once and written
 * once) between two 128 MiB buffers, every thread of `pool` copying its own
 * slice: the best of five copies, after one that faults the pages in.
 * 0 when the buffers cannot be allocated. */
double rf_copy_bandwidth(rf_pool *pool);

#endif
