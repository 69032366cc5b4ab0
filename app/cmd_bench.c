/* `rangefinder bench`: time training steps of a config and measure memory
 * against the plan. */
#include <stdio.h>
#include <stdlib.h>

#include "../core/alloc.h"
#include "../core/bandwidth.h"
#include "../core/blas_kernels.h"
#include "../core/device.h"
#include "../core/exec.h"
#include "../core/flops.h"
#include "../core/peak.h"
#include "../core/cpu/cpu_features.h"
#include "../core/gemm.h"
#include "../core/tiles.h"
#include "../core/traffic.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "bench_inference.h"
#include "bench_profile.h"
#include "cli.h"
#include "data_open.h"
#include "commands.h"
#include "config_file.h"
#include "json_line.h"
#include "ranks.h"

#define MAX_STEPS 1000000

typedef struct bench_result {
    double step_median, step_min, data_wait_fraction;
    int64_t params;
    size_t planned, graph, peak_engine, peak_rss;
    size_t peak_device;   /* a GPU run: the most device memory held; 0 on the CPU */
    int seq;
    /* under mpirun: the gradient averaging per step, seconds */
    double sync_alone;    /* one averaging with nothing to hide it (median of 3) */
    double sync_waited;   /* what the steps waited for it after backward */
    size_t sync_bytes;
    rf_step_flops flops;  /* planned: whole tensors */
    double flops_ran;     /* what the measured steps ran, per step (rf_model_step_flops_ran) */
} bench_result;

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static size_t device_peak(const rf_config *cfg)
{
    const rf_backend *b = rf_device_plan_backend(cfg->train.device, NULL);
    return b != NULL && b->peak_bytes != NULL ? b->peak_bytes() : 0;
}

static double percent_of(size_t bytes, size_t planned)
{
    return planned > 0 ? 100.0 * ((double)bytes - (double)planned) / (double)planned : 0.0;
}

/* The bounds `--profile` measures each op against: this CPU's, measured; on
 * a GPU, whose own peak is not measured, `device` (--device-bounds: none
 * when not given). */
static rf_machine_bounds machine_bounds(const rf_config *cfg, rf_machine_bounds device)
{
    rf_machine_bounds m = {0, 0};
    if (device_peak(cfg) > 0)
        return device;
    int threads = rf_cli_threads(cfg->train.threads);
    m.flops_per_s = 1e9 * rf_peak_gflops(threads, NULL);
    rf_pool *pool = rf_pool_new(threads);
    m.bytes_per_s = rf_copy_bandwidth(pool);
    rf_pool_free(pool);
    return m;
}

/* --device-bounds GFLOPS,GBPS: both positive. */
static gboolean parse_device_bounds(const char *text, rf_machine_bounds *m, GError **error)
{
    double gflops = 0, gbps = 0;
    char end = 0;
    if (sscanf(text, "%lf,%lf%c", &gflops, &gbps, &end) != 2 || !(gflops > 0) || !(gbps > 0))
        return g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                           "bench: --device-bounds wants GFLOP/S,GB/S, two positive numbers (e.g. 67000,4300), "
                           "not '%s'", text), FALSE;
    *m = (rf_machine_bounds){gflops * 1e9, gbps * 1e9};
    return TRUE;
}

static gboolean bench(rf_config *cfg, int steps, int warmup, gboolean profile, rf_machine_bounds device,
                      bench_result *r, GError **error)
{
    /* Room for every step in the schedule, so the learning rate stays sane. */
    if (cfg->train.steps < warmup + steps)
        cfg->train.steps = warmup + steps;
    /* A device that queues steps is read after each one, so every step's
     * time is its whole time on the device (training reads it only every
     * train.log_every steps, overlapping more). */
    const rf_backend *b = rf_device_plan_backend(cfg->train.device, NULL);
    if (b != NULL && b->queue_step != NULL)
        cfg->train.log_every = 1;
    rf_status st = {0};
    rf_dataset *ds = rf_cli_open_data(cfg, &st);
    if (ds == NULL)
        return rf_cli_fail_status(error, &st);
    rf_trainer *t = rf_trainer_new_parallel(cfg, ds, rf_ranks_collective(), &st);
    g_autofree double *seconds = g_new(double, steps);
    double wait = 0, total = 0, ran = 0;
    gboolean ok = t != NULL;
    rf_metrics m;
    rf_op_profile prof = {0};
    for (int i = 0; ok && i < warmup + steps; i++) {
        if (profile && i == warmup) {
            rf_graph_set_profile(rf_trainer_model(t)->graph, &prof);
            rf_gemm_reset_calls();
        }
        ok = rf_trainer_step(t, &m, &st);
        if (ok && i >= warmup) {
            seconds[i - warmup] = m.step_seconds;
            wait += m.data_wait;
            total += m.step_seconds;
            rf_step_flops step;
            rf_model_step_flops_ran(rf_trainer_model(t), &step);
            ran += step.total;
        }
    }
    rf_step_flops flops;
    if (ok)
        rf_model_step_flops(rf_trainer_model(t), &flops);
    size_t peak_rss = rf_process_peak_rss_bytes();   /* before the profile's bandwidth buffers */
    if (ok && profile && rf_ranks_writer()) {
        rf_step_bytes bytes;
        rf_graph_step_bytes(rf_trainer_model(t)->graph, &bytes);
        rf_machine_bounds bounds = machine_bounds(cfg, device);
        rf_bench_print_profile(stderr, &prof, &flops, &bytes, &bounds, steps);
        rf_gemm_report(stderr, steps);
        rf_tiles_report(stderr);
    }
    const rf_grad_sync *sync = ok ? rf_trainer_grad_sync(t) : NULL;
    if (sync != NULL) {
        rf_grad_sync_stats before = rf_grad_sync_stats_get(sync);
        double alone[3];
        for (int i = 0; i < 3; i++)
            alone[i] = rf_trainer_time_grad_sync(t);
        r->sync_alone = median(alone, 3);
        r->sync_waited = before.wait_seconds / before.steps;
        r->sync_bytes = before.floats * sizeof(float);
    }
    if (ok) {
        const rf_memory_plan *plan = rf_trainer_plan(t);
        bench_result sync_part = *r;
        double step_median = median(seconds, steps), step_min = seconds[0];   /* median() sorts */
        *r = (bench_result){
            .step_median = step_median,
            .step_min = step_min,
            .data_wait_fraction = total > 0 ? wait / total : 0,
            .params = plan->param_count,
            .planned = plan->total,
            .graph = plan->graph,
            .peak_engine = rf_alloc_peak_bytes(),
            .peak_rss = peak_rss,
            .peak_device = device_peak(cfg),
            .seq = rf_trainer_model(t)->seq_len,
            .sync_alone = sync_part.sync_alone,
            .sync_waited = sync_part.sync_waited,
            .sync_bytes = sync_part.sync_bytes,
            .flops = flops,
            .flops_ran = ran / steps,
        };
    }
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return ok ? TRUE : rf_cli_fail_status(error, &st);
}

/* The share of the averaging's own time that backward covered. */
static double hidden_fraction(const bench_result *r)
{
    if (r->sync_alone <= 0)
        return 0;
    double f = 1 - r->sync_waited / r->sync_alone;
    return f < 0 ? 0 : f;
}

/* The FLOP rate of the products a step ran (a row scope's skipped rows left
 * out) and its fraction of this CPU's matrix-product
 * ceiling (core/peak.h; measured once and cached, after the steps so its
 * buffers stay out of the peak RSS). The ceiling is the CPU's: a GPU run
 * reports its rate only. */
typedef struct bench_rate {
    double gflops_per_s, peak_gflops, efficiency;
} bench_rate;

static bench_rate rate_of(const bench_result *r, int threads)
{
    bench_rate b = {r->step_median > 0 ? r->flops_ran / r->step_median / 1e9 : 0, 0, 0};
    if (r->peak_device == 0) {
        b.peak_gflops = rf_peak_gflops(threads, NULL);
        b.efficiency = b.peak_gflops > 0 ? b.gflops_per_s / b.peak_gflops : 0;
    }
    return b;
}

/* The attention tiles this process chose, per head width: "64x256 at dk =
 * 8 (timed now), ..." ("none" when no full attention ran). */
static char *tiles_text(void)
{
    rf_tile_entry e[16];
    int n = rf_tiles_entries(e, 16);
    GString *s = g_string_new(n == 0 ? "none" : "");
    for (int i = 0; i < n && i < 16; i++) {
        char name[32];
        g_string_append_printf(s, "%s%s at dk = %d (%s)", i > 0 ? ", " : "",
                               rf_attn_tile_name(e[i].tile, name, sizeof name), e[i].dk,
                               rf_tile_origin_name(e[i].origin));
    }
    return g_string_free(s, FALSE);
}

/* The same as a JSON array: [{"dk": 8, "tile": "64x256", "choice": "timed now"}]. */
static char *tiles_json(void)
{
    rf_tile_entry e[16];
    int n = rf_tiles_entries(e, 16);
    GString *s = g_string_new("[");
    for (int i = 0; i < n && i < 16; i++) {
        char name[32];
        g_string_append_printf(s, "%s{\"dk\": %d, \"tile\": \"%s\", \"choice\": \"%s\"}", i > 0 ? ", " : "", e[i].dk,
                               rf_attn_tile_name(e[i].tile, name, sizeof name), rf_tile_origin_name(e[i].origin));
    }
    g_string_append(s, "]");
    return g_string_free(s, FALSE);
}

static void print_table(const rf_config *cfg, const bench_result *r, double tokens, int threads,
                        const bench_rate *rate)
{
    g_autofree char *planned = rf_cli_format_bytes(r->planned);
    g_autofree char *engine = rf_cli_format_bytes(r->peak_engine);
    g_autofree char *rss = rf_cli_format_bytes(r->peak_rss);
    printf("encoder            %s\n", cfg->model.encoder);
    printf("batch x length     %d x %d\n", cfg->data.batch, r->seq);
    printf("threads            %d\n", threads);
    printf("BLAS kernels       %s\n", rf_blas_kernels());
    printf("matrix products    train.gemm = %s, train.precision = %s\n", rf_gemm_mode(), rf_gemm_precision());
    g_autofree char *tiles = tiles_text();
    printf("attention tiles    %s (RF_TILES = %s; CPU %s)\n", tiles, rf_tiles_mode(), rf_cpu_key());
    printf("recomputation      train.recompute = %s\n", cfg->train.recompute);
    printf("parameters         %lld\n", (long long)r->params);
    printf("step (median)      %.4f s (fastest %.4f s)\n", r->step_median, r->step_min);
    printf("tokens/s           %.0f\n", tokens);
    printf("FLOPs per step     %.4g GFLOP planned, %.4g run (%.1f GFLOP/s)\n", r->flops.total / 1e9,
           r->flops_ran / 1e9, rate->gflops_per_s);
    if (rate->peak_gflops > 0)
        printf("efficiency         %.1f%% of %.1f GFLOP/s (this CPU's best matrix product, %d threads)\n",
               100 * rate->efficiency, rate->peak_gflops, threads);
    printf("waiting for data   %.1f%% of step time\n", 100 * r->data_wait_fraction);
    g_autofree char *graph = rf_cli_format_bytes(r->graph);
    printf("planned memory     %s (graph bookkeeping %s besides)\n", planned, graph);
    if (r->peak_device > 0) {
        g_autofree char *device = rf_cli_format_bytes(r->peak_device);
        printf("device peak        %s (%+.1f%% of planned; on %s)\n", device, percent_of(r->peak_device, r->planned),
               cfg->train.device);
        printf("host engine peak   %s\n", engine);
    } else {
        printf("engine peak        %s (%+.1f%% of planned)\n", engine, percent_of(r->peak_engine, r->planned));
    }
    printf("process peak RSS   %s\n", rss);
    if (rf_ranks_count() > 1) {
        g_autofree char *bytes = rf_cli_format_bytes(r->sync_bytes);
        printf("ranks (MPI)        %d, %d samples each\n", rf_ranks_count(), cfg->data.batch / rf_ranks_count());
        printf("gradient allreduce %s per step: %.4f s alone, %.4f s waited after backward (%.0f%% hidden)\n", bytes,
               r->sync_alone, r->sync_waited, 100 * hidden_fraction(r));
    }
}

static void print_inference(const rf_inference_bench *inf, double train_samples)
{
    g_autofree char *planned = rf_cli_format_bytes(inf->planned), *engine = rf_cli_format_bytes(inf->peak_engine);
    printf("training samples/s %.1f\n", train_samples);
    double x = train_samples > 0 ? 1 / train_samples : 0;
    printf("inference samples/s %.1f (%.2fx training's; %d test batches from short to long, each on %s, "
           "forward only)\n", inf->samples_per_s, inf->samples_per_s * x, inf->batches,
           inf->buckets > 0 ? "the shortest length bucket that holds it" : "the full length");
    if (inf->buckets > 0)
        printf("  padded to the full length: %.1f samples/s (%.2fx training's); %d of %d length buckets used\n",
               inf->padded_samples_per_s, inf->padded_samples_per_s * x, inf->buckets_used, inf->buckets);
    printf("inference memory   %s planned, engine peak %s\n", planned, engine);
}

int rf_cmd_bench(int argc, char **argv)
{
    g_autofree char *config = NULL, *device_bounds = NULL;
    g_auto(GStrv) sets = NULL;
    int steps = 10, warmup = 2;
    gboolean json = FALSE, profile = FALSE, inference = FALSE;
    const GOptionEntry entries[] = {
        {"config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Config file (INI)", "FILE"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable)", "SECTION.KEY=VALUE"},
        {"steps", 'n', 0, G_OPTION_ARG_INT, &steps, "Timed steps (default 10)", "N"},
        {"warmup", 'w', 0, G_OPTION_ARG_INT, &warmup, "Untimed steps first (default 2)", "N"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL},
        {"profile", 0, 0, G_OPTION_ARG_NONE, &profile,
         "Also print the time, FLOPs and bytes per op kind, against its roofline bound (to stderr)", NULL},
        {"device-bounds", 0, 0, G_OPTION_ARG_STRING, &device_bounds,
         "With --profile on a GPU: its f32 peak and copy bandwidth (bytes read + written), which bench does "
         "not measure there, as the bounds",
         "GFLOPS,GBPS"},
        {"inference", 0, 0, G_OPTION_ARG_NONE, &inference,
         "Also time forward-only batched inference (the build `predict` uses): samples/s against training's",
         NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Time training steps of a config: median step time, tokens/s, the share of time spent\n"
        "waiting for data, planned memory against the engine's measured peak, and peak RSS; the\n"
        "FLOPs of a step (forward, backward and optimizer, counted by the planner), their rate and\n"
        "its fraction of this CPU's matrix-product peak (measured once, then cached in\n"
        "$XDG_CACHE_HOME/rangefinder/). With --inference, also forward-only batched inference at\n"
        "data.batch on predict's build (8 test batches from short to long, batch assembly included,\n"
        "with length buckets and padded) and its samples/s against the training step's. The\n"
        "fastest step is printed beside the median: on a shared machine compare the fastest of\n"
        "runs alternated between builds. Nothing else is written to disk.");
    g_option_context_set_description(ctx,
        "Example:\n  rangefinder bench --config data/configs/listops-full.ini --set train.threads=1 --json\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "bench", &argc, &argv, &error))
        return rf_cli_report(error);
    if (config == NULL)
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "bench needs --config FILE (see `rangefinder bench --help`)");
    else if (steps < 1 || steps > MAX_STEPS || warmup < 0 || warmup > MAX_STEPS)
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "bench: --steps must be in 1..%d and --warmup in 0..%d", MAX_STEPS, MAX_STEPS);
    rf_machine_bounds device = {0, 0};
    if (error == NULL && device_bounds != NULL)
        parse_device_bounds(device_bounds, &device, &error);
    if (error != NULL)
        return rf_cli_report(error);

    rf_config cfg;
    bench_result r = {0};
    rf_inference_bench inf = {0};
    /* loaded before the call: its arguments' order of evaluation is unspecified */
    gboolean loaded = rf_config_load_ini(config, (const char *const *)sets, &cfg, &error);
    if (!rf_ranks_agree(loaded, error))
        return rf_cli_exit_code(error);
    if (!bench(&cfg, steps, warmup, profile, device, &r, &error) ||
        (inference && !rf_bench_inference(&cfg, steps, warmup, &inf, &error))) {
        if (rf_ranks_count() > 1)
            rf_ranks_fail_alone(error->message, RF_EXIT_FAILED);
        return rf_cli_report(error);
    }
    if (!rf_ranks_writer())
        return RF_EXIT_OK;
    double tokens = r.step_median > 0 ? (double)cfg.data.batch * r.seq / r.step_median : 0;
    double train_samples = r.step_median > 0 ? cfg.data.batch / r.step_median : 0;
    int threads = rf_cli_threads(cfg.train.threads);
    bench_rate rate = rate_of(&r, threads);
    if (!json) {
        print_table(&cfg, &r, tokens, threads, &rate);
        if (inference)
            print_inference(&inf, train_samples);
        return RF_EXIT_OK;
    }
    rf_json_line j;
    rf_json_begin(&j);
    rf_json_num(&j, "step_s_median", r.step_median);
    rf_json_num(&j, "step_s_min", r.step_min);
    rf_json_num(&j, "tokens_per_s", tokens);
    rf_json_int(&j, "peak_rss_bytes", (int64_t)r.peak_rss);
    rf_json_int(&j, "planned_bytes", (int64_t)r.planned);
    rf_json_int(&j, "graph_bytes", (int64_t)r.graph);
    rf_json_int(&j, "peak_engine_bytes", (int64_t)r.peak_engine);
    rf_json_str(&j, "device", cfg.train.device);
    if (r.peak_device > 0)
        rf_json_int(&j, "peak_device_bytes", (int64_t)r.peak_device);
    rf_json_int(&j, "params", r.params);
    rf_json_num(&j, "data_wait_fraction", r.data_wait_fraction);
    rf_json_num(&j, "flops_per_step", r.flops.total);
    rf_json_num(&j, "flops_ran_per_step", r.flops_ran);
    rf_json_num(&j, "gflops_per_s", rate.gflops_per_s);
    if (rate.peak_gflops > 0) {
        rf_json_num(&j, "peak_gflops", rate.peak_gflops);
        rf_json_num(&j, "efficiency", rate.efficiency);
    }
    rf_json_str(&j, "encoder", cfg.model.encoder);
    rf_json_int(&j, "seq", r.seq);
    rf_json_int(&j, "batch", cfg.data.batch);
    rf_json_int(&j, "threads", threads);
    rf_json_str(&j, "blas_kernels", rf_blas_kernels());
    rf_json_str(&j, "gemm", rf_gemm_mode());
    rf_json_str(&j, "precision", rf_gemm_precision());
    rf_json_str(&j, "cpu", rf_cpu_key());
    rf_json_str(&j, "tiles", rf_tiles_mode());
    g_autofree char *tiles = tiles_json();
    rf_json_raw(&j, "attention_tiles", tiles);
    rf_json_str(&j, "recompute", cfg.train.recompute);
    rf_json_int(&j, "steps", steps);
    rf_json_int(&j, "warmup", warmup);
    if (rf_ranks_count() > 1) {
        rf_json_int(&j, "ranks", rf_ranks_count());
        rf_json_int(&j, "allreduce_bytes_per_step", (int64_t)r.sync_bytes);
        rf_json_num(&j, "allreduce_s_alone", r.sync_alone);
        rf_json_num(&j, "allreduce_s_waited", r.sync_waited);
        rf_json_num(&j, "allreduce_hidden_fraction", hidden_fraction(&r));
    }
    if (inference) {
        rf_json_num(&j, "train_samples_per_s", train_samples);
        rf_json_num(&j, "inference_samples_per_s", inf.samples_per_s);
        rf_json_num(&j, "inference_batch_s_median", inf.batch_median);
        rf_json_num(&j, "inference_speedup", train_samples > 0 ? inf.samples_per_s / train_samples : 0);
        rf_json_num(&j, "inference_padded_samples_per_s", inf.padded_samples_per_s);
        rf_json_num(&j, "inference_padded_speedup", train_samples > 0 ? inf.padded_samples_per_s / train_samples : 0);
        rf_json_int(&j, "inference_batches", inf.batches);
        rf_json_int(&j, "inference_length_buckets", inf.buckets);
        rf_json_int(&j, "inference_length_buckets_used", inf.buckets_used);
        rf_json_int(&j, "inference_planned_bytes", (int64_t)inf.planned);
        rf_json_int(&j, "inference_peak_engine_bytes", (int64_t)inf.peak_engine);
    }
    rf_json_print(&j);
    return RF_EXIT_OK;
}
