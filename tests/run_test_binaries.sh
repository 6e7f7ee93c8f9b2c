#!/usr/bin/env bash
# make test: runs each test binary with the same Catch2 arguments and adds up their tallies.
# Usage: run_test_binaries.sh 'CATCH2 ARGUMENTS' BINARY...
# Each binary ends with "tests: N passed, M failed, K skipped"; the sum is printed the same way,
# and the exit code is 1 if any test failed or any binary did not finish.
set -uo pipefail
read -r -a args <<< "$1"
shift
passed=0; failed=0; skipped=0; broken=0
for binary in "$@"; do
    echo "---- $binary ${args[*]}"
    output=$("$binary" "${args[@]}" 2>&1)
    rc=$?
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
echo
[ "$broken" -gt 0 ] && echo "test binaries that did not finish cleanly: $broken"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
