/* What the convolution's op info (core/ops/conv.c) and its kernels
 * (core/cpu/conv.c) share. */
#ifndef RF_OPS_CONV_H
#define RF_OPS_CONV_H

#include <stdint.h>

/* Runs of batch items whose weight gradients backward sums apart, then adds
 * in order (a fixed count for a batch size, so the sum's order, and the
 * result, do not depend on the thread count): as many as items, up to 16. */
static inline int64_t rf_conv_dw_chunks(int64_t batch) { return batch < 16 ? batch : 16; }

#endif
