/* `bench --profile`'s table (app/bench_profile.h). */
#include "bench_profile.h"

#include <stdlib.h>

typedef struct op_row {
    const char *name;
    double fwd, bwd, flops, bytes;
    int64_t calls;
} op_row;

static int compare_rows(const void *a, const void *b)
{
    const op_row *x = a, *y = b;
    double tx = x->fwd + x->bwd, ty = y->fwd + y->bwd;
    return (tx < ty) - (tx > ty);
}

double rf_roofline_seconds(double flops, double bytes, const rf_machine_bounds *m)
{
    if (m->flops_per_s <= 0 || m->bytes_per_s <= 0)
        return 0;
    double compute = flops / m->flops_per_s, memory = bytes / m->bytes_per_s;
    return compute > memory ? compute : memory;
}

/* "41.2%" of the bound, or "-" when there is none to give. */
static void format_of_bound(char *text, size_t size, double bound, double seconds)
{
    if (bound > 0 && seconds > 0)
        snprintf(text, size, "%6.1f%%", 100 * bound / seconds);
    else
        snprintf(text, size, "%7s", "-");
}

void rf_bench_print_profile(FILE *out, const rf_op_profile *p, const rf_step_flops *f, const rf_step_bytes *b,
                            const rf_machine_bounds *m, int steps)
{
    op_row rows[RF_OP_COUNT];
    int n = 0;
    double total = p->zero_seconds, bound_total = 0;
    for (int op = 0; op < RF_OP_COUNT; op++) {
        if (p->calls[op][0] + p->calls[op][1] == 0)
            continue;
        rows[n++] = (op_row){rf_op_name(op), p->seconds[op][0] / steps, p->seconds[op][1] / steps,
                             rf_step_flops_of(f, op), b->forward[op] + b->backward[op],
                             (p->calls[op][0] + p->calls[op][1]) / steps};
        total += p->seconds[op][0] + p->seconds[op][1];
    }
    qsort(rows, (size_t)n, sizeof *rows, compare_rows);
    total /= steps;
    double flops = f->total > 0 ? f->total : 1;
    char of_bound[16];
    fprintf(out, "%-18s %10s %10s %7s %6s %10s %6s %9s %9s %7s\n", "op", "forward s", "backward s", "calls", "share",
            "GFLOP", "flops", "GB", "bound s", "% bound");
    for (int i = 0; i < n; i++) {
        const op_row *r = &rows[i];
        double bound = rf_roofline_seconds(r->flops, r->bytes, m);
        bound_total += bound;
        format_of_bound(of_bound, sizeof of_bound, bound, r->fwd + r->bwd);
        fprintf(out, "%-18s %10.4f %10.4f %7lld %5.1f%% %10.3f %5.1f%% %9.3f %9.4f %s\n", r->name, r->fwd, r->bwd,
                (long long)r->calls, 100 * (r->fwd + r->bwd) / total, r->flops / 1e9, 100 * r->flops / flops,
                r->bytes / 1e9, bound, of_bound);
    }
    fprintf(out, "%-18s %10s %10.4f %7s %5.1f%%\n", "(zero grads)", "", p->zero_seconds / steps, "",
            100 * p->zero_seconds / steps / total);
    fprintf(out, "%-18s %28s %10.3f %5.1f%%\n", "(optimizer)", "", f->optimizer / 1e9, 100 * f->optimizer / flops);
    format_of_bound(of_bound, sizeof of_bound, bound_total, total);
    fprintf(out, "%-18s %21.4f s per step in kernels, %.3f GFLOP and %.3f GB per step, %.4f s bound (%s)\n", "total",
            total, f->total / 1e9, b->total / 1e9, bound_total, of_bound);
    if (m->flops_per_s > 0 && m->bytes_per_s > 0)
        fprintf(out, "bounds: %.1f GFLOP/s (f32 matrix products), %.1f GB/s (memcpy, bytes read + written); "
                     "an op's bound is its FLOPs or its bytes at these rates, whichever takes longer\n",
                m->flops_per_s / 1e9, m->bytes_per_s / 1e9);
}
