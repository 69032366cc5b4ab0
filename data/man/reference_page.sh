#!/usr/bin/env bash
# docs/reference.md: every verb's --help and the whole key table (config
# --list), as the built program prints them, so the guide's reference cannot
# drift from the program (test `reference` compares the committed page with
# a fresh one). Paths that name this build (the source tree's data/, the
# user's home) become the installed ones, as in the man pages.
#
#   reference_page.sh RANGEFINDER BUILD_DATADIR > docs/reference.md
set -euo pipefail
rf=$1 build_data=$2
export LC_ALL=C.UTF-8 HOME=/rf-man-home ASAN_OPTIONS=detect_leaks=0
unset XDG_DATA_HOME
installed_paths() {
    sed -e "s|$build_data|/usr/share/rangefinder|g" -e 's|/rf-man-home|~|g'
}
fence='```'
echo "# Reference: the command line and the configuration keys"
echo
echo "Made from the program itself (\`data/man/reference_page.sh\`): each verb's"
echo "\`--help\` and \`rangefinder config --list\`, as \`rangefinder\` prints them."
echo "The suite's test \`reference\` fails when this page and the program differ."
echo "The same text is in the man pages (\`man rangefinder-VERB\`,"
echo "\`man 5 rangefinder-config\`). What the verbs are for is in [cli.md](cli.md),"
echo "what the keys mean together in [configuration.md](configuration.md)."
echo
echo "## rangefinder"
echo
echo "$fence"
"$rf" --help | installed_paths
echo "$fence"
for verb in $("$rf" --help | sed -nE 's/^  ([a-z][a-z-]*) {2,}.*/\1/p'); do
    echo
    echo "## rangefinder $verb"
    echo
    echo "$fence"
    "$rf" "$verb" --help | installed_paths
    echo "$fence"
done
echo
echo "## Configuration keys"
echo
echo "Key, default, accepted values, meaning (\`rangefinder config --list\`):"
echo
echo "$fence"
"$rf" config --list | installed_paths
echo "$fence"
