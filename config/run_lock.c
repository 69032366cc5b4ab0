#include "run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

G_DEFINE_QUARK(rf-run-lock-error-quark, rf_run_lock_error)

/* How long a busy lock whose holder cannot be named yet (it has just
 * taken the lock and not yet written itself, or a check holds it for an
 * instant) is tried again before the refusal names no process. */
#define UNNAMED_WAIT_US (1000 * 1000)
#define RETRY_US (10 * 1000)

struct rf_run_lock {
    int fd;
};

/* What the lock file says about its holder: "PID\nHOLDER\nHOST\n". */
typedef struct holder_info {
    long pid;   /* 0: unknown */
    char *what;
    char *host;
} holder_info;

static void holder_info_clear(holder_info *h)
{
    g_clear_pointer(&h->what, g_free);
    g_clear_pointer(&h->host, g_free);
    h->pid = 0;
}

static gboolean read_holder(int fd, holder_info *h)
{
    holder_info_clear(h);
    char text[512];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0)
        return FALSE;
    text[n] = '\0';
    g_auto(GStrv) lines = g_strsplit(text, "\n", 4);
    if (g_strv_length(lines) < 3)   /* cut short: the holder is writing it */
        return FALSE;
    char *end = NULL;
    long pid = strtol(lines[0], &end, 10);
    if (end == lines[0] || *end != '\0' || pid <= 0)
        return FALSE;
    h->pid = pid;
    h->what = g_strdup(lines[1]);
    h->host = g_strdup(lines[2]);
    return TRUE;
}

static gboolean on_this_host(const holder_info *h)
{
    return g_strcmp0(h->host, g_get_host_name()) == 0;
}

/* A holder that can be named: a live process here, or one on another host
 * (a run folder on a shared file system). A dead pid is what a killed
 * holder left in the file while a check holds the lock for an instant. */
static gboolean nameable(const holder_info *h)
{
    return h->pid > 0 && (!on_this_host(h) || kill((pid_t)h->pid, 0) == 0 || errno == EPERM);
}

/* flock(fd, op | LOCK_NB): 0 when locked; 1 when another holds it, with
 * *h filled where it can be named; -1 with errno on failure. */
static int lock_or_holder(int fd, int op, holder_info *h)
{
    gint64 give_up = g_get_monotonic_time() + UNNAMED_WAIT_US;
    for (;;) {
        if (flock(fd, op | LOCK_NB) == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK)
            return -1;
        if (read_holder(fd, h) && nameable(h))
            return 1;
        if (g_get_monotonic_time() >= give_up) {
            holder_info_clear(h);
            return 1;
        }
        g_usleep(RETRY_US);
    }
}

static gboolean refuse(GError **error, const char *dir, const holder_info *h)
{
    if (h->pid <= 0) {
        g_set_error(error, RF_RUN_LOCK_ERROR, RF_RUN_LOCK_ERROR_HELD,
                    "%s is being trained by another process; wait for it to finish or stop it", dir);
        return FALSE;
    }
    g_autofree char *where = on_this_host(h) ? g_strdup("") : g_strdup_printf(" on %s", h->host);
    g_set_error(error, RF_RUN_LOCK_ERROR, RF_RUN_LOCK_ERROR_HELD,
                "%s is being trained by process %ld%s (%s); wait for it to finish or stop it", dir, h->pid, where,
                h->what);
    return FALSE;
}

static gboolean fail(GError **error, const char *dir, const char *path, int err)
{
    g_set_error(error, RF_RUN_LOCK_ERROR, RF_RUN_LOCK_ERROR_FAILED, "cannot lock %s for training: %s: %s", dir, path,
                g_strerror(err));
    return FALSE;
}

rf_run_lock *rf_run_lock_take(const char *dir, const char *holder, GError **error)
{
    g_autofree char *path = g_build_filename(dir, RF_RUN_LOCK_FILE, NULL);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fail(error, dir, path, errno);
        return NULL;
    }
    holder_info h = {0};
    int got = lock_or_holder(fd, LOCK_EX, &h);
    if (got != 0) {
        if (got > 0)
            refuse(error, dir, &h);
        else
            fail(error, dir, path, errno);
        holder_info_clear(&h);
        close(fd);
        return NULL;
    }
    /* who holds it, for a refused trainer's sentence */
    g_autofree char *text = g_strdup_printf("%ld\n%s\n%s\n", (long)getpid(), holder, g_get_host_name());
    size_t len = strlen(text);
    errno = 0;   /* a short write sets none */
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, len, 0) != (ssize_t)len) {
        fail(error, dir, path, errno != 0 ? errno : ENOSPC);
        close(fd);
        return NULL;
    }
    rf_run_lock *lock = g_new(rf_run_lock, 1);
    lock->fd = fd;
    return lock;
}

void rf_run_lock_release(rf_run_lock *lock)
{
    if (lock == NULL)
        return;
    /* emptied before the lock goes, so the file does not name a holder
     * that let go (a killed holder's pid stays: see nameable); if it
     * cannot be, a refusal while a check holds the lock for an instant may
     * name this process, nothing worse */
    int emptied = ftruncate(lock->fd, 0);
    (void)emptied;
    close(lock->fd);
    g_free(lock);
}

gboolean rf_run_lock_check(const char *dir, GError **error)
{
    g_autofree char *path = g_build_filename(dir, RF_RUN_LOCK_FILE, NULL);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)   /* no lock file: never trained by a locking process (or unreadable: nothing to tell) */
        return TRUE;
    holder_info h = {0};
    int got = lock_or_holder(fd, LOCK_SH, &h);
    gboolean ours = got > 0 && h.pid == (long)getpid() && on_this_host(&h);
    gboolean free_now = got == 0 || got < 0 || ours;   /* a lock that fails to answer tells nothing either */
    if (!free_now)
        refuse(error, dir, &h);
    holder_info_clear(&h);
    close(fd);   /* and with it the instant's shared lock */
    return free_now;
}
