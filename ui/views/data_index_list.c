/* The numbers 0 .. n-1 as a GListModel (see data_index_list.h). */
#include "data_index_list.h"

struct _RfIndexItem {
    GObject parent;
    guint index;
};

G_DEFINE_FINAL_TYPE(RfIndexItem, rf_index_item, G_TYPE_OBJECT)

static void rf_index_item_class_init(RfIndexItemClass *klass)
{
    (void)klass;
}

static void rf_index_item_init(RfIndexItem *item)
{
    (void)item;
}

guint rf_index_item_get(RfIndexItem *item)
{
    return item->index;
}

struct _RfIndexList {
    GObject parent;
    guint n;
};

static GType index_list_item_type(GListModel *model)
{
    (void)model;
    return RF_TYPE_INDEX_ITEM;
}

static guint index_list_n_items(GListModel *model)
{
    return RF_INDEX_LIST(model)->n;
}

static gpointer index_list_item(GListModel *model, guint position)
{
    if (position >= RF_INDEX_LIST(model)->n)
        return NULL;
    RfIndexItem *item = g_object_new(RF_TYPE_INDEX_ITEM, NULL);
    item->index = position;
    return item;
}

static void index_list_model_init(GListModelInterface *iface)
{
    iface->get_item_type = index_list_item_type;
    iface->get_n_items = index_list_n_items;
    iface->get_item = index_list_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE(RfIndexList, rf_index_list, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_LIST_MODEL, index_list_model_init))

static void rf_index_list_class_init(RfIndexListClass *klass)
{
    (void)klass;
}

static void rf_index_list_init(RfIndexList *list)
{
    (void)list;
}

RfIndexList *rf_index_list_new(guint n)
{
    RfIndexList *list = g_object_new(RF_TYPE_INDEX_LIST, NULL);
    list->n = n;
    return list;
}
