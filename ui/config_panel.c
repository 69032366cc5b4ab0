/* The configuration sidebar, generated from the core's key table. */
#include "config_panel.h"

#include <math.h>
#include <string.h>

#include "choose_data_task.h"
#include "data_tasks.h"
#include "device_choices.h"
#include "plot/plot.h"
#include "drop_down_tooltip.h"

/* Keys that only some encoders, tasks or schedules read: shown only then. */
static const struct {
    const char *key;
    const char *selector;   /* the choice key deciding it */
    const char *values;     /* "a|b": the selector values that read it */
} key_scopes[] = {
    {"data.path", "data.task", "fashion_mnist|image_folder|audio_folder|ucr|lra_tsv|text_folder|npy"},
    {"data.max_len", "data.task", "listops|random|lra_tsv|text_folder|npy"},
    {"data.min_len", "data.task", "listops"},
    {"data.vocab", "data.task", "random"},
    {"data.classes", "data.task", "random"},
    {"data.max_depth", "data.task", "listops"},
    {"data.max_args", "data.task", "listops"},
    {"data.concat", "data.task", "listops|lra_tsv"},
    {"data.patch", "data.task", "fashion_mnist|image_folder"},
    {"data.image_size", "data.task", "image_folder"},
    {"data.channels", "data.task", "image_folder"},
    {"data.resize", "data.task", "image_folder"},
    {"data.background", "data.task", "image_folder"},
    {"data.augment_shift", "data.task", "fashion_mnist|image_folder"},
    {"data.augment_flip", "data.task", "fashion_mnist|image_folder"},
    {"data.strict", "data.task", "image_folder|audio_folder|text_folder"},
    {"data.sample_rate", "data.task", "audio_folder"},
    {"data.mel_bins", "data.task", "audio_folder"},
    {"data.max_frames", "data.task", "audio_folder"},
    {"data.cache", "data.task", "audio_folder"},
    {"model.attn_dropout", "model.encoder", "full"},
    {"model.window", "model.encoder", "ls"},
    {"model.rank", "model.encoder", "ls"},
    {"model.dual_ln", "model.encoder", "ls"},
    {"model.proj_from", "model.encoder", "ls"},
    {"model.cls", "model.encoder", "ls"},
    {"model.segment", "model.encoder", "blrp"},
    {"model.latent", "model.encoder", "blrp"},
    {"model.direction", "model.encoder", "blrp"},
    {"model.latent_init", "model.encoder", "blrp"},
    {"model.phi", "model.encoder", "blrp"},
    {"model.share_directions", "model.encoder", "blrp"},
    {"model.blrp_scale", "model.encoder", "blrp"},
    {"model.latent_norm", "model.encoder", "blrp"},
    {"model.latent_pos", "model.encoder", "blrp"},
    {"model.blocks", "model.encoder", "maelre"},
    {"model.reduce", "model.encoder", "maelre"},
    {"model.kernel_map", "model.encoder", "maelre|linear"},
    {"model.linear_scale", "model.encoder", "maelre|linear"},
    {"model.lmax", "model.encoder", "talk"},
    {"model.rmax", "model.encoder", "talk"},
    {"model.offset_heads", "model.encoder", "talk"},
    {"model.glu", "model.encoder", "talk"},
    {"train.gamma", "train.schedule", "step"},
    {"train.decay_every", "train.schedule", "step"},
};

static const struct {
    const char *key, *label;
} key_labels[] = {
    {"data.max_len", "Max length"},   {"data.min_len", "Min length"},
    {"data.train_size", "Training samples"}, {"data.val_size", "Validation samples"},
    {"data.test_size", "Test samples"}, {"data.max_args", "Max arguments"},
    {"data.mel_bins", "Mel bins"},    {"model.dim", "Width"},
    {"model.ff", "MLP width"},        {"model.pos", "Position embedding"},
    {"model.rank", "Rank"},           {"model.dual_ln", "DualLN"},
    {"model.proj_from", "Project from"}, {"model.cls", "CLS token"},
    {"model.phi", "Projections (phi)"}, {"model.share_directions", "Share directions"},
    {"model.blrp_scale", "Attention scale"}, {"model.latent_norm", "Latent norm"},
    {"model.latent_pos", "Latent positions"},
    {"model.kernel_map", "Kernel map"}, {"model.lmax", "Left bound"},
    {"model.rmax", "Right bound"},    {"model.glu", "GLU"},
    {"train.lr", "Learning rate"},    {"train.eps", "Epsilon"},
    {"train.beta1", "Beta 1"},        {"train.beta2", "Beta 2"},
    {"train.clip", "Gradient clip"},  {"train.eval_every", "Validate every"},
    {"train.eval_batches", "Validation batches"}, {"train.checkpoint_every", "Checkpoint every"},
    {"train.keep_weights", "Weights kept"},
    {"train.log_every", "Log every"},   {"train.tf32", "TF32 attention"},
};

static const struct {
    const char *key, *value, *label;
} choice_labels[] = {
    {"model.encoder", "full", "Full attention"},
    {"model.encoder", "ls", "Transformer-LS"},
    {"model.encoder", "linear", "Linear attention"},
    {"model.encoder", "talk", "TaLK"},
    {"model.encoder", "blrp", "BLRP"},
    {"model.encoder", "maelre", "MAELRE"},
};

/* The optimiser's keys; the rest of [train] is about the run. */
static const char *const optimiser_keys[] = {"steps", "lr", "warmup", "schedule", "gamma", "decay_every",
                                              "weight_decay", "beta1", "beta2", "eps", "clip"};

typedef enum { SECTION_DATA, SECTION_MODEL, SECTION_OPTIMISER, SECTION_RUN, SECTION_COUNT } Section;
static const char *const section_titles[SECTION_COUNT] = {"Data", "Model", "Optimiser", "Run"};

typedef struct {
    RfConfigPanel *panel;
    const rf_config_key *key;
    char dotted[96];
    GtkWidget *row;
    GtkWidget *editor;
    GtkLabel *message;
    gulong handler;
    char **choices;         /* choice keys: the values, in the drop-down's order */
    const char *selector;   /* scoped keys: the choice key deciding visibility */
    const char *values;
} KeyRow;

struct _RfConfigPanel {
    GtkBox parent_instance;
    RfSession *session;
    GPtrArray *rows;        /* of KeyRow * */
    GtkLabel *summary;
};

G_DEFINE_TYPE(RfConfigPanel, rf_config_panel, GTK_TYPE_BOX)

static guint restart_needed_signal;

const char *rf_choice_label(const char *key, const char *value)
{
    const rf_data_task *task = strcmp(key, "data.task") == 0 ? rf_data_task_find(value) : NULL;
    if (task != NULL)
        return task->title;
    for (size_t i = 0; i < G_N_ELEMENTS(choice_labels); i++)
        if (strcmp(choice_labels[i].key, key) == 0 && strcmp(choice_labels[i].value, value) == 0)
            return choice_labels[i].label;
    return value;
}

static void key_row_free(gpointer data)
{
    KeyRow *r = data;
    g_strfreev(r->choices);
    g_free(r);
}

static KeyRow *find_row(RfConfigPanel *p, const char *dotted)
{
    for (guint i = 0; i < p->rows->len; i++) {
        KeyRow *r = g_ptr_array_index(p->rows, i);
        if (strcmp(r->dotted, dotted) == 0)
            return r;
    }
    return NULL;
}

static gboolean value_in_list(const char *values, const char *value)
{
    g_auto(GStrv) parts = g_strsplit(values, "|", -1);
    return g_strv_contains((const char *const *)parts, value);
}

/* "max_depth" -> "Max depth", unless the table has a better name. */
static char *key_label(const rf_config_key *k, const char *dotted)
{
    for (size_t i = 0; i < G_N_ELEMENTS(key_labels); i++)
        if (strcmp(key_labels[i].key, dotted) == 0)
            return g_strdup(key_labels[i].label);
    char *label = g_strdup(k->key);
    g_strdelimit(label, "_", ' ');
    label[0] = g_ascii_toupper(label[0]);
    return label;
}

static char *key_tooltip(const rf_config_key *k, const char *dotted)
{
    g_autofree char *help = g_markup_escape_text(k->help, -1);
    if (k->type == RF_KEY_INT || k->type == RF_KEY_FLOAT)
        return g_strdup_printf("%s\n<small>%s · default %s · %g to %g</small>", help, dotted, k->def, k->min,
                               k->max);
    return g_strdup_printf("%s\n<small>%s · default %s</small>", help, dotted,
                           k->def[0] != '\0' ? k->def : "empty");
}

/* --- showing a key's value --- */

static double float_step(double v, double fallback)
{
    return v > 0.0 ? pow(10.0, floor(log10(v)) - 1.0) : fallback;
}

static void set_spin_steps(KeyRow *r, double v)
{
    if (r->key->type != RF_KEY_FLOAT)
        return;
    double step = float_step(fabs(v), 0.01);
    gtk_spin_button_set_increments(GTK_SPIN_BUTTON(r->editor), step, 10.0 * step);
}

/* train.device: select the device; one the list lacks (a config's cuda:3
 * here) joins it, labelled as not on this machine. */
static void show_device(KeyRow *r, const char *value)
{
    guint n = g_strv_length(r->choices);
    for (guint i = 0; i < n; i++)
        if (strcmp(r->choices[i], value) == 0 || (strcmp(value, "cuda") == 0 && strcmp(r->choices[i], "cuda:0") == 0)) {
            gtk_drop_down_set_selected(GTK_DROP_DOWN(r->editor), i);
            return;
        }
    g_autoptr(RfDeviceChoices) devices = rf_device_choices_new();
    g_autofree char *label = rf_device_choices_label(devices, value);
    gtk_string_list_append(GTK_STRING_LIST(gtk_drop_down_get_model(GTK_DROP_DOWN(r->editor))), label);
    r->choices = g_renew(char *, r->choices, n + 2);
    r->choices[n] = g_strdup(value);
    r->choices[n + 1] = NULL;
    gtk_drop_down_set_selected(GTK_DROP_DOWN(r->editor), n);
}

static void show_value(KeyRow *r)
{
    char text[RF_STR_LEN];
    if (rf_config_get(rf_session_get_config(r->panel->session), r->dotted, text, sizeof text) == NULL)
        return;
    g_signal_handler_block(r->editor, r->handler);
    switch (r->key->type) {
    case RF_KEY_INT:
    case RF_KEY_FLOAT:
    case RF_KEY_U64: {
        double v = g_ascii_strtod(text, NULL);
        set_spin_steps(r, v);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(r->editor), v);
        break;
    }
    case RF_KEY_CHOICE:
        for (guint i = 0; r->choices[i] != NULL; i++)
            if (strcmp(r->choices[i], text) == 0)
                gtk_drop_down_set_selected(GTK_DROP_DOWN(r->editor), i);
        break;
    case RF_KEY_STRING:
        if (GTK_IS_DROP_DOWN(r->editor))
            show_device(r, text);
        else if (strcmp(gtk_editable_get_text(GTK_EDITABLE(r->editor)), text) != 0)
            gtk_editable_set_text(GTK_EDITABLE(r->editor), text);
        break;
    }
    g_signal_handler_unblock(r->editor, r->handler);
}

static void set_message(KeyRow *r, const char *message)
{
    gtk_label_set_text(r->message, message != NULL ? message : "");
    gtk_widget_set_visible(GTK_WIDGET(r->message), message != NULL && message[0] != '\0');
}

static void update_visibility(RfConfigPanel *p)
{
    const rf_config *cfg = rf_session_get_config(p->session);
    for (guint i = 0; i < p->rows->len; i++) {
        KeyRow *r = g_ptr_array_index(p->rows, i);
        if (r->selector == NULL)
            continue;
        char value[64];
        gboolean shown = rf_config_get(cfg, r->selector, value, sizeof value) != NULL &&
                         value_in_list(r->values, value);
        gtk_widget_set_visible(r->row, shown);
    }
}

/* "258k params · 1.2 GFLOPs/sample · 3.1 GiB planned" */
static void update_summary(RfConfigPanel *p)
{
    rf_memory_plan plan;
    double flops = 0.0;
    g_autoptr(GError) error = NULL;
    if (!rf_session_plan(p->session, 0, &plan, &flops, &error)) {
        gtk_label_set_text(p->summary, error->message);
        gtk_widget_remove_css_class(GTK_WIDGET(p->summary), "dim-label");
        gtk_widget_add_css_class(GTK_WIDGET(p->summary), "error");
        return;
    }
    char params[32], bytes[32];
    rf_format_number((double)plan.param_count, params, sizeof params);
    rf_format_bytes((double)plan.total, bytes, sizeof bytes);
    static const char *const prefixes[] = {"", "k", "M", "G", "T", "P"};
    int prefix = 0;
    while (flops >= 1000.0 && prefix < (int)G_N_ELEMENTS(prefixes) - 1) {
        flops /= 1000.0;
        prefix++;
    }
    g_autofree char *text = g_strdup_printf("%s params · %.3g %sFLOPs/sample · %s planned", params, flops,
                                            prefixes[prefix], bytes);
    gtk_label_set_text(p->summary, text);
    gtk_widget_remove_css_class(GTK_WIDGET(p->summary), "error");
    gtk_widget_add_css_class(GTK_WIDGET(p->summary), "dim-label");
}

static gboolean run_active(RfConfigPanel *p)
{
    RfRunState state = rf_session_get_state(p->session);
    return state == RF_RUN_RUNNING || state == RF_RUN_PAUSED;
}

/* --- editing --- */

/* After an edit: its message, the restart offer, the rows that follow. */
static void edited(KeyRow *r, gboolean applied, gboolean needs_restart, const GError *error)
{
    RfConfigPanel *p = r->panel;
    set_message(r, applied || error == NULL ? NULL : error->message);
    if (applied && needs_restart && run_active(p))
        g_signal_emit(p, restart_needed_signal, 0);
    update_visibility(p);
    show_value(r);
    update_summary(p);
}

static void apply_text(KeyRow *r, const char *text)
{
    gboolean needs_restart = FALSE;
    g_autoptr(GError) error = NULL;
    gboolean applied = rf_session_set_key(r->panel->session, r->dotted, text, &needs_restart, &error);
    edited(r, applied, needs_restart, error);
}

/* data.task: a folder first where the task needs one; a cancel shows the
 * task as it was. */
static void task_chosen(gboolean switched, gboolean needs_restart, const GError *error, gpointer user_data)
{
    KeyRow *r = user_data;
    edited(r, switched, needs_restart, error);
    g_object_unref(r->panel);
}

static void choose_task(KeyRow *r, const char *task)
{
    GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(r->panel));
    g_object_ref(r->panel);
    rf_choose_data_task(GTK_IS_WINDOW(root) ? GTK_WINDOW(root) : NULL, r->panel->session, task, task_chosen, r);
}

static void on_spin_changed(GtkSpinButton *spin, gpointer user_data)
{
    KeyRow *r = user_data;
    double v = gtk_spin_button_get_value(spin);
    /* Already the config's value: nothing to apply. A refused value put
     * back during the adjustment's own emission comes here once more (GTK
     * restarts that emission), and must not clear the refusal's message. */
    char current[RF_STR_LEN];
    if (rf_config_get(rf_session_get_config(r->panel->session), r->dotted, current, sizeof current) != NULL &&
        g_ascii_strtod(current, NULL) == v)
        return;
    char text[64];
    if (r->key->type == RF_KEY_FLOAT)
        g_ascii_formatd(text, sizeof text, "%.9g", v);
    else
        g_snprintf(text, sizeof text, "%.0f", v);
    apply_text(r, text);
}

/* Typed text: a number in range goes through as usual. Anything else goes to
 * the core, whose message explains it, instead of the spin button clamping
 * it silently; the widget keeps the current value. */
static int on_spin_input(GtkSpinButton *spin, double *new_value, gpointer user_data)
{
    KeyRow *r = user_data;
    const char *text = gtk_editable_get_text(GTK_EDITABLE(spin));
    g_autofree char *trimmed = g_strstrip(g_strdup(text));
    char *end = NULL;
    double v = g_ascii_strtod(trimmed, &end);
    double lo = 0.0, hi = 0.0;
    gtk_spin_button_get_range(spin, &lo, &hi);
    gboolean whole = r->key->type == RF_KEY_FLOAT || v == floor(v);
    if (end != trimmed && *end == '\0' && isfinite(v) && v >= lo && v <= hi && whole) {
        *new_value = v;
        if (v == gtk_spin_button_get_value(spin))   /* the value it has: valid, nothing to apply */
            set_message(r, NULL);
        return TRUE;
    }
    *new_value = gtk_spin_button_get_value(spin);
    apply_text(r, trimmed);
    return TRUE;
}

static gboolean on_spin_output(GtkSpinButton *spin, gpointer user_data)
{
    (void)user_data;
    char text[64];
    g_ascii_formatd(text, sizeof text, "%.6g", gtk_spin_button_get_value(spin));
    if (strcmp(gtk_editable_get_text(GTK_EDITABLE(spin)), text) != 0)
        gtk_editable_set_text(GTK_EDITABLE(spin), text);
    return TRUE;
}

static void on_choice_changed(GtkDropDown *drop_down, GParamSpec *pspec, gpointer user_data)
{
    (void)pspec;
    KeyRow *r = user_data;
    guint i = gtk_drop_down_get_selected(drop_down);
    if (i >= g_strv_length(r->choices))
        return;
    if (strcmp(r->dotted, "data.task") == 0)
        choose_task(r, r->choices[i]);
    else
        apply_text(r, r->choices[i]);
}

static void apply_entry(KeyRow *r)
{
    if (r->panel->session == NULL)
        return;
    char current[RF_STR_LEN];
    const char *text = gtk_editable_get_text(GTK_EDITABLE(r->editor));
    if (rf_config_get(rf_session_get_config(r->panel->session), r->dotted, current, sizeof current) != NULL &&
        strcmp(current, text) == 0)
        return;
    g_autofree char *copy = g_strdup(text);
    apply_text(r, copy);
}

static void on_entry_activate(GtkEntry *entry, gpointer user_data)
{
    (void)entry;
    apply_entry(user_data);
}

static void on_entry_leave(GtkEventControllerFocus *focus, gpointer user_data)
{
    (void)focus;
    apply_entry(user_data);
}

/* --- building --- */

/* train.device as a list of the devices found: the CPU and each GPU with
 * its name and memory; the tooltip says why no GPU is listed. */
static GtkWidget *make_device_editor(KeyRow *r)
{
    g_autoptr(RfDeviceChoices) devices = rf_device_choices_new();
    GtkStringList *labels = gtk_string_list_new(NULL);
    r->choices = g_new0(char *, devices->values->len + 1);
    for (guint i = 0; i < devices->values->len; i++) {
        r->choices[i] = g_strdup(devices->values->pdata[i]);
        gtk_string_list_append(labels, devices->labels->pdata[i]);
    }
    GtkWidget *drop_down = gtk_drop_down_new(G_LIST_MODEL(labels), NULL);
    r->handler = g_signal_connect(drop_down, "notify::selected", G_CALLBACK(on_choice_changed), r);
    g_object_set_data_full(G_OBJECT(drop_down), "no-gpu", g_strdup(devices->no_gpu), g_free);
    return drop_down;
}

static GtkWidget *make_editor(KeyRow *r)
{
    const rf_config_key *k = r->key;
    if (strcmp(r->dotted, "train.device") == 0)
        return make_device_editor(r);
    switch (k->type) {
    case RF_KEY_INT:
    case RF_KEY_FLOAT:
    case RF_KEY_U64: {
        double hi = k->type == RF_KEY_U64 ? 9007199254740991.0 : k->max;   /* 2^53 - 1: exact in a double */
        double lo = k->type == RF_KEY_U64 ? 0.0 : k->min;
        double v = g_ascii_strtod(k->def, NULL);
        double step = k->type == RF_KEY_FLOAT ? float_step(fabs(v), 0.01) : 1.0;
        GtkAdjustment *adj = gtk_adjustment_new(v, lo, hi, step, 10.0 * step, 0.0);
        GtkWidget *spin = gtk_spin_button_new(adj, 0.0, k->type == RF_KEY_FLOAT ? 12 : 0);
        gtk_spin_button_set_numeric(GTK_SPIN_BUTTON(spin), FALSE);
        gtk_editable_set_width_chars(GTK_EDITABLE(spin), 8);
        g_signal_connect(spin, "input", G_CALLBACK(on_spin_input), r);
        if (k->type == RF_KEY_FLOAT)
            g_signal_connect(spin, "output", G_CALLBACK(on_spin_output), r);
        r->handler = g_signal_connect(spin, "value-changed", G_CALLBACK(on_spin_changed), r);
        return spin;
    }
    case RF_KEY_CHOICE: {
        r->choices = g_strsplit(k->choices, "|", -1);
        guint n = g_strv_length(r->choices);
        const char **labels = g_new0(const char *, n + 1);
        for (guint i = 0; i < n; i++)
            labels[i] = rf_choice_label(r->dotted, r->choices[i]);
        GtkWidget *drop_down = gtk_drop_down_new_from_strings(labels);
        g_free(labels);
        r->handler = g_signal_connect(drop_down, "notify::selected", G_CALLBACK(on_choice_changed), r);
        return drop_down;
    }
    case RF_KEY_STRING: {
        GtkWidget *entry = gtk_entry_new();
        gtk_editable_set_width_chars(GTK_EDITABLE(entry), 10);
        r->handler = g_signal_connect(entry, "activate", G_CALLBACK(on_entry_activate), r);
        GtkEventController *focus = gtk_event_controller_focus_new();
        g_signal_connect(focus, "leave", G_CALLBACK(on_entry_leave), r);
        gtk_widget_add_controller(entry, focus);
        return entry;
    }
    }
    return gtk_label_new(k->def);
}

static KeyRow *make_row(RfConfigPanel *p, const rf_config_key *k, GtkSizeGroup *labels, GtkSizeGroup *editors)
{
    KeyRow *r = g_new0(KeyRow, 1);
    r->panel = p;
    r->key = k;
    g_snprintf(r->dotted, sizeof r->dotted, "%s.%s", k->section, k->key);
    for (size_t i = 0; i < G_N_ELEMENTS(key_scopes); i++)
        if (strcmp(key_scopes[i].key, r->dotted) == 0) {
            r->selector = key_scopes[i].selector;
            r->values = key_scopes[i].values;
        }

    g_autofree char *label_text = key_label(k, r->dotted);
    g_autofree char *tooltip = key_tooltip(k, r->dotted);
    GtkWidget *label = gtk_label_new(label_text);
    gtk_label_set_xalign(GTK_LABEL(label), 0.0f);
    /* wrapped, never cut: "Training samples", not "Training sampl…" */
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    gtk_label_set_natural_wrap_mode(GTK_LABEL(label), GTK_NATURAL_WRAP_WORD);
    gtk_widget_set_hexpand(label, TRUE);
    gtk_size_group_add_widget(labels, label);
    r->editor = make_editor(r);
    const char *no_gpu = g_object_get_data(G_OBJECT(r->editor), "no-gpu");
    if (no_gpu != NULL) {
        g_autofree char *why = g_markup_escape_text(no_gpu, -1);
        g_autofree char *more = g_strdup_printf("%s\n%s", tooltip, why);
        g_free(tooltip);
        tooltip = g_steal_pointer(&more);
    }
    gtk_widget_set_tooltip_markup(label, tooltip);
    gtk_widget_set_tooltip_markup(r->editor, tooltip);
    if (GTK_IS_DROP_DOWN(r->editor))
        rf_drop_down_tooltip_when_closed(r->editor);
    gtk_widget_set_valign(r->editor, GTK_ALIGN_CENTER);
    gtk_size_group_add_widget(editors, r->editor);
    gtk_accessible_update_relation(GTK_ACCESSIBLE(r->editor), GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL, -1);

    GtkWidget *line = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    gtk_box_append(GTK_BOX(line), label);
    gtk_box_append(GTK_BOX(line), r->editor);

    r->message = GTK_LABEL(gtk_label_new(""));
    gtk_label_set_wrap(r->message, TRUE);
    gtk_label_set_xalign(r->message, 0.0f);
    gtk_widget_add_css_class(GTK_WIDGET(r->message), "error");
    gtk_widget_set_visible(GTK_WIDGET(r->message), FALSE);

    r->row = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    gtk_box_append(GTK_BOX(r->row), line);
    gtk_box_append(GTK_BOX(r->row), GTK_WIDGET(r->message));
    return r;
}

static Section key_section(const rf_config_key *k)
{
    if (strcmp(k->section, "data") == 0)
        return SECTION_DATA;
    if (strcmp(k->section, "model") == 0)
        return SECTION_MODEL;
    for (size_t i = 0; i < G_N_ELEMENTS(optimiser_keys); i++)
        if (strcmp(k->key, optimiser_keys[i]) == 0)
            return SECTION_OPTIMISER;
    return SECTION_RUN;
}

/* --- session signals --- */

static void on_config_changed(RfSession *s, const char *key, gpointer user_data)
{
    (void)s;
    RfConfigPanel *p = user_data;
    for (guint i = 0; i < p->rows->len; i++) {
        KeyRow *r = g_ptr_array_index(p->rows, i);
        if (key == NULL || strcmp(key, r->dotted) == 0) {
            show_value(r);
            if (key == NULL)
                set_message(r, NULL);
        }
    }
    update_visibility(p);
    update_summary(p);
}

static void on_data_changed(RfSession *s, gpointer user_data)
{
    (void)s;
    update_summary(user_data);
}

/* --- type --- */

/* The children go first: an entry losing focus as it goes still applies its
 * text, so the session and the rows outlive them. */
static void rf_config_panel_dispose(GObject *object)
{
    RfConfigPanel *p = RF_CONFIG_PANEL(object);
    G_OBJECT_CLASS(rf_config_panel_parent_class)->dispose(object);
    g_clear_object(&p->session);
}

static void rf_config_panel_finalize(GObject *object)
{
    RfConfigPanel *p = RF_CONFIG_PANEL(object);
    g_ptr_array_unref(p->rows);
    G_OBJECT_CLASS(rf_config_panel_parent_class)->finalize(object);
}

static void rf_config_panel_class_init(RfConfigPanelClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = rf_config_panel_dispose;
    G_OBJECT_CLASS(klass)->finalize = rf_config_panel_finalize;
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "configpanel");
    restart_needed_signal = g_signal_new("restart-needed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                         NULL, NULL, G_TYPE_NONE, 0);
}

static void rf_config_panel_init(RfConfigPanel *p)
{
    gtk_orientable_set_orientation(GTK_ORIENTABLE(p), GTK_ORIENTATION_VERTICAL);
    gtk_box_set_spacing(GTK_BOX(p), 12);
    gtk_widget_set_margin_start(GTK_WIDGET(p), 12);
    gtk_widget_set_margin_end(GTK_WIDGET(p), 12);
    gtk_widget_set_margin_top(GTK_WIDGET(p), 12);
    gtk_widget_set_margin_bottom(GTK_WIDGET(p), 12);
    p->rows = g_ptr_array_new_with_free_func(key_row_free);
}

GtkWidget *rf_config_panel_new(RfSession *session)
{
    RfConfigPanel *p = g_object_new(RF_TYPE_CONFIG_PANEL, NULL);
    p->session = g_object_ref(session);

    g_autoptr(GtkSizeGroup) labels = gtk_size_group_new(GTK_SIZE_GROUP_HORIZONTAL);
    g_autoptr(GtkSizeGroup) editors = gtk_size_group_new(GTK_SIZE_GROUP_HORIZONTAL);
    GtkWidget *sections[SECTION_COUNT];
    for (int i = 0; i < SECTION_COUNT; i++) {
        sections[i] = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        g_autofree char *markup = g_strdup_printf("<b>%s</b>", section_titles[i]);
        GtkWidget *heading = gtk_label_new(NULL);
        gtk_label_set_markup(GTK_LABEL(heading), markup);
        gtk_label_set_xalign(GTK_LABEL(heading), 0.0f);
        gtk_widget_add_css_class(heading, "heading");
        gtk_box_append(GTK_BOX(sections[i]), heading);
    }
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        KeyRow *r = make_row(p, k, labels, editors);
        g_ptr_array_add(p->rows, r);
        gtk_box_append(GTK_BOX(sections[key_section(k)]), r->row);
    }
    p->summary = GTK_LABEL(gtk_label_new(""));
    gtk_label_set_wrap(p->summary, TRUE);
    gtk_label_set_xalign(p->summary, 0.0f);
    gtk_widget_set_margin_top(GTK_WIDGET(p->summary), 6);
    gtk_box_append(GTK_BOX(sections[SECTION_MODEL]), GTK_WIDGET(p->summary));
    for (int i = 0; i < SECTION_COUNT; i++)
        gtk_box_append(GTK_BOX(p), sections[i]);

    g_signal_connect_object(session, "config-changed", G_CALLBACK(on_config_changed), p, 0);
    g_signal_connect_object(session, "data-changed", G_CALLBACK(on_data_changed), p, 0);
    on_config_changed(session, NULL, p);
    return GTK_WIDGET(p);
}

GtkWidget *rf_config_panel_get_editor(RfConfigPanel *panel, const char *key)
{
    g_return_val_if_fail(RF_IS_CONFIG_PANEL(panel), NULL);
    KeyRow *r = find_row(panel, key);
    return r != NULL ? r->editor : NULL;
}

const char *rf_config_panel_get_message(RfConfigPanel *panel, const char *key)
{
    g_return_val_if_fail(RF_IS_CONFIG_PANEL(panel), "");
    KeyRow *r = find_row(panel, key);
    return r != NULL ? gtk_label_get_text(r->message) : "";
}

const char *rf_config_panel_get_summary(RfConfigPanel *panel)
{
    g_return_val_if_fail(RF_IS_CONFIG_PANEL(panel), "");
    return gtk_label_get_text(panel->summary);
}

