"""How the notes' generated tables print their numbers and rows, and how a measurement CSV of
notes/measurements/ is read: shared by the renderers that bench/notes_tables.py calls.

Numbers are rounded half up from their decimal text, so that a time that the CSV holds as
0.1475 prints as 0.148 to three places, as a reader rounding it by hand would write it (binary
floating point would give 0.147).
"""
import csv
import math
import re
from decimal import ROUND_HALF_UP, Decimal


def number(value):
    """A CSV's text, or a computed float, as a Decimal; None where the CSV's cell is empty."""
    if value is None or value == "":
        return None
    return value if isinstance(value, Decimal) else Decimal(value if isinstance(value, str)
                                                            else repr(value))


def fixed(value, decimals):
    """`value` rounded half up to `decimals` places, its thousands grouped: 1,358.955."""
    rounded = number(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{rounded:,.{decimals}f}"


def significant(value, digits, most_decimals=None):
    """`value` to `digits` significant digits (trailing zeros kept: 2.300), with at most
    `most_decimals` places where that is given: 0.0915, 172.3, 305."""
    d = number(value)
    decimals = max(0, digits - 1 - d.adjusted()) if d != 0 else digits - 1
    if most_decimals is not None:
        decimals = min(decimals, most_decimals)
    return fixed(d, decimals)


def as_recorded(text):
    """A number as the CSV records it, the digits the program printed, its thousands grouped."""
    whole, dot, fraction = text.partition(".")
    return f"{int(whole):,}{dot}{fraction}" if whole.lstrip("-").isdigit() else text


def ratio(numerator, denominator):
    return number(numerator) / number(denominator)


def geometric_mean(values):
    return number(math.exp(sum(math.log(float(v)) for v in values) / len(values)))


def percent(share):
    """A share as a percentage: whole percents from 20% up, tenths below (13.7%, 6.0%)."""
    value = number(share) * 100
    return fixed(value, 0 if value >= 20 else 1) + "%"


def row(cells):
    return "|" + "".join(f" {cell} |" if cell else " |" for cell in cells)


def table(headings, rows):
    """A markdown table: its heading row, the rule under it, and its rows of cells."""
    return [row(headings), "|" + "---|" * len(headings)] + [row(cells) for cells in rows]


HEADER_LINE = re.compile(r"^# (\w+): (.*)$")


def read_measurements(path):
    """A measurement CSV's header and its rows. The header's `# key: value` lines give the
    device, date, commit and command (a key given on several lines keeps them all, joined by
    "; "); other comment lines are notes for a reader of the file."""
    with open(path) as f:
        lines = list(f)
    header = {}
    for line in lines:
        found = HEADER_LINE.match(line.rstrip("\n"))
        if found:
            key, value = found.groups()
            header[key] = f"{header[key]}; {value}" if key in header else value
    return header, list(csv.DictReader(l for l in lines if not l.startswith("#")))
