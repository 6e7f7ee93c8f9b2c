#!/usr/bin/env python3
"""make slides: each chapter's figures as a PDF, one a page, in the order of its lessons.

Reads the PNGs of notes/figures/ (make plots and make figures draw them) and writes
notes/slides/ch21_csr.pdf and notes/slides/ch14_spmv.pdf with matplotlib alone: each page is one
figure under its one-line message. SLIDES holds the pages; every figure of notes/figures/ must be
on one of them, and each of them must exist.
"""
import argparse
import glob
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402

# Each chapter's slides, in the order of its lessons: (figure, lesson, message).
SLIDES = {
    "ch21_csr": [
        ("lesson_csr", "112",
         "CSR puts every adjacency list in col_idx; row_offsets finds each with two reads"),
        ("lesson_build_steps", "114, 115",
         "From an edge list: count, scan, scatter; the atomic scatter takes most of the time"),
        ("lesson_csc", "118",
         "CSC is the same build keyed on the destination: each vertex's in-neighbours"),
        ("reduce_time", "116, 117",
         "One atomic per edge queues on one address; summing in the block first removes that"),
        ("reduce_vs_library", "116, 117",
         "The block reduction runs level with cub::DeviceReduce; warp aggregation is far behind"),
        ("sorted_time", "119 to 122",
         "On sorted rows, one pass over the row ids beats the per-row search and cuSPARSE"),
        ("sorted_vs_library", "119 to 122",
         "The one pass meets its target against cusparseXcoo2csr on every graph"),
        ("sorted_copy_share", "119 to 122",
         "The one pass nears copy bandwidth, but reaches its target share only at a = 0.80"),
        ("lesson_degree_histograms", "123, 124",
         "As the skew a grows, a few rows grow huge and more and more rows are empty"),
        ("build_time", "123, 124",
         "The bucketed and payload-sort builds are far faster than count, scan, scatter"),
        ("build_vs_library", "123, 124",
         "The bucketed build runs level with the payload-sort build, short of its target"),
    ],
    "ch14_spmv": [
        ("spmv_textbook", "142, 143",
         "Near cuSPARSE on a uniform graph, the textbook kernels fall far behind as skew grows"),
        ("lesson_access_maps", "144",
         "Thread per row strides through values; warp per row and ELL read side by side"),
        ("spmv_fixes", "144, 145, 150",
         "Warp per row and vector CSR cut the cost of long rows; only merge path stays flat"),
        ("spmv_copy_share", "144, 148, 150",
         "On R-MAT graphs SpMV stays far from copy bandwidth, cuSPARSE and merge path nearest"),
        ("lesson_merge_path", "148",
         "Merge path gives every thread the same number of steps, however long a row is"),
        ("spmv_fast", "148",
         "Merge path runs level with cuSPARSE: ahead on the middle skews, a little behind at "
         "the ends"),
        ("spmv_stencils", "145",
         "On the stencils DIA is fastest, well inside its target; warp per row wastes its lanes"),
    ],
}

# A 16:9 page, and type that a room can read.
PAGE_INCHES = (13.333, 7.5)
MESSAGE_PT, LESSON_PT = 22, 13


def check(figures_dir):
    """The figures that SLIDES names and that are missing, and those of figures_dir that no
    slide shows."""
    named = {figure for slides in SLIDES.values() for figure, _, _ in slides}
    present = {os.path.splitext(os.path.basename(p))[0]
               for p in glob.glob(os.path.join(figures_dir, "*.png"))}
    return sorted(named - present), sorted(present - named)


def page(pdf, path, lesson, message):
    """One slide: the message across the top, the lesson under it, the figure below."""
    fig = plt.figure(figsize=PAGE_INCHES)
    renderer = fig.canvas.get_renderer()
    # The message on one line, in the largest type (from MESSAGE_PT down) that fits the page.
    for size in range(MESSAGE_PT, 13, -1):
        title = fig.text(0.5, 0.975, message, ha="center", va="top", fontsize=size,
                         fontweight="bold")
        if title.get_window_extent(renderer).width <= 0.98 * fig.bbox.width:
            break
        title.remove()
    fig.text(0.5, 0.915, f"lesson {lesson}  ·  notes/figures/{os.path.basename(path)}",
             ha="center", va="top", fontsize=LESSON_PT, color="dimgray")
    ax = fig.add_axes([0.01, 0.01, 0.98, 0.885])
    ax.imshow(mpimg.imread(path), interpolation="antialiased")
    ax.axis("off")
    pdf.savefig(fig)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", default="notes/figures")
    parser.add_argument("--out", default="notes/slides")
    args = parser.parse_args()
    missing, unshown = check(args.figures)
    for figure in missing:
        print(f"slides: {args.figures}/{figure}.png is on a slide and does not exist "
              "(make plots, make figures)")
    for figure in unshown:
        print(f"slides: {args.figures}/{figure}.png is on no slide (bench/slides.py's SLIDES)")
    if missing or unshown:
        return 1
    os.makedirs(args.out, exist_ok=True)
    for chapter, slides in SLIDES.items():
        out = os.path.join(args.out, f"{chapter}.pdf")
        # No creation date: the same figures give the same file.
        with PdfPages(out, metadata={"CreationDate": None}) as pdf:
            for figure, lesson, message in slides:
                page(pdf, os.path.join(args.figures, f"{figure}.png"), lesson, message)
        print(f"slides: {out}, {len(slides)} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
