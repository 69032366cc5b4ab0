# TAP for the shell tests of rangefinder's commands, sourced after `set -u`
# with $rf (the binary) and $tmp (a scratch folder) set:
#   run ARGS...        rangefinder ARGS in $cwd (default $tmp): stdout in
#                      $tmp/out, stderr in $tmp/err, the exit status in $rc
#   expect_rc N NAME   ok when the last run's status was N
#   ok STATUS NAME     one TAP line; on a failure the last command ($last_cmd),
#                      its status (and the one wanted: $want, if set) and the
#                      tails of its stdout and stderr
#   tap_end            the plan; its status is the tests' (0: all passed)
count=0
failed=0
rc=0
last_cmd=

ok() {
    count=$((count + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $count - $2"
    else
        failed=$((failed + 1))
        echo "not ok $count - $2"
        echo "# last command: ${last_cmd:-}, exit $rc${want:+ (expected $want)}"
        sed 's/^/# stdout: /' "$tmp/out" 2>/dev/null | tail -n 15
        sed 's/^/# stderr: /' "$tmp/err" 2>/dev/null | tail -n 15
    fi
}

run() {
    last_cmd="rangefinder $*"
    (cd "${cwd:-$tmp}" && exec "$rf" "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

expect_rc() {
    local want=$1
    [ "$rc" -eq "$want" ]
    ok $? "$2"
}

tap_end() {
    echo "1..$count"
    [ "$failed" -eq 0 ]
}
