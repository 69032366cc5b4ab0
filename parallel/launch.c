#include "launch.h"

#include <unistd.h>

gboolean rf_launched_by_mpi(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
    for (size_t i = 0; i < G_N_ELEMENTS(vars); i++)
        if (g_getenv(vars[i]) != NULL)
            return TRUE;
    return FALSE;
}

gboolean rf_launch_kind_parse(const char *name, rf_launch_kind *out)
{
    if (g_strcmp0(name, "mpirun") == 0)
        *out = RF_LAUNCH_MPIRUN;
    else if (g_strcmp0(name, "slurm") == 0)
        *out = RF_LAUNCH_SLURM;
    else
        return FALSE;
    return TRUE;
}

/* `rangefinder train --config ... --set ... --out ...`, each word quoted */
static void append_train(GString *s, const rf_launch *l)
{
    g_autofree char *exe = g_shell_quote(l->exe), *config = g_shell_quote(l->config_path),
                    *out = g_shell_quote(l->out_dir);
    g_string_append_printf(s, "%s train --config %s", exe, config);
    for (const char *const *set = l->sets; set != NULL && *set != NULL; set++) {
        g_autofree char *q = g_shell_quote(*set);
        g_string_append_printf(s, " --set %s", q);
    }
    g_string_append_printf(s, " --out %s", out);
}

/* Threads per rank: train.threads, or one (0 means "all cores", which
 * ranks sharing a node would fight over). */
static int threads_per_rank(const rf_config *cfg)
{
    return cfg->train.threads > 0 ? cfg->train.threads : 1;
}

static void append_mpirun(GString *s, const rf_launch *l, const rf_config *cfg, gboolean in_slurm)
{
    g_string_append(s, "mpirun");
    if (!in_slurm)
        g_string_append_printf(s, " -np %d", l->ranks);
    if (geteuid() == 0)
        g_string_append(s, " --allow-run-as-root");
    int threads = threads_per_rank(cfg);
    if (threads > 1)   /* the default binds each rank to one core */
        g_string_append_printf(s, " --map-by slot:PE=%d", threads);
    g_string_append(s, " ");
    append_train(s, l);
    if (cfg->train.threads == 0)
        g_string_append(s, " --set train.threads=1");
}

char *rf_launch_text(const rf_launch *l, const rf_config *cfg, GError **error)
{
    if (l->ranks < 1 || cfg->data.batch % l->ranks != 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "data.batch = %d does not split over %d ranks: it is the global batch, each rank takes "
                    "data.batch / ranks; choose a rank count that divides it or change data.batch",
                    cfg->data.batch, l->ranks);
        return NULL;
    }
    GString *s = g_string_new(NULL);
    if (l->kind == RF_LAUNCH_MPIRUN) {
        append_mpirun(s, l, cfg, FALSE);
        g_string_append_c(s, '\n');
        return g_string_free(s, FALSE);
    }
    g_autofree char *name = g_path_get_basename(l->out_dir);
    g_string_append_printf(s,
                           "#!/bin/bash\n"
                           "# Rangefinder: %s on %d ranks (data.batch %d, %d per rank), written by\n"
                           "# `rangefinder train --print-launch slurm`. Submit with: sbatch THIS_FILE\n"
                           "# The run folder must be on a file system every node sees; rank 0 writes it.\n"
                           "#SBATCH --job-name=rangefinder-%s\n"
                           "#SBATCH --ntasks=%d\n"
                           "#SBATCH --cpus-per-task=%d\n",
                           cfg->model.encoder, l->ranks, cfg->data.batch, cfg->data.batch / l->ranks, name, l->ranks,
                           threads_per_rank(cfg));
    if (g_str_has_prefix(cfg->train.device, "cuda"))
        g_string_append(s, "#SBATCH --gpus-per-task=1\n");
    g_string_append(s, "#SBATCH --output=%x-%j.out\n");
    append_mpirun(s, l, cfg, TRUE);
    g_string_append_c(s, '\n');
    return g_string_free(s, FALSE);
}
