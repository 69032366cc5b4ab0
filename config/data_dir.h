/* Where the program's shipped files are (configs/default.ini and the other
 * configs), found from the running program's own place, so that an
 * installed tree works wherever its prefix is moved and no path of the
 * source tree is compiled in.
 *
 * An installed program (PREFIX/bin/rangefinder) reads PREFIX/share/rangefinder
 * (meson's bindir and datadir, as configured). A program in a build tree,
 * and the tests beside it, read the folder that the build tree's
 * uninstalled.ini names (written by meson, never installed): the source
 * tree's data/ (and the build tree's data/ for the compiled schema). The
 * file is looked for beside the program and one folder up
 * (build/rangefinder, build/tests/test_gui). */
#ifndef RF_CONFIG_DATA_DIR_H
#define RF_CONFIG_DATA_DIR_H

#include <glib.h>

/* The build tree's file naming its data folder: [uninstalled] datadir=. */
#define RF_UNINSTALLED_FILE "uninstalled.ini"

/* The shipped files' folder: the one uninstalled.ini names, else the
 * installed one. Never NULL: when neither exists it is the installed
 * path, so that errors name the file the program expected. Free with
 * g_free. */
char *rf_data_dir(void);

/* The user guide's first page, README.md (docs/ beside it holds the rest):
 * the source tree's in a build tree (uninstalled.ini's docdir), else the
 * installed datadir/doc/rangefinder/README.md. Free with g_free. */
char *rf_user_guide(void);

/* The folder of the workbench's compiled GSettings schema
 * (gschemas.compiled): the build tree's build/data (uninstalled.ini's
 * schemadir), else the installed datadir/glib-2.0/schemas. Never NULL;
 * the file may be missing (ui/settings.h copes). Free with g_free. */
char *rf_schema_dir(void);

/* `relative` to the running program's folder, e.g. the CUDA module's
 * "../lib/rangefinder/librfcuda.so"; NULL when /proc/self/exe cannot be
 * read. Free with g_free. */
char *rf_path_from_program(const char *relative);

#endif
