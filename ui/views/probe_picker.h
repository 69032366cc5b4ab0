/* The toolbar the inspection views share: which sample (split and index),
 * which map or layer, which head, and below them which step: a slider over
 * the steps the session's probe history keeps (one per evaluation) with
 * "live" (the latest snapshot) at its right end. The views read what they
 * show through rf_probe_picker_find / _hold, so each shows the chosen step. It also arbitrates the session's single
 * probe watch between the views: the visible view watches its taps, and a
 * view that is hidden stops the watch only if it is still its own, so the
 * worker copies nothing nobody sees whatever order pages map and unmap in.
 */
#ifndef RF_PROBE_PICKER_H
#define RF_PROBE_PICKER_H

#include <gtk/gtk.h>

#include "../figures/picture.h"
#include "../session.h"

typedef struct rf_probe_picker {
    GtkWidget *box;              /* the toolbar; the view packs it */
    GtkDropDown *split;
    GtkSpinButton *sample;
    GtkWidget *layer_label;
    GtkDropDown *layer;          /* a layer or a map, by label */
    GtkStringList *layers;
    GtkWidget *head_label;
    GtkSpinButton *head;
    RfSession *session;
    GtkWidget *history_box;      /* the step row; the view packs it under `box` */
    GtkScale *step;              /* 0..n-1: the stored steps, n: live */
    int64_t shown_step;          /* the evaluation step shown, or -1: live */
    void (*changed)(gpointer data);   /* any choice changed */
    void (*step_changed)(gpointer data);   /* the step changed: redraw, watch nothing new */
    gpointer data;
    gboolean updating;           /* suppress `changed` while the choices are refilled */
} rf_probe_picker;

/* Build the toolbar; `layer_title` labels the layer drop-down ("Layer",
 * "Map"), NULL hides it and the head chooser. */
void rf_probe_picker_init(rf_probe_picker *p, RfSession *s, const char *layer_title, void (*changed)(gpointer),
                          gpointer data);

rf_split rf_probe_picker_get_split(const rf_probe_picker *p);
int64_t rf_probe_picker_get_sample(const rf_probe_picker *p);
/* The chosen entry of the layer drop-down (0 when there is none). */
guint rf_probe_picker_get_layer(const rf_probe_picker *p);
/* The chosen head, 0-based as the taps store heads (the Head spinner
 * shows it counted from 1, as every view counts layers and heads). */
int rf_probe_picker_get_head(const rf_probe_picker *p);
void rf_probe_picker_set_head(rf_probe_picker *p, int head);

/* Replace the layer entries, keeping the choice when it still exists. */
void rf_probe_picker_set_layers(rf_probe_picker *p, const char *const *labels, guint n);
/* Heads 1..heads on the spinner (the head chooser hides for one head). */
void rf_probe_picker_set_heads(rf_probe_picker *p, int heads);
/* The sample range for the data set's split (call on "data-changed"). */
void rf_probe_picker_update_samples(rf_probe_picker *p);

/* The step slider's marks: the session's stored steps (call when the
 * history may have changed: a snapshot, a new run). A chosen step that was
 * dropped moves to the nearest kept one. */
void rf_probe_picker_update_steps(rf_probe_picker *p);
/* The evaluation step shown, or -1 for the latest snapshot. */
int64_t rf_probe_picker_get_step(const rf_probe_picker *p);
/* Show the stored step nearest to `step`, or the latest snapshot (-1). */
void rf_probe_picker_set_step(rf_probe_picker *p, int64_t step);
/* The value `name` of the snapshot shown (the stored step's, or the
 * session's latest); *pooled (may be NULL): the stored map was pooled. */
const rf_probe_value *rf_probe_picker_find(const rf_probe_picker *p, const char *name, gboolean *pooled);
/* A reference to the snapshot shown (NULL before any). */
RfProbeHold *rf_probe_picker_hold(const rf_probe_picker *p);

/* Watch these taps for the chosen sample, as the session's one watcher. */
void rf_probe_picker_watch(rf_probe_picker *p, const char *const *names, int n);
/* The same, each tap pooled over its window (rf_session_watch_probes_pooled). */
void rf_probe_picker_watch_pooled(rf_probe_picker *p, const char *const *names, const rf_probe_window *windows, int n);
/* Stop watching, unless another view has taken the watch since. */
void rf_probe_picker_unwatch(rf_probe_picker *p);

/* "train sample 12" (or "inspected (not from the data set): cat.png" when
 * the probes shown are of an inspected input; "val sample 3 · step 40" for
 * a stored step, of the sample it was taken of) for titles. */
void rf_probe_picker_describe(const rf_probe_picker *p, char *buf, size_t size);
/* The picture of what is inspected: the watched inspected input, or the
 * chosen sample (none when the data are not images). */
void rf_probe_picker_load_picture(const rf_probe_picker *p, rf_picture *picture, int token_offset);

/* The names of the shown sample's positions [first, last) (cut to its
 * length), cell by cell of a map whose first `token_offset` cells are the
 * model's own (named "CLS"), in the data's words (position_words.h):
 * ListOps tokens, a text's bytes, a random task's ids, an image patch's
 * pixel rows and columns, an audio frame's time; NULL for data without
 * words. *n: the cells named. Free with g_strfreev. */
char **rf_probe_picker_token_names(const rf_probe_picker *p, int token_offset, int first, int last, int *n);
/* The shown sample's (or inspected input's) length in positions of the
 * data (its tokens or frames, before the batch's padding); 0 when
 * unknown. */
int rf_probe_picker_sample_length(const rf_probe_picker *p);

#endif
