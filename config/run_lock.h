/* One run folder, one trainer. A process that trains into a run folder
 * (`rangefinder train`, new or --resume, rank 0 of an MPI job, the
 * workbench's own runs) holds an exclusive advisory lock, flock(2), on
 * RUN/.lock for as long as it may write there; a second trainer is refused
 * with one sentence naming the first:
 *
 *   RUN is being trained by process 12345 (rangefinder train); wait for it
 *   to finish or stop it
 *
 * The kernel drops the lock when its process ends, however it ends: a
 * SIGKILL leaves no stale lock. The file itself stays; it holds the
 * holder's pid, what it is and its host, only for that sentence. Readers
 * (eval, plot, inspect, predict, the Runs view) never take or need it. */
#ifndef RF_CONFIG_RUN_LOCK_H
#define RF_CONFIG_RUN_LOCK_H

#include <glib.h>

#define RF_RUN_LOCK_FILE ".lock"

#define RF_RUN_LOCK_ERROR rf_run_lock_error_quark()
GQuark rf_run_lock_error_quark(void);
typedef enum {
    RF_RUN_LOCK_ERROR_HELD,     /* another process trains the folder */
    RF_RUN_LOCK_ERROR_FAILED,   /* the lock file cannot be made or locked */
} rf_run_lock_error;

typedef struct rf_run_lock rf_run_lock;

/* Lock the existing folder `dir` for this process, which `holder`
 * describes ("rangefinder train", "the workbench"). NULL with
 * RF_RUN_LOCK_ERROR_HELD and the sentence above when another process
 * holds it, or RF_RUN_LOCK_ERROR_FAILED naming the lock file when it
 * cannot be made (a read-only folder). */
rf_run_lock *rf_run_lock_take(const char *dir, const char *holder, GError **error);
/* Give the folder up (NULL: nothing). */
void rf_run_lock_release(rf_run_lock *lock);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_run_lock, rf_run_lock_release)

/* FALSE with RF_RUN_LOCK_ERROR_HELD and the sentence when a process other
 * than this one holds `dir`'s lock; TRUE otherwise (no lock file, or this
 * process holds it). Creates nothing. It tests with a shared lock held for
 * an instant, which rf_run_lock_take waits out. */
gboolean rf_run_lock_check(const char *dir, GError **error);

#endif
