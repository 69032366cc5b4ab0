/* The Memory view's figure: the memory planner's bytes for a training step
 * against the sequence length (log-log), one curve per encoder at the
 * current config's widths and batch, the current configuration marked,
 * measured peaks of finished runs overlaid and the machine's RAM as a line.
 *
 * Computing (rf_memory_figure_compute) is separate from drawing, so a view
 * can compute in a worker and swap the result in; nothing is allocated for
 * the model's tensors (plans only).
 */
#ifndef RF_MEMORY_FIGURE_H
#define RF_MEMORY_FIGURE_H

#include "../plot/figure.h"
#include "../plot/run_data.h"

#define RF_MEMORY_ENCODERS 6      /* full, ls, linear, talk, blrp, maelre */
#define RF_MEMORY_LENGTHS 13      /* 256 .. 1,048,576, powers of two */

/* The planner's total per encoder and length (NaN where the encoder cannot
 * take that length with this config, or was not planned there). */
typedef struct rf_memory_curve {
    const char *encoder;
    double bytes[RF_MEMORY_LENGTHS];
    int planned;       /* lengths [0, planned) were planned; the rest were skipped (budget, cancelled) */
} rf_memory_curve;

/* A finished run's measured peak at its data length. */
typedef struct rf_memory_point {
    char name[128];
    char encoder[32];
    int seq_len;
    double peak_bytes, planned_bytes;
} rf_memory_point;

typedef struct rf_memory_figure {
    int lengths[RF_MEMORY_LENGTHS];
    rf_memory_curve curves[RF_MEMORY_ENCODERS];
    /* The configuration being edited: its encoder at data.max_len. */
    char current_encoder[32];
    int current_seq;
    double current_bytes;         /* NaN when the planner refuses the config */
    char current_problem[256];    /* the planner's reason then */
    double ram_bytes;             /* physical memory; 0 unknown */
    GArray *measured;             /* rf_memory_point */
    double compute_seconds;       /* how long the last compute took */
    bool more_coming;             /* a quick pass's curves: a full pass plans the longer lengths next */
} rf_memory_figure;

void rf_memory_figure_init(rf_memory_figure *f);
void rf_memory_figure_clear(rf_memory_figure *f);

/* Plan every encoder at every length for `cfg` (its widths, batch and other
 * keys; data.max_len set to each length), and the config itself at its
 * data.max_len. feat_dim, vocab, classes: the input as the data set gives it
 * (rf_memory_figure_input_shape for data sets not opened yet).
 *
 * Planning time grows with the length for some encoders (blrp's graph has
 * nodes per segment: about 0.3 s at 65,536 tokens, 10 s at 1,048,576), so
 * an encoder's longer lengths are skipped once the next plan is predicted
 * (2.5x the last) to exceed plan_budget_seconds; 0 plans everything. */
void rf_memory_figure_compute(rf_memory_figure *f, const rf_config *cfg, int feat_dim, int vocab, int classes,
                              double plan_budget_seconds);
/* The same, stopping before the next plan once *stop (read atomically, from
 * another thread) is nonzero: the lengths not reached stay unplanned. */
void rf_memory_figure_compute_until(rf_memory_figure *f, const rf_config *cfg, int feat_dim, int vocab, int classes,
                                    double plan_budget_seconds, const gint *stop);

/* The measured peaks of these runs (runs without one are left out). */
void rf_memory_figure_set_runs(rf_memory_figure *f, rf_run_data *const *runs, guint n);

/* The input shape of tasks known from the config alone (listops, random);
 * false for tasks whose data must be opened to know it. */
bool rf_memory_figure_input_shape(const rf_config *cfg, int *feat_dim, int *vocab, int *classes);

/* The key under the plot: what its marks mean, naming only the marks it
 * draws (the large dot only when the current config has a plan, squares
 * only when a measured peak is on the plot), and which lines coincide
 * (encoders planning the same memory: "lines coincide: full = talk"). The
 * key and the other notes
 * sit below the data area, never over a line. */
void rf_memory_figure_key(const rf_memory_figure *f, char *buf, size_t size);

/* The note naming each encoder's lengths left unplanned ("blrp above
 * N=65536"), and why: still being planned when more_coming, else slow to
 * plan there. Empty when every length has a plan. */
void rf_memory_figure_unplanned(const rf_memory_figure *f, char *buf, size_t size);

rf_figure rf_memory_figure_figure(rf_memory_figure *f);

#endif
