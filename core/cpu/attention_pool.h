/* Full attention's probabilities pooled on demand, for probes. */
#ifndef RF_CPU_ATTENTION_POOL_H
#define RF_CPU_ATTENTION_POOL_H

#include "../probe.h"

/* Full attention's pooled probe (core/probe.c's hook): plane p of out is batch row
 * b0 + p / heads, head p % heads, of the probabilities [B, heads, N, M],
 * pooled over window w. Reads q, k, the key mask and the row log-sum-exps
 * forward left in aux, a block of RF_ATTN_DEFAULT_QB x RF_ATTN_DEFAULT_KB scores at
 * a time: besides out it allocates one block and the cells' sums. */
void rf_cpu_attention_pool(const rf_graph *g, const rf_node *n, int64_t b0, int64_t planes, const rf_probe_window *w,
                           float *out);

#endif
