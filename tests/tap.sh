# TAP for the shell tests, sourced after `set -u`:
#   ok STATUS NAME [FILE...]  one line, "ok N - NAME" when STATUS is 0; on a
#                             failure each FILE that exists (else $TAP_DETAIL's
#                             file, when set) as "# " comments, 20 lines at most
#   tap_end                   the plan; its status is the tests' (0: all passed)
count=0
failed=0

ok() {
    local status=$1 name=$2
    shift 2
    count=$((count + 1))
    if [ "$status" -eq 0 ]; then
        echo "ok $count - $name"
        return
    fi
    failed=$((failed + 1))
    echo "not ok $count - $name"
    [ $# -gt 0 ] || set -- ${TAP_DETAIL:+"$TAP_DETAIL"}
    for detail in "$@"; do
        [ -f "$detail" ] && tail -n 20 "$detail" | sed 's/^/# /'
    done
    return 0
}

tap_end() {
    echo "1..$count"
    [ "$failed" -eq 0 ]
}
