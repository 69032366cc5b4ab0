/* Switching the data set (see choose_data_task.h). */
#include "choose_data_task.h"

#include "data_tasks.h"
#include "dialogs.h"

typedef struct choice {
    RfSession *session;
    char *task;
    RfDataTaskDone done;
    gpointer user_data;
} choice;

static gboolean run_active(RfSession *s)
{
    RfRunState state = rf_session_get_state(s);
    return state == RF_RUN_LOADING || state == RF_RUN_RUNNING || state == RF_RUN_PAUSED;
}

/* Set the folder, then the task; on a refusal both go back. */
static void finish(choice *c, const char *path)
{
    RfSession *s = c->session;
    gboolean switched = FALSE, needs_restart = FALSE;
    g_autoptr(GError) error = NULL;
    if (path != NULL) {
        char old_path[RF_STR_LEN];
        g_strlcpy(old_path, rf_session_get_config(s)->data.path, sizeof old_path);
        switched = rf_session_set_key(s, "data.path", path, NULL, &error) &&
                   rf_session_set_key(s, "data.task", c->task, &needs_restart, &error);
        if (!switched)
            rf_session_set_key(s, "data.path", old_path, NULL, NULL);
        else if (!run_active(s))
            rf_session_open_data(s);
    }
    if (c->done != NULL)
        c->done(switched, needs_restart, error, c->user_data);
    g_object_unref(c->session);
    g_free(c->task);
    g_free(c);
}

static void folder_chosen(const char *path, gpointer user_data)
{
    finish(user_data, path);
}

void rf_choose_data_task(GtkWindow *parent, RfSession *s, const char *task, RfDataTaskDone done,
                         gpointer user_data)
{
    choice *c = g_new0(choice, 1);
    *c = (choice){g_object_ref(s), g_strdup(task), done, user_data};
    const rf_data_task *t = rf_data_task_find(task);
    if (t == NULL || !rf_data_task_asks_folder(t)) {
        finish(c, "");
        return;
    }
    g_autofree char *title = rf_data_task_chooser_title("Choose", t);
    rf_dialog_choose_path(parent, RF_CHOOSE_OPEN_FOLDER, RF_FOLDER_DATA, title, "_Open", NULL, NULL, NULL,
                          folder_chosen, c);
}
