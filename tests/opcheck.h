/* The op test harness: every op is checked forward against a naive
 * reference written in double, and backward against central finite
 * differences of that double reference.
 *
 * A case gives the input shapes and kinds, a `build` that wires the op under
 * test into a graph, and a `reference` that computes the same output in
 * double from the same input values. The harness:
 *   1. fills inputs (random normal, or ids / labels / masks by kind),
 *   2. takes central differences (in double, step 1e-6) of the reference
 *      for every differentiable input element: the numeric gradient of
 *      sum(R * reference(x)) for a fixed random R, and each output's
 *      sensitivity to the inputs (how many it depends on, and
 *      Σ|∂f/∂x · x|),
 *   3. runs the graph's forward and compares every output element with the
 *      reference within a bound derived from that sensitivity (rounding-error
 *      analysis, tests/tolerance.h: no constant tuned on one CPU),
 *   4. seeds the output gradient with R, runs backward, and compares each
 *      differentiable input's gradient with the numeric one, within the
 *      bound of the f32 sums behind it plus the difference quotient's error.
 * Each comparison is one TAP line; the worst element is printed on failure.
 */
#ifndef RF_OPCHECK_H
#define RF_OPCHECK_H

#include "../core/graph.h"

#define OPCHECK_MAX_IN 4

typedef enum opcheck_kind {
    OPCHECK_NORMAL,        /* N(0, 1), differentiable */
    OPCHECK_POSITIVE,      /* U(0.5, 2), differentiable */
    OPCHECK_IDS,           /* integers in [0, range), no gradient */
    OPCHECK_MASK,          /* 0/1 values, about 1/4 zeros, no gradient */
    OPCHECK_PROB,          /* U(0, 1), no gradient (BCE targets) */
    OPCHECK_PARAM,         /* N(0, 1) but created with rf_param: checks the
                              parameter-store gradient path */
} opcheck_kind;

typedef struct opcheck_case {
    const char *name;
    int n_in;
    rf_shape shape[OPCHECK_MAX_IN];
    opcheck_kind kind[OPCHECK_MAX_IN];
    int range[OPCHECK_MAX_IN];          /* for OPCHECK_IDS */
    /* wire the op; `in` holds the input node ids; returns the output node */
    rf_id (*build)(rf_graph *g, const rf_id *in, const void *ctx);
    /* in[k] points at numel(shape[k]) doubles; write the output (numel of the
     * output shape) into out */
    void (*reference)(const double *const *in, double *out, const void *ctx);
    const void *ctx;                    /* passed to build and reference */
    bool training;                      /* run the executor in training mode */
    uint64_t seed;                      /* input seed; the exec seed is 1234, step 7 */
} opcheck_case;

/* Run one case: prints TAP lines, returns true if all passed. */
bool opcheck_run(const opcheck_case *c);

/* The exec seed and step the harness uses (for dropout's reference). */
#define OPCHECK_EXEC_SEED 1234u
#define OPCHECK_EXEC_STEP 7u

#endif
