/* ThreadSanitizer marks for GLib's synchronisation.
 *
 * GLib's mutexes, condition variables, async queues, thread pools and
 * atomic reference counts wait on futexes inside libglib, which is not
 * instrumented: TSan sees none of them, so every hand-off through them
 * reads as a data race. These wrappers tell it what they order: a release
 * of `p` before handing p (or what a lock guards) to another thread, an
 * acquire after taking it. A GThreadPool's tasks acquire its shared data on
 * entry and release it on exit; the caller releases it before each push
 * and acquires it after g_thread_pool_free(pool, FALSE, TRUE). Outside
 * a TSan build they are the GLib calls. Used by the session (ui/) and the
 * data sets' loaders.
 */
#ifndef RF_DATASETS_TSAN_SYNC_H
#define RF_DATASETS_TSAN_SYNC_H

#include <glib.h>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define RF_TSAN_RELEASE(p) __tsan_release((void *)(p))
#define RF_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#else
#define RF_TSAN_RELEASE(p) ((void)(p))
#define RF_TSAN_ACQUIRE(p) ((void)(p))
#endif

static inline void rf_mutex_lock(GMutex *m)
{
    g_mutex_lock(m);
    RF_TSAN_ACQUIRE(m);
}

static inline void rf_mutex_unlock(GMutex *m)
{
    RF_TSAN_RELEASE(m);
    g_mutex_unlock(m);
}

static inline void rf_cond_wait(GCond *c, GMutex *m)
{
    RF_TSAN_RELEASE(m);
    g_cond_wait(c, m);
    RF_TSAN_ACQUIRE(m);
}

static inline void rf_queue_push(GAsyncQueue *q, gpointer item)
{
    RF_TSAN_RELEASE(item);
    g_async_queue_push(q, item);
}

static inline gpointer rf_queue_try_pop(GAsyncQueue *q)
{
    gpointer item = g_async_queue_try_pop(q);
    if (item != NULL)
        RF_TSAN_ACQUIRE(item);
    return item;
}

#endif
