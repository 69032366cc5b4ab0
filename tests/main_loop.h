/* Driving GTK's main loop from a test or benchmark (tests/test_gui.c,
 * bench/bench_gui.c): spin it until a condition holds or time runs out. */
#ifndef RF_TESTS_MAIN_LOOP_H
#define RF_TESTS_MAIN_LOOP_H

#include <glib.h>

#include "../ui/session.h"

typedef gboolean (*Condition)(gpointer data);

/* Run the main loop until cond holds or `seconds` pass; whether it held. */
static inline gboolean spin_until(Condition cond, gpointer data, double seconds)
{
    gint64 end = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
    while (!cond(data)) {
        if (g_get_monotonic_time() > end)
            return FALSE;
        if (!g_main_context_iteration(NULL, FALSE))
            g_usleep(1000);
    }
    return TRUE;
}

static inline gboolean never(gpointer data)
{
    (void)data;
    return FALSE;
}

static inline void spin_for(double seconds)
{
    spin_until(never, NULL, seconds);
}

static inline gboolean data_loaded(gpointer session)
{
    return rf_session_get_dataset(session) != NULL;
}

/* The session's run has ended: finished, failed or stopped. */
static inline gboolean run_settled(gpointer session)
{
    RfRunState st = rf_session_get_state(session);
    return st == RF_RUN_FINISHED || st == RF_RUN_FAILED || st == RF_RUN_STOPPED;
}

#endif
