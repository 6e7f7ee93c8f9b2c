#!/usr/bin/env bash
# make test: runs each test binary with the same Catch2 arguments and adds up their tallies.
# Usage: run_test_binaries.sh 'CATCH2 ARGUMENTS' BINARY...
# Each binary ends with "tests: N passed, M failed, K skipped"; the sum is printed the same way,
# and the exit code is 1 if any test failed or any binary did not finish.
# TEST_JOBS binaries run at once (the number of cores by default): each one's test cases run one
# after another, so one core each. Their outputs are printed whole, in the order given.
set -uo pipefail
read -r -a args <<< "$1"
shift
binaries=("$@")
jobs=${TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
outputs=$(mktemp -d)
trap 'rm -rf "$outputs"' EXIT

passed=0; failed=0; skipped=0; broken=0
printed=0
# Prints, in order, every output whose binary has finished and whose predecessors are printed.
print_finished() {
    while [ "$printed" -lt "${#binaries[@]}" ] && [ -f "$outputs/$printed.rc" ]; do
        local binary=${binaries[$printed]} rc output tally p f s
        rc=$(cat "$outputs/$printed.rc")
        output=$(cat "$outputs/$printed.out")
        printed=$((printed + 1))
        echo "---- $binary ${args[*]-}"
        printf '%s\n' "$output" | grep -v '^tests: '
        tally=$(printf '%s\n' "$output" | grep '^tests: ' | tail -n 1)
        if [ -z "$tally" ]; then
            echo "---- $binary ended without a tally (exit $rc)"
            broken=$((broken + 1))
            continue
        fi
        read -r p f s <<< "$(sed -E 's/^tests: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/' <<< "$tally")"
        passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
        [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && broken=$((broken + 1)) && echo "---- $binary exit $rc"
    done
}

# bash 3.2 (a Mac's) has no `wait -n`: the running jobs are counted instead.
for i in "${!binaries[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        sleep 0.2
        print_finished
    done
    { "${binaries[$i]}" ${args[@]+"${args[@]}"} > "$outputs/$i.out" 2>&1; echo $? > "$outputs/$i.rc.partial"
      mv "$outputs/$i.rc.partial" "$outputs/$i.rc"; } &
done
while [ "$printed" -lt "${#binaries[@]}" ]; do
    sleep 0.2
    print_finished
done
wait

echo
[ "$broken" -gt 0 ] && echo "test binaries that did not finish cleanly: $broken"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
