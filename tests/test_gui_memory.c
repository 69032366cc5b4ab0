/* The Memory view at a million tokens, under Xvfb with the real
 * application: once the view is shown, every encoder, blrp included, is
 * planned up to 1,048,576 tokens, and the note under the plot no longer
 * names lengths left unplanned.
 */
#include <math.h>
#include <string.h>

#include "../ui/figures/memory_figure.h"
#include "gui_steps.h"
#include "workbench_app.h"

/* Long segments, so blrp's graph at 1M tokens (2,048 segments) plans in
 * about a second, even under sanitizers. */
static const char config[] =
    "[data]\ntask = listops\nmax_len = 512\nmin_len = 8\ntrain_size = 64\nval_size = 16\ntest_size = 16\n"
    "batch = 8\n"
    "[model]\nencoder = blrp\nlayers = 1\ndim = 16\nheads = 2\nff = 32\nsegment = 512\nlatent = 4\n";

static const rf_memory_figure *figure_of(RfWindow *win)
{
    return rf_plot_view_get_figure(plot_of(win, "memory"))->data;
}

static int longest_planned(const rf_memory_curve *c)
{
    int last = -1;
    for (int i = 0; i < RF_MEMORY_LENGTHS; i++)
        if (isfinite(c->bytes[i]))
            last = i;
    return last;
}

static gboolean all_planned(gpointer data)
{
    const rf_memory_figure *f = figure_of(data);
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        if (longest_planned(&f->curves[e]) != RF_MEMORY_LENGTHS - 1)
            return FALSE;
    return TRUE;
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-memory-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, config, &app);
    if (win == NULL)
        return tap_done();
    gtk_window_set_default_size(GTK_WINDOW(win), 1400, 900);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "memory");
    gboolean planned = spin_until(all_planned, win, 240.0);
    const rf_memory_figure *f = figure_of(win);
    int blrp = 4;
    tap_ok(strcmp(f->curves[blrp].encoder, "blrp") == 0, "curve %d is blrp's", blrp);
    tap_ok(planned, "every encoder is planned up to N=%d (blrp to N=%d)", f->lengths[RF_MEMORY_LENGTHS - 1],
           longest_planned(&f->curves[blrp]) >= 0 ? f->lengths[longest_planned(&f->curves[blrp])] : 0);
    close_workbench(win, app);
    return tap_done();
}
