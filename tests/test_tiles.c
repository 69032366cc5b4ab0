/* The kernels' tiles chosen per CPU (core/tiles.h) and their cache file
 * (core/tiles_cache.h): the candidate list against the bounds the
 * planner sizes scratch with; RF_TILES's modes; a prepared graph's
 * attention node taking the tile and its scratch sized for it; the CPU
 * key; the cache's round trip (timed once, read back, the fastest kept);
 * corrupt files refused whole, naming the line; another CPU's lines kept
 * and unused; a line that timed another candidate list timed again. The
 * kernels with each candidate are checked against the reference by
 * ops_conv_attn's reruns (suite `tiles`). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu/cpu_features.h"
#include "../core/exec.h"
#include "../core/tiles_cache.h"
#include "cache_refusals.h"
#include "tap.h"

static bool same(rf_attn_tile a, rf_attn_tile b)
{
    return a.qb == b.qb && a.kb == b.kb && a.lanes == b.lanes;
}

static void test_candidates(void)
{
    bool bounded = true, distinct = true, fits = true;
    for (int i = 0; i < RF_ATTN_TILES; i++) {
        rf_attn_tile t = rf_attn_tiles[i];
        bounded &= t.qb >= RF_ATTN_QB_MIN && t.qb <= RF_ATTN_QB_MAX && t.kb >= RF_ATTN_KB_MIN &&
                   t.kb <= RF_ATTN_KB_MAX && t.qb * t.kb <= RF_ATTN_BLOCK_MAX && t.kb % 16 == 0;
        for (int j = 0; j < i; j++)
            distinct &= !same(t, rf_attn_tiles[j]);
        for (int64_t n = 1; n < 5000; n += 997)
            fits &= rf_attn_thread_floats(t, n) <= rf_attn_thread_floats((rf_attn_tile){0, 0, 0}, n);
    }
    tap_ok(bounded && distinct, "%d distinct candidates within the bounds scratch is sized with (blocks of at most "
           "%d floats, key blocks whole vectors)", RF_ATTN_TILES, RF_ATTN_BLOCK_MAX);
    tap_ok(same(rf_attn_tiles[0], (rf_attn_tile){RF_ATTN_DEFAULT_QB, RF_ATTN_DEFAULT_KB, 0}), "the default comes first");
    tap_ok(fits, "the scratch of a plan without a tile holds any candidate's");
}

/* Every candidate's name parses back to it; names that are not a tile's
 * are refused. */
static void test_names(void)
{
    bool round_trip = true;
    for (int i = 0; i < RF_ATTN_TILES; i++) {
        char name[32];
        rf_attn_tile t = {0};
        round_trip &= rf_attn_tile_parse(rf_attn_tile_name(rf_attn_tiles[i], name, sizeof name), &t) &&
                      same(t, rf_attn_tiles[i]);
    }
    rf_attn_tile t = {0};
    tap_ok(round_trip && rf_attn_tile_parse("64x256-lanes", &t) && same(t, (rf_attn_tile){64, 256, 1}),
           "every candidate's name reads back as the candidate (64x256-lanes: the lanes kernel)");
    static const char *const bad[] = {"64x256-lane", "64x256-lanesx", "64x", "x256", "64256", "-1x256", "64x+256",
                                      "0x256", "64x65537", "64 x256", "64x256 ", ""};
    bool refused = true;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        refused &= !rf_attn_tile_parse(bad[i], &t);
    tap_ok(refused, "names that are not a tile are refused (a wrong suffix, a missing or signed block, 0, 65,537)");
}

static void test_cpu_key(void)
{
    const char *key = rf_cpu_key();
    const char *isa = strrchr(key, ',');
    bool isa_ok = isa != NULL && (rf_cpu_avx512() ? strcmp(isa, ", AVX-512") == 0
                                                  : strcmp(isa, ", AVX2") == 0 || strcmp(isa, ", SSE") == 0);
    tap_ok(strstr(key, ", family ") != NULL && strstr(key, ", model ") != NULL && isa_ok && strchr(key, '\t') == NULL,
           "the CPU key names the model, family, model number and ISA in use: %s", key);
}

/* RF_TILES = value (NULL: unset), the choices forgotten. */
static void set_mode(const char *value)
{
    if (value != NULL)
        setenv("RF_TILES", value, 1);
    else
        unsetenv("RF_TILES");
    rf_tiles_forget();
}

static rf_tile_entry entry_for(int dk)
{
    rf_tile_entry e[16], none = {0};
    int n = rf_tiles_entries(e, 16);
    for (int i = 0; i < n && i < 16; i++)
        if (e[i].dk == dk)
            return e[i];
    return none;
}

static void test_modes(void)
{
    set_mode("default");
    rf_attn_tile t = rf_tiles_attention(8);
    tap_ok(same(t, rf_attn_tiles[0]) && entry_for(8).origin == RF_TILE_DEFAULT &&
               strcmp(rf_tiles_mode(), "default") == 0,
           "RF_TILES=default: the default tile");
    bool forced = true;
    for (int i = 1; i < RF_ATTN_TILES; i++) {
        char value[48], name[32];
        snprintf(value, sizeof value, "attention=%s", rf_attn_tile_name(rf_attn_tiles[i], name, sizeof name));
        set_mode(value);
        forced &= same(rf_tiles_attention(8), rf_attn_tiles[i]) && same(rf_tiles_attention(64), rf_attn_tiles[i]) &&
                  entry_for(64).origin == RF_TILE_FORCED && strcmp(rf_tiles_mode(), value) == 0;
    }
    tap_ok(forced, "RF_TILES=attention=QBxKB forces each candidate, whatever the head width");
    set_mode("attention=100x100");
    tap_ok(same(rf_tiles_attention(8), rf_attn_tiles[0]) && strcmp(rf_tiles_mode(), "default") == 0,
           "a tile that is not a candidate is refused (with a warning): the default");

    /* a planned graph's attention takes the tile, and its scratch is sized for it */
    set_mode("attention=128x128");
    const int64_t N = 300;
    rf_graph *g = rf_graph_new(NULL);
    rf_id q = rf_input(g, "q", rf_shape3(1, N, 16), true);
    rf_id a = rf_attention(g, q, q, q, RF_NONE, 2, 0.5f, 0.0f);
    rf_graph_plan_info planned, prepared;
    rf_status st = {0};
    bool ok = rf_graph_plan(g, a, 2, &planned, &st);
    rf_attn_tile got = rf_graph_node(g, a)->tile;
    ok = ok && rf_graph_prepare(g, a, 2, &prepared, &st);
    size_t want = 2 * rf_attn_thread_floats(rf_attn_tiles[1], N) * sizeof(float);
    tap_ok(ok && same(got, rf_attn_tiles[1]) && prepared.scratch_bytes >= want &&
               prepared.scratch_bytes == planned.scratch_bytes,
           "a planned graph's attention runs the tile in force (%dx%d), its scratch sized for it as prepared (%zu "
           "bytes)", got.qb, got.kb, prepared.scratch_bytes);
    set_mode("default");
    ok = rf_graph_prepare(g, a, 2, NULL, &st);
    tap_ok(ok && same(rf_graph_node(g, a)->tile, rf_attn_tiles[1]),
           "preparing the graph again keeps the tile it was prepared with");
    rf_graph_free(g);
}

static void write_text(const char *path, const char *text)
{
    g_file_set_contents(path, text, -1, NULL);
}

/* The timings of every candidate as a cache line's last field, each
 * candidate i taking seconds[i]. */
static char *timings(const double *seconds)
{
    GString *s = g_string_new("");
    for (int i = 0; i < RF_ATTN_TILES; i++) {
        char name[32];
        g_string_append_printf(s, "%s%s:%g", i > 0 ? " " : "", rf_attn_tile_name(rf_attn_tiles[i], name, sizeof name),
                               seconds[i]);
    }
    return g_string_free(s, FALSE);
}

/* The file read as a choice reads it; false (and nothing kept) when untrusted. */
static bool read_tiles_cache(const char *path, rf_status *st)
{
    rf_tiles_cached *lines;
    int count;
    bool trusted = rf_tiles_cache_read(path, &lines, &count, st);
    free(lines);
    return trusted || count > 0;
}

static void test_cache(void)
{
    char *dir = g_dir_make_tmp("rf-tiles-XXXXXX", NULL);
    setenv("XDG_CACHE_HOME", dir, 1);
    char *path = rf_tiles_cache_path();
    tap_ok(path != NULL && g_str_has_prefix(path, dir) && g_str_has_suffix(path, "/rangefinder/tile-choices.tsv"),
           "the cache lives beside the matrix-product choices (%s)", path);

    /* auto: timed the first time, every candidate, the fastest kept and written */
    set_mode(NULL);
    rf_attn_tile t = rf_tiles_attention(8);
    rf_tile_entry e = entry_for(8);
    int fastest = 0;
    bool all_timed = true;
    for (int i = 0; i < RF_ATTN_TILES; i++) {
        all_timed &= e.seconds[i] > 0;
        if (e.seconds[i] < e.seconds[fastest])
            fastest = i;
    }
    tap_ok(e.origin == RF_TILE_TIMED && all_timed && same(t, rf_attn_tiles[fastest]) &&
               strcmp(rf_tiles_mode(), "auto") == 0,
           "auto, first use: every candidate timed, the fastest chosen (%dx%d)", t.qb, t.kb);
    rf_tiles_cached *lines = NULL;
    int count = 0;
    rf_status st = {0};
    bool read = rf_tiles_cache_read(path, &lines, &count, &st);
    tap_ok(read && count == 1 && strcmp(lines[0].cpu, rf_cpu_key()) == 0 && lines[0].dk == 8 &&
               same(lines[0].tile, t) && lines[0].timed == RF_ATTN_TILES,
           "the file holds the choice and its timings, for this CPU");
    free(lines);
    rf_tiles_forget();
    rf_attn_tile again = rf_tiles_attention(8);
    tap_ok(same(again, t) && entry_for(8).origin == RF_TILE_CACHED &&
               fabs(entry_for(8).seconds[fastest] / e.seconds[fastest] - 1) < 1e-8,
           "a second process takes the choice from the file, timing nothing (its timings as written, 9 digits)");

    /* a line the planted timings make 128x128's: taken as it is */
    double planted[RF_ATTN_TILES] = {0.4, 0.1, 0.3, 0.2, 0.5, 0.6};
    char *field = timings(planted), name[32];
    char *text = g_strdup_printf("rangefinder tile choices 1\nImaginary CPU 9000\tattention\t8\t64x128\t%s\n"
                                 "%s\tattention\t8\t%s\t%s\n", "64x256:2 64x128:1", rf_cpu_key(),
                                 rf_attn_tile_name(rf_attn_tiles[1], name, sizeof name), field);
    write_text(path, text);
    rf_tiles_forget();
    tap_ok(same(rf_tiles_attention(8), rf_attn_tiles[1]) && entry_for(8).origin == RF_TILE_CACHED,
           "this CPU's line is used, another CPU's ignored");
    g_free(text);

    /* a line of this CPU that timed another list of candidates is timed
     * again and replaced; the other CPU's line is kept */
    text = g_strdup_printf("rangefinder tile choices 1\nImaginary CPU 9000\tattention\t8\t64x128\t64x256:2 64x128:1\n"
                           "%s\tattention\t8\t64x256\t64x256:1 16x16:2\n", rf_cpu_key());
    write_text(path, text);
    rf_tiles_forget();
    rf_tiles_attention(8);
    read = rf_tiles_cache_read(path, &lines, &count, &st);
    bool replaced = read && count == 2 && strcmp(lines[0].cpu, "Imaginary CPU 9000") == 0 &&
                    strcmp(lines[1].cpu, rf_cpu_key()) == 0 && lines[1].timed == RF_ATTN_TILES;
    tap_ok(entry_for(8).origin == RF_TILE_TIMED && replaced,
           "a line that timed other candidates is timed again and replaced; another CPU's line is kept");
    free(lines);
    g_free(text);

    /* a file that cannot be trusted is refused whole, naming the line */
    static const cache_refusal bad[] = {
        {"a foreign header", "rangefinder gemm choices 1\n", "line 1: the first line is not the header"},
        {"a tile that lost its own timings",
         "rangefinder tile choices 1\nX\tattention\t8\t64x256\t64x256:2 128x128:1\n",
         "line 2: the tile is not the fastest"},
        {"a missing field", "rangefinder tile choices 1\nX\tattention\t64x256\t64x256:1\n",
         "line 2: not 5 tab-separated fields"},
        {"an unknown kernel", "rangefinder tile choices 1\nX\tconv\t8\t64x256\t64x256:1\n",
         "line 2: a kernel other than attention"},
        {"a head width out of range", "rangefinder tile choices 1\nX\tattention\t0\t64x256\t64x256:1\n",
         "line 2: a head width"},
        {"a tile that does not parse", "rangefinder tile choices 1\nX\tattention\t8\t64by256\t64x256:1\n",
         "line 2: a tile not QBxKB"},
        {"a tile with another suffix", "rangefinder tile choices 1\nX\tattention\t8\t64x256-rows\t64x256:1\n",
         "line 2: a tile not QBxKB"},
        {"a timing that is not a number", "rangefinder tile choices 1\nX\tattention\t8\t64x256\t64x256:nan\n",
         "line 2: a timing not"},
        {"a line cut short", "rangefinder tile choices 1\nX\tattention\t8\t64x256\t64x256:0.", "line 2: a line cut"},
    };
    check_cache_refusals(path, bad, sizeof bad / sizeof *bad, read_tiles_cache);
    /* a corrupt file costs a warning and a new timing, and is rewritten */
    text = g_strdup_printf("rangefinder tile choices 1\n%s\tattention\t8\t%s\t%s\ngarbage\n", rf_cpu_key(),
                           rf_attn_tile_name(rf_attn_tiles[1], name, sizeof name), field);
    write_text(path, text);
    rf_tiles_forget();
    rf_tiles_attention(8);
    read = rf_tiles_cache_read(path, &lines, &count, &st);
    tap_ok(entry_for(8).origin == RF_TILE_TIMED && read && count == 1,
           "a corrupt file is not trusted (timed again) and is rewritten whole");
    free(lines);
    g_free(text);
    g_free(field);

    remove_cache_dir(dir, path);
}

int main(void)
{
    test_candidates();
    test_names();
    test_cpu_key();
    test_modes();
    test_cache();
    return tap_done();
}
