#!/usr/bin/env bash
# Whether two builds' test binaries hold the same test cases outside [gpu]: the build without
# the CUDA Toolkit must run every emulated test case that the nvcc build runs.
# Usage: same_test_cases.sh BUILD_A BUILD_B   (e.g. build build-cxx)
# On a machine without a GPU each binary lists only the test cases that it would run there.
set -uo pipefail
first=$1 second=$2
cases_of() {
    "$1" --list-test-names-only 2>/dev/null | grep -v -e '^\[gpu\] tests: ' -e '^tests: ' | sort
}
total=0; differing=0
for binary in "$first"/tests/test_*; do
    [ -x "$binary" ] && [ -f "$binary" ] || continue
    name=$(basename "$binary")
    if [ ! -x "$second/tests/$name" ]; then
        echo "same_test_cases: $second/tests/$name is missing"
        differing=$((differing + 1))
        continue
    fi
    difference=$(diff <(cases_of "$binary") <(cases_of "$second/tests/$name"))
    if [ -n "$difference" ]; then
        echo "same_test_cases: $name differs ('<' only in $first, '>' only in $second):"
        printf '%s\n' "$difference" | grep '^[<>]'
        differing=$((differing + 1))
    fi
    total=$((total + $(cases_of "$binary" | wc -l)))
done
if [ "$differing" -gt 0 ]; then
    echo "same_test_cases: $differing test binaries differ between $first and $second"
    exit 1
fi
echo "same_test_cases: $first and $second run the same $total test cases without a GPU"
