/* The Attribution view: which positions of the Data view's shown sample
 * (or of the inspected input it shows) make the model answer as it does
 * (core/attribution.h, drawn by ui/figures/attribution_figure.h), as
 * `rangefinder inspect --attribution` computes it.
 *
 * Compute builds a model from the session's model (paused, finished or
 * stopped) on its run's data set in the background (ui/background_model.h)
 * and attributes the target class's logit by the chosen method;
 * the window stays responsive meanwhile. Baselines are the CLI's defaults:
 * the padding token for tokens, silence for audio folders, black for the
 * rest. The result is also left for the Data view's overlay
 * (ui/shown_sample.h). Export Plot writes the figure.
 *
 * "Compare with" picks a second model: a run of the Runs list (its
 * checkpoint.safetensors) or a checkpoint file. Compute then attributes
 * the same input and class with it too and draws A, B and A − B on one
 * colour range with both models' class probabilities, as `rangefinder
 * inspect --against` computes them; a model that takes another input is
 * refused with the CLI's sentence. "Map" adds a probe tap of both models
 * on the same input, read in the same job as `inspect --against --probe`
 * reads it, drawn as A, B and A − B on one colour range of its own. */
#include <string.h>

#include "../../core/model_input.h"
#include "../../core/probe.h"
#include "../../datasets/audio_folder.h"
#include "../../datasets/datasets.h"
#include "../background_model.h"
#include "../dialogs.h"
#include "../figures/attribution_figure.h"
#include "../figures/data_sample.h"
#include "../shown_sample.h"
#include "../view.h"

#define STATE_KEY "rf-attribution-view"

static const char *const method_titles[RF_ATTR_METHODS] = {
    [RF_ATTR_GRAD] = "Gradient",
    [RF_ATTR_GRAD_INPUT] = "Gradient × input",
    [RF_ATTR_IG] = "Integrated gradients",
    [RF_ATTR_OCCLUSION] = "Occlusion",
};

typedef struct attribution_view {
    RfSession *session;          /* outlives the view (the window owns both) */
    RfPlotView *plot;            /* owns this state */
    rf_attribution_figure *figure;
    rf_background_model model;   /* the Compute button and the status label */
    GtkWidget *method_menu, *steps, *window, *target_menu;
    int classes;                 /* in the target menu after "Predicted" */
    GtkWidget *against_menu;     /* "Compare with…" (none), the runs, files chosen, "Checkpoint file…" */
    GPtrArray *against_paths;    /* the menu's checkpoint files (NULL for "Nothing" and the last entry) */
    char *against;               /* the checkpoint compared with, or NULL */
    gboolean filling;            /* the menu is being refilled: ignore its selection */
    GtkWidget *map_menu;         /* compare mode: "No map", then the model's map taps */
    GtkStringList *maps;
} attribution_view;

typedef struct attr_job {
    rf_split split;
    int64_t index;
    rf_inspected *inspected;     /* held, or NULL for a sample of the split */
    rf_attr_method method;
    rf_attr_request request;
    int64_t step;
    rf_dataset *ds;              /* the checkpoint's run's data set, for drawing */
    float *x;                    /* the input as the model took it */
    int len;
    rf_attribution result;
    /* compare mode: B's checkpoint, step and attribution, both models' probabilities */
    char *against;
    int64_t b_step;
    rf_attribution b_result;
    float *probs[2];
    char *map;                   /* a probe map to compare too, or NULL */
    rf_probe_set *map_values[2]; /* A's and B's */
} attr_job;

static void attribution_view_free(attribution_view *v)
{
    rf_attribution_figure_free(v->figure);
    g_ptr_array_unref(v->against_paths);
    g_free(v->against);
    g_clear_object(&v->maps);
    g_free(v);
}

static void attr_job_free(attr_job *job)
{
    if (job->inspected != NULL)
        rf_inspected_release(job->inspected);
    rf_attribution_clear(&job->result);
    rf_attribution_clear(&job->b_result);
    g_free(job->against);
    g_free(job->map);
    rf_probe_set_free(job->map_values[0]);
    rf_probe_set_free(job->map_values[1]);
    g_free(job->probs[0]);
    g_free(job->probs[1]);
    g_free(job->x);
    rf_dataset_free(job->ds);
    g_free(job);
}

/* ---- the job (a worker thread) ---- */

/* The input: the inspected one's features, or the split's sample. */
static bool read_input(attr_job *job, rf_status *st)
{
    const rf_dataset *ds = job->ds;
    size_t row = (size_t)ds->seq_len * MAX(1, ds->feat_dim);
    job->x = g_new0(float, row);
    if (job->inspected != NULL) {
        const rf_inspected *in = job->inspected;
        if (in->seq_len != ds->seq_len || in->feat_dim != ds->feat_dim) {
            return rf_fail(st, "%s was inspected for another data set: inspect it again", in->name);
        }
        memcpy(job->x, in->x, sizeof(float) * (size_t)in->len * MAX(1, in->feat_dim));
        job->len = in->len;
        return true;
    }
    int label = 0;
    return ds->get(ds, job->split, job->index, job->x, &job->len, &label, st);
}

/* Probe map job->map of one model for the job's input: the split's
 * sample in its evaluation batch, as `rangefinder inspect --probe` reads
 * it, or the inspected input alone. NULL on failure. */
static rf_probe_set *probe_map(rf_trainer *t, const attr_job *job, rf_status *st)
{
    const char *const names[] = {job->map};
    rf_probe_set *ps = rf_probe_set_new(rf_trainer_model(t)->graph, names, 1, 0, st);
    rf_inspection r;
    rf_outside_input in = {job->x, job->len};
    bool ok = ps != NULL && (job->inspected != NULL ? rf_trainer_inspect_input(t, &in, ps, &r, NULL, st)
                                                    : rf_trainer_inspect(t, job->split, job->index, ps, &r, st));
    if (!ok) {
        rf_probe_set_free(ps);
        return NULL;
    }
    return ps;
}

/* Both models' map, of one shape (as `inspect --against --probe` asks). */
static bool compare_maps(attr_job *job, rf_trainer *a, rf_trainer *b, rf_status *st)
{
    job->map_values[0] = probe_map(a, job, st);
    job->map_values[1] = job->map_values[0] != NULL ? probe_map(b, job, st) : NULL;
    if (job->map_values[1] == NULL)
        return false;
    const rf_shape *sa = &job->map_values[0]->values[0].shape, *sb = &job->map_values[1]->values[0].shape;
    if (sa->ndim != sb->ndim || memcmp(sa->dim, sb->dim, (size_t)sa->ndim * sizeof sa->dim[0]) != 0)
        return rf_fail(st, "probe %s has another shape in %s than in this model: their models differ in size",
                       job->map, job->against);
    return true;
}

/* B: the checkpoint compared with, on the same input and target as A
 * (the one computed), and both models' class probabilities. */
static bool compare(attr_job *job, rf_loaded_model *a, rf_status *st)
{
    rf_loaded_model b;
    rf_outside_input in = {job->x, job->len};
    rf_attr_request r = job->request;
    r.target = job->result.target;
    int classes = job->ds->classes;
    job->probs[0] = g_new0(float, classes);
    job->probs[1] = g_new0(float, classes);
    bool ok = rf_loaded_model_open(&b, job->against, st) &&
              rf_model_inputs_comparable(a->cfg.data.task, job->ds, "this model", b.cfg.data.task, b.ds,
                                         job->against, st) &&
              rf_trainer_attribute(b.trainer, &in, &r, &job->b_result, st) &&
              rf_trainer_predict_all(a->trainer, &in, 1, job->probs[0], st) &&
              rf_trainer_predict_all(b.trainer, &in, 1, job->probs[1], st) &&
              (job->map == NULL || compare_maps(job, a->trainer, b.trainer, st));
    job->b_step = b.step;
    rf_loaded_model_clear(&b);
    return ok;
}

static bool attribute(void *data, rf_loaded_model *m, rf_status *st)
{
    attr_job *job = data;
    job->step = m->step;
    job->ds = g_steal_pointer(&m->ds);   /* freed after the trainer, with the job */
    if (!read_input(job, st))
        return false;
    const rf_dataset *ds = job->ds;
    g_autofree float *base = NULL;
    if (ds->feat_dim > 0) {   /* black, or silence for audio (zeros where it has none) */
        base = g_new0(float, (size_t)ds->seq_len * ds->feat_dim);
        rf_audio_folder_silence(ds, base, ds->seq_len);
    }
    job->request.baseline = base;
    bool ok = rf_trainer_attribute(m->trainer, &(rf_outside_input){job->x, job->len}, &job->request, &job->result,
                                   st) &&
              (job->against == NULL || compare(job, m, st));
    job->request.baseline = NULL;
    return ok;
}

/* ---- the view ---- */

static rf_attr_method chosen_method(attribution_view *v)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->method_menu));
    return i < RF_ATTR_METHODS ? (rf_attr_method)i : RF_ATTR_GRAD_INPUT;
}

/* How a checkpoint file chosen by its path is named: a run's checkpoint
 * (checkpoint.safetensors, the same name in every run) by its run folder,
 * any other file by its own name. */
static char *checkpoint_name(const char *path)
{
    g_autofree char *base = g_path_get_basename(path);
    if (strcmp(base, "checkpoint.safetensors") != 0)
        return g_steal_pointer(&base);
    g_autofree char *folder = g_path_get_dirname(path);
    return g_path_get_basename(folder);
}

static void on_attributed(void *view, void *data)
{
    attribution_view *v = view;
    attr_job *job = data;
    const rf_attribution *a = &job->result;
    char target[160], predicted[160];
    rf_data_class_text(job->ds, a->target, target, sizeof target);
    rf_data_class_text(job->ds, a->predicted, predicted, sizeof predicted);
    g_autofree char *sample = job->inspected != NULL
                                  ? g_strdup_printf("inspected %s", job->inspected->name)
                                  : g_strdup_printf("%s #%lld", rf_split_name(job->split), (long long)job->index);
    g_autofree char *title =
        a->target == a->predicted
            ? g_strdup_printf("%s of %s for the predicted class, %s, at step %lld", method_titles[job->method],
                              sample, target, (long long)job->step)
            : g_strdup_printf("%s of %s for %s (the model predicts %s) at step %lld", method_titles[job->method],
                              sample, target, predicted, (long long)job->step);
    if (job->against != NULL) {
        g_autofree char *base = checkpoint_name(job->against);
        g_autofree char *name_a = g_strdup_printf("A: this model, step %lld (predicts %s)", (long long)job->step,
                                                  predicted);
        char b_predicted[160];
        rf_data_class_text(job->ds, job->b_result.predicted, b_predicted, sizeof b_predicted);
        g_autofree char *name_b = g_strdup_printf("B: %s, step %lld (predicts %s)", base, (long long)job->b_step,
                                                  b_predicted);
        const char *const names[2] = {name_a, name_b};
        rf_attribution_figure_set_compare(v->figure, a, &job->b_result, job->method, job->ds, job->x, job->len,
                                          title, names, job->probs[0], job->probs[1]);
        if (job->map != NULL)
            rf_attribution_figure_set_maps(v->figure, job->map, &job->map_values[0]->values[0].shape,
                                           job->map_values[0]->values[0].data, job->map_values[1]->values[0].data);
    } else {
        rf_attribution_figure_set(v->figure, a, job->method, job->ds, job->x, job->len, title);
    }
    rf_shown_attribution_set(v->session, job->split, job->index, job->inspected, a, job->method);
    rf_background_model_say(&v->model, title);
    rf_plot_view_queue_draw(v->plot);
}

static void on_compute(GtkButton *button, gpointer data)
{
    (void)button;
    attribution_view *v = data;
    if (!rf_background_model_ready(&v->model))
        return;
    rf_split split;
    int64_t index;
    const rf_inspected *in;
    if (!rf_shown_sample_get(v->session, &split, &index, &in)) {
        rf_background_model_say(&v->model, "Show a sample (or an inspected input) in the Data view, then Compute");
        return;
    }
    attr_job *job = g_new0(attr_job, 1);
    job->split = split;
    job->index = index;
    job->inspected = in != NULL ? rf_inspected_acquire((rf_inspected *)in) : NULL;
    job->method = chosen_method(v);
    int window = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(v->window));
    guint target = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->target_menu));
    job->request = (rf_attr_request){
        .method = job->method,
        .target = target == 0 || target == GTK_INVALID_LIST_POSITION ? -1 : (int)target - 1,
        .steps = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(v->steps)),
        .window = window,
        .stride = window,
    };
    job->against = g_strdup(v->against);
    guint map = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->map_menu));
    if (v->against != NULL && map > 0 && map != GTK_INVALID_LIST_POSITION)
        job->map = g_strdup(gtk_string_list_get_string(v->maps, map));
    rf_background_model_start(&v->model, job, (GDestroyNotify)attr_job_free);
}

/* Steps count for integrated gradients only, the window for occlusion. */
static void on_method(GObject *menu, GParamSpec *pspec, gpointer data)
{
    (void)menu;
    (void)pspec;
    attribution_view *v = data;
    rf_attr_method m = chosen_method(v);
    gtk_widget_set_sensitive(v->steps, m == RF_ATTR_IG);
    gtk_widget_set_sensitive(v->window, m == RF_ATTR_OCCLUSION);
}

/* The target menu lists the loaded data set's classes. */
static void fill_targets(attribution_view *v)
{
    const rf_dataset *ds = rf_session_get_dataset(v->session);
    int classes = ds != NULL ? ds->classes : 0;
    if (classes == v->classes)
        return;
    GtkStringList *names = gtk_string_list_new(NULL);
    gtk_string_list_append(names, "Predicted class");
    char text[160];
    for (int k = 0; k < classes; k++) {
        rf_data_class_text(ds, k, text, sizeof text);
        gtk_string_list_append(names, text);
    }
    gtk_drop_down_set_model(GTK_DROP_DOWN(v->target_menu), G_LIST_MODEL(names));
    g_object_unref(names);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(v->target_menu), 0);
    v->classes = classes;
}

static void on_data_changed(RfSession *s, gpointer plot)
{
    (void)s;
    fill_targets(g_object_get_data(G_OBJECT(plot), STATE_KEY));
}

/* ---- "Compare with" ---- */

#define AGAINST_NOTHING "Compare…"   /* no comparison; the menu's own label */
#define AGAINST_FILE "Checkpoint file…"
#define AGAINST_TIP "Compare with another model taking the same input (a run's checkpoint or a checkpoint " \
                    "file): A, B and A − B on one colour range, and both models' class probabilities"

/* The tooltip names the checkpoint compared with in full; a map is
 * compared only while a model is. */
static void show_against_tip(attribution_view *v)
{
    if (v->map_menu != NULL)
        gtk_widget_set_sensitive(v->map_menu, v->against != NULL);
    g_autofree char *tip = g_strdup_printf("%s%s%s", AGAINST_TIP, v->against != NULL ? "\nB: " : "",
                                           v->against != NULL ? v->against : "");
    gtk_widget_set_tooltip_text(v->against_menu, tip);
}

/* The menu: nothing, each run of the Runs list with a checkpoint, the
 * files chosen so far (the one compared with among them), then the file
 * chooser's entry; the current choice stays selected. */
static void fill_against(attribution_view *v)
{
    g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
    GtkStringList *names = gtk_string_list_new(NULL);
    gtk_string_list_append(names, AGAINST_NOTHING);
    g_ptr_array_add(paths, NULL);
    guint selected = 0;
    GPtrArray *runs = rf_session_get_runs(v->session);
    for (guint i = 0; runs != NULL && i < runs->len; i++) {
        const rf_run_data *r = g_ptr_array_index(runs, i);
        g_autofree char *file = r->dir != NULL ? g_build_filename(r->dir, "checkpoint.safetensors", NULL) : NULL;
        if (file == NULL || !g_file_test(file, G_FILE_TEST_IS_REGULAR))
            continue;
        gtk_string_list_append(names, r->name);
        g_ptr_array_add(paths, g_steal_pointer(&file));
    }
    for (guint i = 0; v->against_paths != NULL && i < v->against_paths->len; i++) {   /* files chosen before */
        const char *file = g_ptr_array_index(v->against_paths, i);
        gboolean listed = FALSE;
        for (guint k = 1; file != NULL && k < paths->len && !listed; k++)
            listed = g_strcmp0(g_ptr_array_index(paths, k), file) == 0;
        if (file == NULL || listed)
            continue;
        g_autofree char *name = checkpoint_name(file);
        gtk_string_list_append(names, name);
        g_ptr_array_add(paths, g_strdup(file));
    }
    for (guint k = 1; k < paths->len; k++)
        if (g_strcmp0(g_ptr_array_index(paths, k), v->against) == 0)
            selected = k;
    gtk_string_list_append(names, AGAINST_FILE);
    g_ptr_array_add(paths, NULL);
    show_against_tip(v);
    v->filling = TRUE;
    gtk_drop_down_set_model(GTK_DROP_DOWN(v->against_menu), G_LIST_MODEL(names));
    gtk_drop_down_set_selected(GTK_DROP_DOWN(v->against_menu), selected);
    v->filling = FALSE;
    g_object_unref(names);
    if (v->against_paths != NULL)
        g_ptr_array_unref(v->against_paths);
    v->against_paths = g_ptr_array_ref(paths);
}

static void set_against(attribution_view *v, const char *checkpoint)
{
    g_free(v->against);
    v->against = g_strdup(checkpoint);
    if (checkpoint != NULL)
        g_ptr_array_insert(v->against_paths, (gint)v->against_paths->len - 1, g_strdup(checkpoint));
    fill_against(v);
}

static void on_against_file(const char *path, gpointer data)
{
    attribution_view *v = data;
    set_against(v, path != NULL ? path : v->against);
}

static void on_against(GObject *menu, GParamSpec *pspec, gpointer data)
{
    (void)pspec;
    attribution_view *v = data;
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(menu));
    if (v->filling || v->against_paths == NULL || i >= v->against_paths->len)
        return;
    if (i + 1 == v->against_paths->len) {   /* the file chooser */
        GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(menu));
        rf_dialog_choose_path(GTK_IS_WINDOW(root) ? GTK_WINDOW(root) : NULL, RF_CHOOSE_OPEN_FILE, RF_FOLDER_RUN,
                              "Compare with a Checkpoint", "_Compare", "Checkpoints", "*.safetensors", NULL,
                              on_against_file, v);
        return;
    }
    g_free(v->against);
    v->against = g_strdup(g_ptr_array_index(v->against_paths, i));
    show_against_tip(v);
}

/* The button names the choice in a few characters, whole (a label GTK
 * ellipsizes reads as "ch…ors"; the toolbar fits 1024 px): "Compare…", or
 * "B: " and the chosen run's or file's name, its head and tail kept when
 * long; the list and the tooltip show it whole. */
#define SHORT_NAME_CHARS 14

static char *short_choice(const char *name)
{
    if (g_strcmp0(name, AGAINST_NOTHING) == 0 || g_strcmp0(name, AGAINST_FILE) == 0)
        return g_strdup(name);
    glong n = g_utf8_strlen(name, -1);
    if (n <= SHORT_NAME_CHARS)
        return g_strdup_printf("B: %s", name);
    int head = SHORT_NAME_CHARS / 2, tail = SHORT_NAME_CHARS - head - 1;
    g_autofree char *first = g_utf8_substring(name, 0, head), *last = g_utf8_substring(name, n - tail, n);
    return g_strdup_printf("B: %s…%s", first, last);
}

static void setup_label(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
    (void)factory;
    (void)data;
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_list_item_set_child(item, label);
}

static void bind_label(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer shorten)
{
    (void)factory;
    const char *name = gtk_string_object_get_string(gtk_list_item_get_item(item));
    g_autofree char *text = shorten != NULL ? short_choice(name) : g_strdup(name);
    gtk_label_set_text(GTK_LABEL(gtk_list_item_get_child(item)), text);
}

static GtkListItemFactory *label_factory(gboolean shorten)
{
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(setup_label), NULL);
    g_signal_connect(factory, "bind", G_CALLBACK(bind_label), GINT_TO_POINTER(shorten));
    return factory;
}

static GtkWidget *against_menu_new(void)
{
    GtkWidget *menu = gtk_drop_down_new(NULL, NULL);
    g_autoptr(GtkListItemFactory) button = label_factory(TRUE);
    g_autoptr(GtkListItemFactory) list = label_factory(FALSE);
    gtk_drop_down_set_factory(GTK_DROP_DOWN(menu), button);
    gtk_drop_down_set_list_factory(GTK_DROP_DOWN(menu), list);
    return menu;
}

/* ---- the probe map compared ---- */

#define NO_MAP "No map"

/* A tap drawn as a map: not the head's vectors, not a gradient (the
 * inspected input has none). */
static gboolean is_map_tap(const char *name)
{
    return strcmp(name, "pool") != 0 && strcmp(name, "logits") != 0 && !g_str_has_suffix(name, ".grad");
}

/* The model's map taps, by the names `rangefinder inspect --list` gives;
 * the choice kept while it still exists. */
static void fill_maps(attribution_view *v)
{
    const char *const *taps = rf_session_list_taps(v->session);
    guint chosen = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->map_menu)), keep = 0;
    g_autofree char *was = chosen > 0 && chosen != GTK_INVALID_LIST_POSITION
                               ? g_strdup(gtk_string_list_get_string(v->maps, chosen))
                               : NULL;
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_ptr_array_add(names, (gpointer)NO_MAP);
    for (int i = 0; taps != NULL && taps[i] != NULL; i++)
        if (is_map_tap(taps[i])) {
            if (g_strcmp0(taps[i], was) == 0)
                keep = names->len;
            g_ptr_array_add(names, (gpointer)taps[i]);
        }
    guint had = g_list_model_get_n_items(G_LIST_MODEL(v->maps));
    gboolean same = had == names->len;
    for (guint i = 0; same && i < had; i++)
        same = strcmp(gtk_string_list_get_string(v->maps, i), g_ptr_array_index(names, i)) == 0;
    if (same)   /* "state-changed" comes often; the open list stays as it is */
        return;
    g_ptr_array_add(names, NULL);
    gtk_string_list_splice(v->maps, 0, had, (const char *const *)names->pdata);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(v->map_menu), keep);
}

static GtkWidget *map_menu_new(attribution_view *v)
{
    v->maps = gtk_string_list_new((const char *const[]){NO_MAP, NULL});
    v->map_menu = gtk_drop_down_new(G_LIST_MODEL(g_object_ref(v->maps)), NULL);   /* one reference each */
    gtk_widget_set_name(v->map_menu, "attribution-map");
    gtk_widget_set_tooltip_text(v->map_menu, "Compare mode: a probe map of both models on the same input too "
                                             "(attention probabilities, windows, latents, as `rangefinder inspect "
                                             "--probe` names them): A, B and A − B on one colour range");
    gtk_widget_set_sensitive(v->map_menu, FALSE);
    return v->map_menu;
}

static void on_runs_changed(RfSession *s, gpointer plot)
{
    (void)s;
    attribution_view *v = g_object_get_data(G_OBJECT(plot), STATE_KEY);
    fill_against(v);
    fill_maps(v);
}

static GtkWidget *labelled(GtkWidget *bar, const char *mnemonic, GtkWidget *widget)
{
    GtkWidget *label = gtk_label_new_with_mnemonic(mnemonic);
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), widget);
    gtk_box_append(GTK_BOX(bar), label);
    gtk_box_append(GTK_BOX(bar), widget);
    return widget;
}

/* Under ⋮, so the toolbar fits 1024 px: the class explained (the
 * predicted one unless chosen) and the method's settings, each counting
 * for one method only. */
static GtkWidget *more_menu(attribution_view *v)
{
    v->steps = gtk_spin_button_new_with_range(1, 1024, 1);
    gtk_widget_set_name(v->steps, "attribution-steps");
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(v->steps), 32);
    gtk_widget_set_tooltip_text(v->steps, "Integrated gradients: points on the path from the baseline (more "
                                          "shrink the completeness error)");
    v->window = gtk_spin_button_new_with_range(1, 4096, 1);
    gtk_widget_set_name(v->window, "attribution-window");
    gtk_widget_set_tooltip_text(v->window, "Occlusion: positions replaced by the baseline at once (an image's "
                                           "window × window patches)");
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 8);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 8);
    gtk_widget_set_margin_start(grid, 6);
    gtk_widget_set_margin_end(grid, 6);
    gtk_widget_set_margin_top(grid, 6);
    gtk_widget_set_margin_bottom(grid, 6);
    v->target_menu = gtk_drop_down_new_from_strings((const char *const[]){"Predicted class", NULL});
    gtk_widget_set_name(v->target_menu, "attribution-target");
    gtk_widget_set_tooltip_text(v->target_menu, "The class whose logit is explained");
    GtkWidget *rows[3][2] = {{gtk_label_new_with_mnemonic("_Class"), v->target_menu},
                             {gtk_label_new_with_mnemonic("_Steps"), v->steps},
                             {gtk_label_new_with_mnemonic("_Window"), v->window}};
    for (int r = 0; r < 3; r++) {
        gtk_label_set_mnemonic_widget(GTK_LABEL(rows[r][0]), rows[r][1]);
        gtk_label_set_xalign(GTK_LABEL(rows[r][0]), 0);
        gtk_grid_attach(GTK_GRID(grid), rows[r][0], 0, r, 1, 1);
        gtk_grid_attach(GTK_GRID(grid), rows[r][1], 1, r, 1, 1);
    }
    GtkWidget *popover = gtk_popover_new();
    gtk_popover_set_child(GTK_POPOVER(popover), grid);
    GtkWidget *button = gtk_menu_button_new();
    gtk_widget_set_name(button, "attribution-more");
    gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(button), "view-more-symbolic");
    gtk_widget_set_tooltip_text(button, "More: the class explained, integrated gradients' steps, occlusion's "
                                        "window");
    gtk_menu_button_set_popover(GTK_MENU_BUTTON(button), popover);
    return button;
}

static GtkWidget *build_toolbar(attribution_view *v)
{
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    GtkWidget *compute = gtk_button_new_with_mnemonic("_Compute");
    gtk_widget_set_name(compute, "attribution-compute");
    gtk_widget_add_css_class(compute, "suggested-action");
    gtk_widget_set_tooltip_text(compute, "Attribute the model's answer on the Data view's shown sample (or "
                                         "inspected input) to its positions, with the model as it is now "
                                         "(pause a run first)");
    gtk_box_append(GTK_BOX(bar), compute);
    const char *methods[RF_ATTR_METHODS + 1] = {NULL};
    for (int m = 0; m < RF_ATTR_METHODS; m++)
        methods[m] = method_titles[m];
    v->method_menu = gtk_drop_down_new_from_strings(methods);
    gtk_widget_set_name(v->method_menu, "attribution-method");
    gtk_drop_down_set_selected(GTK_DROP_DOWN(v->method_menu), RF_ATTR_GRAD_INPUT);
    gtk_widget_set_tooltip_text(v->method_menu, "Gradient: the size of the target logit's gradient (unsigned); "
                                                "× input, integrated gradients and occlusion: signed "
                                                "contributions against the baseline");
    labelled(bar, "_Method", v->method_menu);
    v->against_menu = against_menu_new();
    gtk_widget_set_name(v->against_menu, "attribution-against");
    gtk_box_append(GTK_BOX(bar), v->against_menu);   /* no label: its first entry names it (room at 1024 px) */
    fill_against(v);
    g_signal_connect(v->against_menu, "notify::selected", G_CALLBACK(on_against), v);
    labelled(bar, "M_ap", map_menu_new(v));
    show_against_tip(v);
    gtk_box_append(GTK_BOX(bar), more_menu(v));
    v->model = (rf_background_model){.session = v->session, .plot = v->plot, .button = compute,
                                     .verb = "explain", .busy = "Computing…", .work = attribute,
                                     .done = on_attributed, .view = v};
    gtk_box_append(GTK_BOX(bar), rf_background_model_status(&v->model, "attribution-status",
                                                            "Explains the Data view's sample"));
    g_signal_connect(compute, "clicked", G_CALLBACK(on_compute), v);
    g_signal_connect(v->method_menu, "notify::selected", G_CALLBACK(on_method), v);
    on_method(NULL, NULL, v);
    return bar;
}

GtkWidget *rf_attribution_view_new(RfSession *s)
{
    attribution_view *v = g_new0(attribution_view, 1);
    v->session = s;
    v->figure = rf_attribution_figure_new();
    rf_figure f = rf_attribution_figure_get(v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, FALSE);
    v->plot = RF_PLOT_VIEW(plot);
    g_object_set_data_full(G_OBJECT(plot), STATE_KEY, v, (GDestroyNotify)attribution_view_free);
    gtk_widget_set_hexpand(plot, TRUE);
    gtk_widget_set_vexpand(plot, TRUE);

    GtkWidget *view = rf_view_new_with_toolbar(build_toolbar(v), plot, v->plot);
    g_signal_connect_object(s, "data-changed", G_CALLBACK(on_data_changed), plot, 0);
    g_signal_connect_object(s, "state-changed", G_CALLBACK(on_runs_changed), plot, 0);
    fill_targets(v);
    fill_maps(v);
    return view;
}

const float *rf_attribution_view_values(GtkWidget *view, int *len)
{
    RfPlotView *plot = rf_view_get_plot(view);
    attribution_view *v = plot != NULL ? g_object_get_data(G_OBJECT(plot), STATE_KEY) : NULL;
    *len = 0;
    return v != NULL ? rf_attribution_figure_values(v->figure, len) : NULL;
}

void rf_attribution_view_compare_with(GtkWidget *view, const char *checkpoint)
{
    RfPlotView *plot = rf_view_get_plot(view);
    attribution_view *v = plot != NULL ? g_object_get_data(G_OBJECT(plot), STATE_KEY) : NULL;
    if (v != NULL)
        set_against(v, checkpoint);
}
