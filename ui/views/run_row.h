/* A row of the Runs view's list: a GObject around one rf_run_entry of the
 * runs table (ui/runs_table.h), which it holds a reference to, and the
 * status the entry had when the row was made (a refresh may change it in
 * place). */
#ifndef RF_RUN_ROW_H
#define RF_RUN_ROW_H

#include <glib-object.h>

#include "../runs_table.h"

G_BEGIN_DECLS

#define RF_TYPE_RUN_ROW (rf_run_row_get_type())
G_DECLARE_FINAL_TYPE(RfRunRow, rf_run_row, RF, RUN_ROW, GObject)

RfRunRow *rf_run_row_new(rf_run_entry *entry);
rf_run_entry *rf_run_row_get_entry(RfRunRow *row);
/* Whether the row still shows `entry` as it is now. */
gboolean rf_run_row_shows(RfRunRow *row, const rf_run_entry *entry);

G_END_DECLS

#endif
