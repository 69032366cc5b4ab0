/* A node's estimated kernel time, for running small ops serially
 * (core/op_cost.h). */
#include "op_cost.h"

#include <stdlib.h>

#include "flops.h"

/* One core's rough rates on the ops BLRP runs small (AMD EPYC Zen 4): an
 * element-wise or normalisation op moves about a float a nanosecond (more
 * for GELU's and LayerNorm's backward), a [100, 64] x [64, 64] product
 * does about 50 multiply-adds a nanosecond (7 us). */
#define NS_PER_FLOAT 1.0
#define NS_PER_MAC 0.02

double rf_op_cost_ns(const rf_graph *g, const rf_node *n, bool backward)
{
    double floats = (double)rf_shape_numel(n->shape);
    for (int k = 0; k < n->n_in; k++)
        floats += (double)rf_shape_numel(rf_node_shape(g, n->in[k]));
    double ns = floats * NS_PER_FLOAT + rf_node_macs(g, n) * NS_PER_MAC;
    return backward ? 2 * ns : ns;
}

static double serial_limit_ns = -1;   /* < 0: not read yet */

void rf_op_set_serial_limit(double ns)
{
    serial_limit_ns = ns;
}

bool rf_op_runs_serial(const rf_graph *g, const rf_node *n, bool backward)
{
    if (serial_limit_ns < 0) {
        const char *e = getenv("RF_SERIAL_NS");
        serial_limit_ns = e != NULL && *e != '\0' ? strtod(e, NULL) : RF_SERIAL_NS;
    }
    return rf_op_cost_ns(g, n, backward) < serial_limit_ns;
}
