#include "launch_dialog.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "dialogs.h"
#include "launch_files.h"

typedef struct launch_dialog {
    rf_config cfg;
    GtkWindow *window;
    GtkDropDown *kind;
    GtkSpinButton *ranks;
    GtkEntry *out_dir;
    GtkLabel *status;
    GtkTextBuffer *text;
    GtkWidget *copy, *save;
    char *shown;         /* the text on screen; NULL while refused */
} launch_dialog;

static void launch_dialog_free(gpointer p)
{
    launch_dialog *d = p;
    g_free(d->shown);
    g_free(d);
}

static launch_dialog *of(GtkWindow *w)
{
    return g_object_get_data(G_OBJECT(w), "rf-launch-dialog");
}

static rf_launch_kind chosen_kind(launch_dialog *d)
{
    return gtk_drop_down_get_selected(d->kind) == 1 ? RF_LAUNCH_SLURM : RF_LAUNCH_MPIRUN;
}

/* The text for the current choice, as it will be once the config is
 * written (nothing is written here). */
static void refresh(launch_dialog *d)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    g_autofree char *dir = g_canonicalize_filename(gtk_editable_get_text(GTK_EDITABLE(d->out_dir)), NULL);
    g_autofree char *ini = rf_launch_config_path(dir);
    rf_launch l = {.kind = chosen_kind(d), .ranks = gtk_spin_button_get_value_as_int(d->ranks),
                   .exe = exe != NULL ? exe : "rangefinder", .config_path = ini, .out_dir = dir};
    g_autoptr(GError) error = NULL;
    g_free(d->shown);
    d->shown = rf_launch_text(&l, &d->cfg, &error);
    gtk_text_buffer_set_text(d->text, d->shown != NULL ? d->shown : "", -1);
    g_autofree char *note = g_strdup_printf("Copy or Save writes the config the job reads to %s", ini);
    gtk_label_set_text(d->status, d->shown != NULL ? note : error->message);
    gtk_widget_set_sensitive(d->copy, d->shown != NULL);
    gtk_widget_set_sensitive(d->save, d->shown != NULL);
}

static void on_changed(GObject *o, GParamSpec *p, gpointer user_data)
{
    (void)o;
    (void)p;
    refresh(user_data);
}

static void on_entry_changed(GtkEditable *e, gpointer user_data)
{
    (void)e;
    refresh(user_data);
}

/* Write the config and return the launch text, or NULL (the error shown). */
static char *prepare(launch_dialog *d)
{
    g_autoptr(GError) error = NULL;
    char *text = rf_launch_prepare(&d->cfg, chosen_kind(d), gtk_spin_button_get_value_as_int(d->ranks),
                                   gtk_editable_get_text(GTK_EDITABLE(d->out_dir)), &error);
    if (text == NULL)
        rf_dialog_error(d->window, "Could not prepare the launch", error->message);
    return text;
}

static void on_copy(GtkButton *b, gpointer user_data)
{
    (void)b;
    rf_launch_dialog_copy(((launch_dialog *)user_data)->window);
}

static void script_to_save(const char *path, gpointer user_data)
{
    GtkWindow *w = user_data;
    launch_dialog *d = of(w);
    g_autofree char *text = path != NULL ? prepare(d) : NULL;
    g_autoptr(GError) error = NULL;
    if (text != NULL) {
        /* g_file_set_contents writes a temporary and renames it */
        if (g_file_set_contents(path, text, -1, &error) && g_chmod(path, 0755) == 0) {
            g_autofree char *note = g_strdup_printf("Saved %s", path);
            gtk_label_set_text(d->status, note);
        } else {
            rf_dialog_error(w, "Could not save the launch script",
                            error != NULL ? error->message : g_strerror(errno));
        }
    }
    g_object_unref(w);
}

static void on_save(GtkButton *b, gpointer user_data)
{
    (void)b;
    launch_dialog *d = user_data;
    gboolean slurm = chosen_kind(d) == RF_LAUNCH_SLURM;
    rf_dialog_choose_path(d->window, RF_CHOOSE_SAVE_FILE, RF_FOLDER_RUN, "Save Launch Script", "_Save", "Shell scripts", "*.sh",
                          slurm ? "job.sbatch.sh" : "launch.sh", script_to_save, g_object_ref(d->window));
}

static GtkWidget *labelled(GtkGrid *grid, int row, const char *text, GtkWidget *w)
{
    GtkWidget *label = gtk_label_new_with_mnemonic(text);
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), w);
    gtk_widget_set_halign(label, GTK_ALIGN_END);
    gtk_grid_attach(grid, label, 0, row, 1, 1);
    gtk_widget_set_hexpand(w, TRUE);
    gtk_grid_attach(grid, w, 1, row, 1, 1);
    return w;
}

GtkWindow *rf_launch_dialog_show(GtkWindow *parent, const rf_config *cfg)
{
    launch_dialog *d = g_new0(launch_dialog, 1);
    d->cfg = *cfg;
    d->window = GTK_WINDOW(gtk_window_new());
    gtk_window_set_title(d->window, "Launch on a Cluster");
    gtk_window_set_transient_for(d->window, parent);
    gtk_window_set_modal(d->window, TRUE);
    gtk_window_set_default_size(d->window, 760, 420);
    g_object_set_data_full(G_OBJECT(d->window), "rf-launch-dialog", d, launch_dialog_free);

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
    gtk_widget_set_margin_start(box, 12);
    gtk_widget_set_margin_end(box, 12);
    gtk_widget_set_margin_top(box, 12);
    gtk_widget_set_margin_bottom(box, 12);
    GtkGrid *grid = GTK_GRID(gtk_grid_new());
    gtk_grid_set_row_spacing(grid, 6);
    gtk_grid_set_column_spacing(grid, 8);
    const char *const kinds[] = {"mpirun (a command line)", "Slurm (an sbatch script running mpirun)", NULL};
    d->kind = GTK_DROP_DOWN(labelled(grid, 0, "_Launcher", gtk_drop_down_new_from_strings(kinds)));
    d->ranks = GTK_SPIN_BUTTON(labelled(grid, 1, "_Ranks", gtk_spin_button_new_with_range(1, 4096, 1)));
    gtk_spin_button_set_value(d->ranks, 2);
    d->out_dir = GTK_ENTRY(labelled(grid, 2, "Run _folder", gtk_entry_new()));
    g_autofree char *name = g_strdup_printf("runs/%s-%s-ranks", cfg->data.task, cfg->model.encoder);
    gtk_editable_set_text(GTK_EDITABLE(d->out_dir), name);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(grid));

    GtkWidget *view = gtk_text_view_new();
    gtk_text_view_set_monospace(GTK_TEXT_VIEW(view), TRUE);
    gtk_text_view_set_editable(GTK_TEXT_VIEW(view), FALSE);
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(view), GTK_WRAP_CHAR);
    d->text = gtk_text_view_get_buffer(GTK_TEXT_VIEW(view));
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), view);
    gtk_widget_set_vexpand(scroll, TRUE);
    gtk_box_append(GTK_BOX(box), scroll);
    d->status = GTK_LABEL(gtk_label_new(NULL));
    gtk_label_set_wrap(d->status, TRUE);
    gtk_label_set_xalign(d->status, 0);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(d->status));

    GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_halign(buttons, GTK_ALIGN_END);
    d->copy = gtk_button_new_with_mnemonic("_Copy");
    d->save = gtk_button_new_with_mnemonic("_Save Script…");
    GtkWidget *close = gtk_button_new_with_mnemonic("C_lose");
    gtk_box_append(GTK_BOX(buttons), d->copy);
    gtk_box_append(GTK_BOX(buttons), d->save);
    gtk_box_append(GTK_BOX(buttons), close);
    gtk_box_append(GTK_BOX(box), buttons);
    gtk_window_set_child(d->window, box);

    g_signal_connect(d->kind, "notify::selected", G_CALLBACK(on_changed), d);
    g_signal_connect(d->ranks, "notify::value", G_CALLBACK(on_changed), d);
    g_signal_connect(d->out_dir, "changed", G_CALLBACK(on_entry_changed), d);
    g_signal_connect(d->copy, "clicked", G_CALLBACK(on_copy), d);
    g_signal_connect(d->save, "clicked", G_CALLBACK(on_save), d);
    g_signal_connect_swapped(close, "clicked", G_CALLBACK(gtk_window_destroy), d->window);
    refresh(d);
    gtk_window_present(d->window);
    return d->window;
}

void rf_launch_dialog_set(GtkWindow *dialog, rf_launch_kind kind, int ranks, const char *out_dir)
{
    launch_dialog *d = of(dialog);
    gtk_drop_down_set_selected(d->kind, kind == RF_LAUNCH_SLURM ? 1 : 0);
    gtk_spin_button_set_value(d->ranks, ranks);
    gtk_editable_set_text(GTK_EDITABLE(d->out_dir), out_dir);
}

const char *rf_launch_dialog_text(GtkWindow *dialog)
{
    return of(dialog)->shown;
}

const char *rf_launch_dialog_status(GtkWindow *dialog)
{
    return gtk_label_get_text(of(dialog)->status);
}

gboolean rf_launch_dialog_copy(GtkWindow *dialog)
{
    launch_dialog *d = of(dialog);
    g_autofree char *text = prepare(d);
    if (text == NULL)
        return FALSE;
    gdk_clipboard_set_text(gtk_widget_get_clipboard(GTK_WIDGET(d->window)), text);
    g_autofree char *ini = rf_launch_config_path(gtk_editable_get_text(GTK_EDITABLE(d->out_dir)));
    g_autofree char *note = g_strdup_printf("Copied; the job reads %s (written now)", ini);
    gtk_label_set_text(d->status, note);
    return TRUE;
}
