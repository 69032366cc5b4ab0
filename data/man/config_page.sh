#!/usr/bin/env bash
# rangefinder-config(5): every config key, from the engine's key table as
# `rangefinder config --list` prints it (key, default, allowed values,
# meaning, in columns two spaces apart), so the page cannot drift from it.
#
#   config_page.sh RANGEFINDER VERSION INSTALLED_DATADIR OUT
set -euo pipefail
rf=$1 version=$2 installed_data=$3 out=$4
export LC_ALL=C.UTF-8 ASAN_OPTIONS=detect_leaks=0
keys=$(mktemp)
trap 'rm -f "$keys"' EXIT
"$rf" config --list >"$keys"
[ -s "$keys" ] || { echo "$0: rangefinder config --list printed no keys" >&2; exit 1; }
{
    cat <<TROFF
.TH RANGEFINDER-CONFIG 5 "" "Rangefinder $version" "File Formats"
.SH NAME
rangefinder-config \\- Rangefinder's config files and their keys
.SH SYNOPSIS
.nf
[\\fIsection\\fR]
\\fIkey\\fR = \\fIvalue\\fR
.fi
.SH DESCRIPTION
A config file is an INI file: each key is set in its section, so
.B model.dim
is
.B dim
under
.BR [model] .
Keys a file leaves out keep their defaults, and
.B \\-\\-set
.I section.key=value
on the command line sets one key over the file.
A run folder's config.ini holds every key of the run.
.B rangefinder config \\-\\-show \\-\\-config
.I FILE
prints a file's effective config;
.B rangefinder config \\-\\-list
prints the table below.
The configs Rangefinder ships are in
.IR $installed_data/configs .
.SH KEYS
Each key with its default and its allowed values: a range
.IR low .. high ,
choices separated by |, or any text.
.ad l
TROFF
    awk -F '  +' '
        # troff text: backslashes escaped, no control character first on a line.
        function text(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); sub(/^[.\x27]/, "\\\\\\&&", s); return s }
        {
            split($1, name, ".")
            if (name[1] != section) { section = name[1]; print ".SS [" section "]" }
            print ".TP"
            print ".B " text($1)
            meaning = text($4)
            sub(/\.$/, "", meaning)
            print meaning "."
            allowed = text($3)
            gsub(/\|/, "|\\:", allowed)   # a long list of choices may break after each |
            print "Default: " text($2) "; allowed: " allowed "."
        }' "$keys"
    cat <<TROFF
.SH SEE ALSO
rangefinder(1), rangefinder-config(1), rangefinder-train(1)
TROFF
} | preconv -e utf-8 | sed '/^\.lf /d' >"$out"
