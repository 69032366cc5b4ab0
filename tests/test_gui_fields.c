/* The sidebar's fields, under Xvfb with the real application (a tiny
 * full-attention ListOps config: width 16, 2 heads):
 *   1. a value the engine refuses is refused at its field, whatever makes
 *      it wrong: alone, or only together with another key (heads that do
 *      not divide the width, either way round; Steps below Warmup; Max
 *      length at Min length): the engine's message in red under the field,
 *      the field back at its value, the config and the status line
 *      unchanged. Both keys of a pair can still be changed through valid
 *      configs (width 20, then 5 heads);
 *   2. a key shows only where the chosen data set, encoder or schedule reads
 *      it: Max length for the token tasks, not for Fashion-MNIST, image or
 *      audio folders or UCR; attention dropout for full attention only;
 *      gamma and decay steps for the step schedule only;
 *   3. a drop-down's tooltip is off while its list is open (it would cover
 *      the first entry) and back once it closes. Xvfb maps no popover, so
 *      the list is shown and hidden by its visibility, which is what the
 *      workbench watches.
 */
#include <string.h>

#include "../ui/config_panel.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA
                                   "[model]\n"
                                   "encoder = full\n"
                                   "layers = 1\n"
                                   "dim = 16\n"
                                   "heads = 2\n"
                                   "ff = 32\n"
                                   "[train]\n"
                                   "steps = 12\n"
                                   "warmup = 4\n";

static char *value_of(RfSession *s, const char *key)
{
    char text[RF_STR_LEN];
    return g_strdup(rf_config_get(rf_session_get_config(s), key, text, sizeof text));
}

/* Type `value` into the spin button of `key`, as a person would. */
static void enter(RfConfigPanel *panel, const char *key, double value)
{
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(rf_config_panel_get_editor(panel, key)), value);
    spin_for(0.1);
}

static void check_refused(RfWindow *win, const char *key, double value, const char *because)
{
    RfSession *s = rf_window_get_session(win);
    RfConfigPanel *panel = rf_window_get_config_panel(win);
    g_autofree char *before = value_of(s, key);
    enter(panel, key, value);
    g_autofree char *after = value_of(s, key);
    GtkSpinButton *spin = GTK_SPIN_BUTTON(rf_config_panel_get_editor(panel, key));
    const char *message = rf_config_panel_get_message(panel, key);
    const char *status = rf_window_get_status_text(win);
    tap_ok(strcmp(before, after) == 0 && strstr(message, because) != NULL &&
               gtk_spin_button_get_value(spin) == g_ascii_strtod(before, NULL) && strstr(status, key) == NULL,
           "%s = %g is refused at its field: '%s' under it, the field back at %s, the status line without it (%s)",
           key, value, message, before, status);
}

static void check_accepted(RfWindow *win, const char *key, double value)
{
    RfSession *s = rf_window_get_session(win);
    RfConfigPanel *panel = rf_window_get_config_panel(win);
    enter(panel, key, value);
    g_autofree char *after = value_of(s, key);
    tap_ok(g_ascii_strtod(after, NULL) == value && rf_config_panel_get_message(panel, key)[0] == '\0',
           "%s = %g is taken (%s), no message under it", key, value, after);
}

/* Whether the field of `key` can be seen (its row and every box above it). */
static gboolean shown(RfWindow *win, const char *key)
{
    return gtk_widget_is_visible(rf_config_panel_get_editor(rf_window_get_config_panel(win), key));
}

static void set(RfSession *s, const char *key, const char *value)
{
    g_autoptr(GError) error = NULL;
    tap_ok(rf_session_set_key(s, key, value, NULL, &error), "%s = %s%s%s", key, value, error ? ": " : "",
           error ? error->message : "");
    spin_for(0.1);
}

static void check_scopes(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    static const struct {
        const char *task;
        gboolean reads_max_len;
    } tasks[] = {{"listops", TRUE},        {"random", TRUE},        {"lra_tsv", TRUE},    {"text_folder", TRUE},
                 {"npy", TRUE},            {"fashion_mnist", FALSE}, {"image_folder", FALSE},
                 {"audio_folder", FALSE}, {"ucr", FALSE}};
    for (size_t i = 0; i < G_N_ELEMENTS(tasks); i++) {
        set(s, "data.task", tasks[i].task);
        tap_ok(shown(win, "data.max_len") == tasks[i].reads_max_len, "Max length is %s for %s",
               tasks[i].reads_max_len ? "shown" : "hidden", tasks[i].task);
    }
    set(s, "data.task", "listops");

    static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
    for (size_t i = 0; i < G_N_ELEMENTS(encoders); i++) {
        set(s, "model.encoder", encoders[i]);
        gboolean full = strcmp(encoders[i], "full") == 0;
        tap_ok(shown(win, "model.attn_dropout") == full, "Attn dropout is %s for %s", full ? "shown" : "hidden",
               encoders[i]);
    }
    set(s, "model.encoder", "full");

    static const char *const schedules[] = {"linear", "cosine", "constant", "step"};
    for (size_t i = 0; i < G_N_ELEMENTS(schedules); i++) {
        set(s, "train.schedule", schedules[i]);
        gboolean step = strcmp(schedules[i], "step") == 0;
        tap_ok(shown(win, "train.gamma") == step && shown(win, "train.decay_every") == step,
               "Gamma and Decay every are %s for the %s schedule", step ? "shown" : "hidden", schedules[i]);
    }
}

static GtkWidget *popover_in(GtkWidget *w)
{
    for (GtkWidget *c = gtk_widget_get_first_child(w); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = GTK_IS_POPOVER(c) ? c : popover_in(c);
        if (found != NULL)
            return found;
    }
    return NULL;
}

static void check_drop_down_tooltip(RfWindow *win)
{
    GtkWidget *encoder = rf_config_panel_get_editor(rf_window_get_config_panel(win), "model.encoder");
    GtkWidget *list = encoder != NULL ? popover_in(encoder) : NULL;
    if (!tap_ok(GTK_IS_DROP_DOWN(encoder) && list != NULL, "the Encoder field is a drop-down with a list"))
        return;
    gboolean closed = gtk_widget_get_has_tooltip(encoder);
    gtk_widget_set_visible(list, TRUE);
    gboolean open = gtk_widget_get_has_tooltip(encoder);
    gtk_widget_set_visible(list, FALSE);
    gboolean reclosed = gtk_widget_get_has_tooltip(encoder);
    tap_ok(closed && !open && reclosed,
           "the Encoder drop-down's tooltip shows while closed (%d), not over its open list (%d), and again once it "
           "closes (%d)",
           closed, open, reclosed);
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-fields-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();

    /* 1 */
    check_refused(win, "model.heads", 5, "model.heads = 5 does not divide model.dim = 16");
    check_refused(win, "model.dim", 15, "model.heads = 2 does not divide model.dim = 15");
    check_refused(win, "train.steps", 3, "train.warmup = 4 exceeds train.steps = 3");
    check_refused(win, "data.max_len", 9, "data.min_len = 8 must be below data.max_len - 1 = 8");
    check_accepted(win, "model.dim", 20);
    check_accepted(win, "model.heads", 5);

    /* 2 */
    check_scopes(win);

    /* 3 */
    check_drop_down_tooltip(win);

    close_workbench(win, app);
    return tap_done();
}
