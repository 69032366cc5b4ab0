/* `bench --profile`'s table: time per op kind, and how close each comes to
 * its own bound, the roofline of the machine's f32 matrix-product peak
 * (core/peak.h) and its memory copy bandwidth (core/bandwidth.h). */
#ifndef RF_BENCH_PROFILE_H
#define RF_BENCH_PROFILE_H

#include <stdio.h>

#include "../core/exec.h"
#include "../core/flops.h"
#include "../core/traffic.h"

typedef struct rf_machine_bounds {
    double flops_per_s;   /* f32 matrix products; 0: unknown (a GPU run) */
    double bytes_per_s;   /* memcpy, bytes read plus written; 0: unknown */
} rf_machine_bounds;

/* The seconds an op kind cannot beat: its FLOPs at the peak or its bytes at
 * the copy bandwidth, whichever takes longer; 0 with unknown bounds. */
double rf_roofline_seconds(double flops, double bytes, const rf_machine_bounds *m);

/* The table, per step over `steps` profiled steps, largest op first. */
void rf_bench_print_profile(FILE *out, const rf_op_profile *p, const rf_step_flops *f, const rf_step_bytes *b,
                            const rf_machine_bounds *m, int steps);

#endif
