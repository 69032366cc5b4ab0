/* RfConfigPanel: the sidebar that edits the session's configuration. One
 * widget per key of the core's key table (core/config.h), in Data, Model,
 * Optimiser and Run sections; the model's mechanism-specific keys show only
 * for the chosen encoder and the data keys only for the tasks that read
 * them. Every edit goes through rf_session_set_key; a value the core
 * rejects is explained in red under its widget and changes nothing. A line
 * under the model section gives the planner's parameter count, FLOPs per
 * sample and planned memory, updated on every change.
 */
#ifndef RF_CONFIG_PANEL_H
#define RF_CONFIG_PANEL_H

#include <gtk/gtk.h>

#include "session.h"

G_BEGIN_DECLS

#define RF_TYPE_CONFIG_PANEL (rf_config_panel_get_type())
G_DECLARE_FINAL_TYPE(RfConfigPanel, rf_config_panel, RF, CONFIG_PANEL, GtkBox)

GtkWidget *rf_config_panel_new(RfSession *session);

/* The widget editing "section.key" (a GtkSpinButton, GtkDropDown or
 * GtkEntry), or NULL for an unknown key. */
GtkWidget *rf_config_panel_get_editor(RfConfigPanel *panel, const char *key);
/* The message shown under that widget ("" when none). */
const char *rf_config_panel_get_message(RfConfigPanel *panel, const char *key);
/* The planner line ("258k params · 1.2 GFLOPs/sample · 3.1 GiB planned",
 * or the planner's explanation of why the config is impossible). */
const char *rf_config_panel_get_summary(RfConfigPanel *panel);
/* Signal "restart-needed" (no arguments): an edit of a running or paused
 * run's architecture takes effect only when the run restarts (the window
 * offers the restart where the user is looking). */

/* How a value of choice key `key` reads in the UI (model.encoder "blrp" ->
 * "BLRP", data.task "fashion_mnist" -> "Fashion-MNIST"); values without a
 * nicer name come back unchanged. */
const char *rf_choice_label(const char *key, const char *value);

G_END_DECLS

#endif
