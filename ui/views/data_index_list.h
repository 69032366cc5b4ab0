/* A GListModel of the numbers 0 .. n-1 (a split's sample indexes) that
 * stores nothing: each item is made when the list view asks for it, so a
 * split of a million samples costs no memory until it scrolls into view. */
#ifndef RF_DATA_INDEX_LIST_H
#define RF_DATA_INDEX_LIST_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define RF_TYPE_INDEX_LIST (rf_index_list_get_type())
G_DECLARE_FINAL_TYPE(RfIndexList, rf_index_list, RF, INDEX_LIST, GObject)

/* Items are RfIndexItem; read their number with rf_index_item_get. */
#define RF_TYPE_INDEX_ITEM (rf_index_item_get_type())
G_DECLARE_FINAL_TYPE(RfIndexItem, rf_index_item, RF, INDEX_ITEM, GObject)

RfIndexList *rf_index_list_new(guint n);
guint rf_index_item_get(RfIndexItem *item);

G_END_DECLS

#endif
