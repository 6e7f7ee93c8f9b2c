"""The numbered programs as programs.txt lists them, for the sweep, the plots, the figures and
the memory figures: each program's facts and the curves that its timing: lines give. The file's
opening comment says how it is written; a line that breaks those rules stops the reader with
the file's line number and the reason.
"""
import collections
import os

LIST_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "programs.txt")

FLAGS = {"matrix", "square", "spd", "y_sum", "stencils", "advanced"}
VALUES = {"figure", "sweep", "skews", "gpus", "seconds"}
KINDS = {"t", "f", "lib"}

Curve = collections.namedtuple("Curve", "family place kind kernel label")


class Program:
    def __init__(self, name):
        self.name = name
        self.number = name.split("_")[0]
        self.flags = set()
        self.values = {}
        self.curves = []

    def has(self, flag):
        return flag in self.flags


def read_programs(path=LIST_PATH):
    """The programs of the list, in its order."""
    programs = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue

            def refuse(reason):
                raise SystemExit(f"{path}:{number}: {reason}")
            if line[0].isspace():
                if len(words) < 5:
                    refuse("an indented line is a curve: FAMILY PLACE KIND KERNEL LABEL")
                if not programs:
                    refuse("a curve before the first program")
                family, place, kind, kernel = words[:4]
                if not place.isdigit() or kind not in KINDS:
                    refuse(f"a curve's PLACE is a whole number and its KIND one of "
                           f"{', '.join(sorted(KINDS))}")
                label = line.split(None, 4)[4].strip()
                programs[-1].curves.append(Curve(family, int(place), kind, kernel, label))
                continue
            program = Program(words[0])
            for fact in words[1:]:
                key, _, value = fact.partition("=")
                if fact in FLAGS:
                    program.flags.add(fact)
                elif key in VALUES and value:
                    program.values[key] = value
                else:
                    refuse(f"{program.name}: unknown fact '{fact}' (the file's opening comment "
                           "lists them)")
            for key, convert in (("sweep", int), ("gpus", int), ("seconds", float)):
                if key in program.values:
                    try:
                        convert(program.values[key])
                    except ValueError:
                        refuse(f"{program.name}: {key}={program.values[key]} is not a number")
            programs.append(program)
    check_places(path, programs)
    return programs


def check_places(path, programs):
    """Two programs never share a place in the sweep's order, nor two curves one in a legend."""
    taken = collections.Counter(f"sweep={p.values['sweep']}"
                                for p in programs if "sweep" in p.values)
    taken.update(f"{c.family} {c.place}" for p in programs for c in p.curves)
    shared = sorted(place for place, count in taken.items() if count > 1)
    if shared:
        raise SystemExit(f"{path}: places held twice: "
                         + ", ".join(shared))
