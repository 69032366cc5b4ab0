#include "run_row.h"

struct _RfRunRow {
    GObject parent_instance;
    rf_run_entry *entry;
    rf_run_status status;
};

G_DEFINE_FINAL_TYPE(RfRunRow, rf_run_row, G_TYPE_OBJECT)

static void rf_run_row_finalize(GObject *object)
{
    rf_run_entry_unref(RF_RUN_ROW(object)->entry);
    G_OBJECT_CLASS(rf_run_row_parent_class)->finalize(object);
}

static void rf_run_row_class_init(RfRunRowClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = rf_run_row_finalize;
}

static void rf_run_row_init(RfRunRow *row)
{
    (void)row;
}

RfRunRow *rf_run_row_new(rf_run_entry *entry)
{
    RfRunRow *row = g_object_new(RF_TYPE_RUN_ROW, NULL);
    row->entry = rf_run_entry_ref(entry);
    row->status = entry->status;
    return row;
}

rf_run_entry *rf_run_row_get_entry(RfRunRow *row)
{
    return row->entry;
}

gboolean rf_run_row_shows(RfRunRow *row, const rf_run_entry *entry)
{
    return row->entry == entry && row->status == entry->status;
}
