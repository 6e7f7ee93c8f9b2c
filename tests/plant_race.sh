#!/usr/bin/env bash
# The planted races of make races and tests/test_races.cpp. A lesson or a reference solution marks
# the one atomic whose loss ThreadSanitizer must report, on the atomic's own line:
#
#     const int slot = atomic_add_shim(&cursor[key[e]], 1);  // make races plants a plain ++ here
#     atomic_add_shim(&y[rows[k]], values[k] * x[cols[k]]);  // make races plants a plain += here
#
# plant_race.sh --find prints the sources that hold a marked line (the numbered programs and the
# reference solutions), one a line. plant_race.sh SOURCE OUT copies SOURCE to OUT with the marked
# atomic_add_shim(&TARGET, VALUE) written as the plain read-modify-write that the marker names,
# TARGET++ (where VALUE is 1) or TARGET += VALUE, and the marker left out. Line numbers stay as they
# are, and OUT.line gets the planted line's number, which ThreadSanitizer's report must name.
# Usage: plant_race.sh --find | plant_race.sh SOURCE OUT
set -euo pipefail
marker='// make races plants a plain (\+\+|\+=) here'

if [ "${1:-}" = --find ]; then
    cd "$(dirname "$0")/.."
    grep -lE -- "$marker" ch*/[0-9]*.cu solutions/*/*.cu || true
    exit 0
fi
source=$1 out=$2
found=$(grep -cE -- "$marker" "$source" || true)
if [ "$found" -ne 1 ]; then
    echo "plant_race.sh: $source has $found lines marked '$marker', not one" >&2
    exit 2
fi
mkdir -p "$(dirname "$out")"
MARKER=$marker awk -v source="$source" -v line_file="$out.line" '
    function refuse(why) {
        printf "plant_race.sh: %s:%d: %s\n", source, NR, why > "/dev/stderr"
        failed = 1
        exit 2
    }
    function trim(text) {
        gsub(/^[ \t]+|[ \t]+$/, "", text)
        return text
    }
    match($0, "[ \t]*" ENVIRON["MARKER"] "[ \t]*$") {
        plain = index(substr($0, RSTART), "++") ? "++" : "+="
        code = substr($0, 1, RSTART - 1)
        call = "atomic_add_shim("
        start = index(code, call)
        if (!start) refuse("the marked line calls no " call "&TARGET, VALUE)")
        depth = 1
        comma = 0
        for (i = start + length(call); i <= length(code) && depth > 0; ++i) {
            c = substr(code, i, 1)
            if (c == "(" || c == "[") ++depth
            else if (c == ")" || c == "]") --depth
            else if (c == "," && depth == 1 && !comma) comma = i
        }
        if (depth != 0 || !comma) refuse("the marked call is not on one line, with two arguments")
        target = trim(substr(code, start + length(call), comma - start - length(call)))
        value = trim(substr(code, comma + 1, i - 2 - comma))
        if (substr(target, 1, 1) != "&") refuse("the first argument of the marked call is not &TARGET")
        target = substr(target, 2)
        if (plain == "++" && value != "1") refuse("a plain ++ stands for an atomic add of 1 only")
        written = plain == "++" ? target "++" : target " += " value
        $0 = substr(code, 1, start - 1) written substr(code, i)
        print NR > line_file
    }
    { print }
    END { if (failed) exit 2 }' "$source" > "$out.partial" || { rm -f "$out.partial"; exit 2; }
mv "$out.partial" "$out"
