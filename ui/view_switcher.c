/* The grouped view switcher (view_switcher.h). */
#include "view_switcher.h"

#define STATE_KEY "rf-view-switcher"

typedef struct group {
    GtkWidget *toggle;           /* in the row of groups */
    GtkWidget *tabs;             /* its views' tabs, shown while the group is chosen */
    char *last;                  /* the page last shown in it */
} group;

typedef struct switcher {
    GtkStack *stack;
    GtkWidget *groups_row, *box;
    GPtrArray *groups;           /* group*, in order */
    GHashTable *tabs;            /* page name -> its tab */
    GHashTable *group_of;        /* page name -> its group */
} switcher;

static void group_free(group *g)
{
    g_free(g->last);
    g_free(g);
}

static void switcher_free(switcher *s)
{
    g_ptr_array_unref(s->groups);
    g_hash_table_unref(s->tabs);
    g_hash_table_unref(s->group_of);
    g_free(s);
}

/* The visible page's tab and group highlighted, and only its group's tabs shown. */
static void sync_to_stack(GtkStack *stack, GParamSpec *pspec, gpointer data)
{
    (void)pspec;
    switcher *s = data;
    const char *name = gtk_stack_get_visible_child_name(stack);
    group *current = name != NULL ? g_hash_table_lookup(s->group_of, name) : NULL;
    if (current == NULL)
        return;
    g_free(current->last);
    current->last = g_strdup(name);
    for (guint i = 0; i < s->groups->len; i++) {
        group *g = g_ptr_array_index(s->groups, i);
        gtk_widget_set_visible(g->tabs, g == current);
    }
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(current->toggle), TRUE);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(g_hash_table_lookup(s->tabs, name)), TRUE);
}

static void on_visible(GtkStack *stack, GParamSpec *pspec, gpointer box)
{
    sync_to_stack(stack, pspec, g_object_get_data(G_OBJECT(box), STATE_KEY));
}

static void on_tab(GtkToggleButton *tab, gpointer data)
{
    switcher *s = data;
    if (gtk_toggle_button_get_active(tab))
        gtk_stack_set_visible_child_name(s->stack, g_object_get_data(G_OBJECT(tab), "page"));
}

static void on_group(GtkToggleButton *toggle, gpointer data)
{
    switcher *s = data;
    if (!gtk_toggle_button_get_active(toggle))
        return;
    group *g = g_object_get_data(G_OBJECT(toggle), "group");
    const char *name = gtk_stack_get_visible_child_name(s->stack);
    if (name == NULL || g_hash_table_lookup(s->group_of, name) != g)
        gtk_stack_set_visible_child_name(s->stack, g->last);
}

GtkWidget *rf_view_switcher_new(GtkStack *stack)
{
    switcher *s = g_new0(switcher, 1);
    s->stack = stack;
    s->groups = g_ptr_array_new_with_free_func((GDestroyNotify)group_free);
    s->tabs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->group_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    gtk_widget_set_name(s->box, "view-switcher");
    s->groups_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class(s->groups_row, "linked");
    gtk_widget_add_css_class(s->groups_row, "view-groups");
    gtk_box_append(GTK_BOX(s->box), s->groups_row);
    g_object_set_data_full(G_OBJECT(s->box), STATE_KEY, s, (GDestroyNotify)switcher_free);
    g_signal_connect_object(stack, "notify::visible-child-name", G_CALLBACK(on_visible), s->box, 0);
    return s->box;
}

static group *group_named(switcher *s, const char *title)
{
    for (guint i = 0; i < s->groups->len; i++) {
        group *g = g_ptr_array_index(s->groups, i);
        if (g_strcmp0(gtk_button_get_label(GTK_BUTTON(g->toggle)), title) == 0)
            return g;
    }
    group *g = g_new0(group, 1);
    g->toggle = gtk_toggle_button_new_with_label(title);
    g_autofree char *name = g_strdup_printf("view-group-%s", title);
    gtk_widget_set_name(g->toggle, name);
    if (s->groups->len > 0)
        gtk_toggle_button_set_group(GTK_TOGGLE_BUTTON(g->toggle),
                                    GTK_TOGGLE_BUTTON(((group *)g_ptr_array_index(s->groups, 0))->toggle));
    g_object_set_data(G_OBJECT(g->toggle), "group", g);
    g_signal_connect(g->toggle, "toggled", G_CALLBACK(on_group), s);
    gtk_box_append(GTK_BOX(s->groups_row), g->toggle);
    g->tabs = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class(g->tabs, "linked");
    gtk_widget_add_css_class(g->tabs, "view-tabs");
    gtk_widget_set_visible(g->tabs, s->groups->len == 0);
    gtk_box_append(GTK_BOX(s->box), g->tabs);
    g_ptr_array_add(s->groups, g);
    return g;
}

void rf_view_switcher_add(GtkWidget *box, const char *name, const char *group_title)
{
    switcher *s = g_object_get_data(G_OBJECT(box), STATE_KEY);
    g_return_if_fail(s != NULL);
    GtkWidget *page = gtk_stack_get_child_by_name(s->stack, name);
    g_return_if_fail(page != NULL);
    group *g = group_named(s, group_title);
    GtkWidget *tab = gtk_toggle_button_new_with_label(gtk_stack_page_get_title(gtk_stack_get_page(s->stack, page)));
    g_autofree char *tab_name = g_strdup_printf("view-tab-%s", name);
    gtk_widget_set_name(tab, tab_name);
    g_object_set_data_full(G_OBJECT(tab), "page", g_strdup(name), g_free);
    GtkWidget *first = g_hash_table_size(s->tabs) > 0 ? gtk_widget_get_first_child(
                                                            ((group *)g_ptr_array_index(s->groups, 0))->tabs)
                                                      : NULL;
    if (first != NULL)
        gtk_toggle_button_set_group(GTK_TOGGLE_BUTTON(tab), GTK_TOGGLE_BUTTON(first));
    g_signal_connect(tab, "toggled", G_CALLBACK(on_tab), s);
    gtk_box_append(GTK_BOX(g->tabs), tab);
    g_hash_table_insert(s->tabs, g_strdup(name), tab);
    g_hash_table_insert(s->group_of, g_strdup(name), g);
    if (g->last == NULL)
        g->last = g_strdup(name);
    sync_to_stack(s->stack, NULL, s);
}
