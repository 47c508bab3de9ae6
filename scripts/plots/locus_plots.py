#!/usr/bin/env python3
"""Plots of a locus report.

    locus_plots.py RUNS_JSON OUT_DIR

RUNS_JSON is the normalised list of runs that `locus report` writes (R/plots/runs.json): per
instance its problem, best-known value, instance file (or why there is none) and runs with
their label, seed, objective sense, result, backend, device, time limit and the trace, solution
and trajectory files. Every figure is written three times, as <name>.png, <name>.pdf and
<name>.svg, sized for a paper page (text of 8 pt or more at the figure's real size), with a
caption line naming the time limit, backend and device of its runs. Writes into OUT_DIR:

  <instance>-convergence         best objective (or its gap to the best-known value) against
                                 time, one thin line per run and the median of each config's
                                 runs thick;
  <instance>-ttt                 time to target: for targets best known -/+ 0, 1 and 5 % (the
                                 best found over all runs when there is no best-known value), the
                                 fraction of a config's runs that reached it against time;
  <instance>-<label>-solution    the best solution of a config: TSP tour, CVRP routes or grid
                                 paths (not for QAP, nor for generated instances);
  performance-profile            across the instances: Dolan-More performance profile of the
                                 configs' median final objectives;
  final-gaps                     across the instances: box plot of each config's final gaps;
  plots.json                     what was drawn (files, and the title, axis labels, legend
                                 entries and caption of every figure) and what was not, per
                                 instance and for the report as a whole.

A maximised objective is shown as users read it: its values themselves, a gap that is how far
below the best-known value a run is, and targets "at or above" the best known - 1 %.

Exit status: 0 done, 2 bad arguments or input, 3 matplotlib (or numpy) not importable.
"""

import json
import math
import os
import re
import sys
import textwrap

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3
TARGETS = (0.0, 0.01, 0.05)
FORMATS = ("png", "pdf", "svg")
PNG_DPI = 200
BASE_PT = 9     # axis labels and titles
SMALL_PT = 8    # tick labels, legends and captions: the smallest text of every figure
MATPLOTLIB_NEEDED = (3, 7)  # legends "outside" a constrained layout

plt = None
np = None
mpl = None


def load_matplotlib():
    """Imports matplotlib with the Agg backend, and numpy; returns an error text or None."""
    global plt, np, mpl
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
        import matplotlib.ticker  # noqa: F401 (used through mpl.ticker)
        import numpy
    except Exception as error:  # a half-made environment fails in many ways
        return str(error) or type(error).__name__
    version = tuple(int(part) for part in re.findall(r"\d+", matplotlib.__version__)[:2])
    if version < MATPLOTLIB_NEEDED:
        return "matplotlib {} is too old, {}.{} or later is needed".format(
            matplotlib.__version__, *MATPLOTLIB_NEEDED)
    plt, np, mpl = pyplot, numpy, matplotlib
    matplotlib.rcParams.update({
        "font.size": BASE_PT,
        "axes.titlesize": BASE_PT,
        "axes.labelsize": BASE_PT,
        "xtick.labelsize": SMALL_PT,
        "ytick.labelsize": SMALL_PT,
        "legend.fontsize": SMALL_PT,
        "legend.title_fontsize": SMALL_PT,
        "figure.titlesize": BASE_PT + 1,
        # Plain numbers on every axis: no "+1.2e7" offset, no "1e6" multiplier.
        "axes.formatter.useoffset": False,
        "axes.formatter.limits": (-30, 30),
        "axes.unicode_minus": True,
        "text.parse_math": False,  # a '$' in a config or instance name is a dollar sign
        # Text stays text: TrueType in PDF, <text> elements in SVG (editable, searchable).
        "pdf.fonttype": 42,
        "svg.fonttype": "none",
        "svg.hashsalt": "locus",
    })
    return None


# Readers: only what the pictures need. Text files may have CRLF line ends and tabs.


class FormatError(ValueError):
    pass


def text_lines(path):
    with open(path, "r", encoding="utf-8", errors="replace", newline=None) as f:
        return [line.rstrip("\r\n") for line in f]


def keyed_file(path):
    """A TSPLIB-style file as (headers, sections): 'KEY : value' headers and the rows (lists of
    words) of every *_SECTION, up to EOF."""
    headers, sections, current = {}, {}, None
    for line in text_lines(path):
        words = line.replace(":", " : ", 1).split()
        if not words:
            continue
        key = words[0].rstrip(":").upper()
        if key == "EOF":
            break
        if key.endswith("_SECTION"):
            current = sections.setdefault(key, [])
            continue
        if len(words) > 1 and words[1] == ":" and re.match(r"^[A-Z_]+$", key):
            headers[key] = " ".join(words[2:])
            current = None
            continue
        if current is not None:
            current.append(line.split())
    return headers, sections


def node_coordinates(path):
    """{node id: (x, y)} from NODE_COORD_SECTION (else DISPLAY_DATA_SECTION)."""
    _, sections = keyed_file(path)
    rows = sections.get("NODE_COORD_SECTION") or sections.get("DISPLAY_DATA_SECTION")
    if not rows:
        raise FormatError("{} has no NODE_COORD_SECTION (no coordinates to draw)".format(path))
    coords = {}
    for row in rows:
        if len(row) < 3:
            raise FormatError("{}: coordinate row '{}' is not 'id x y'".format(path, " ".join(row)))
        coords[int(row[0])] = (float(row[1]), float(row[2]))
    return coords


def depot_node(path):
    _, sections = keyed_file(path)
    for row in sections.get("DEPOT_SECTION", []):
        for word in row:
            if int(word) >= 0:
                return int(word)
    raise FormatError("{} has no DEPOT_SECTION".format(path))


def tour_cities(path):
    """The city ids of a TSPLIB .tour (TOUR_SECTION up to -1)."""
    _, sections = keyed_file(path)
    if "TOUR_SECTION" not in sections:
        raise FormatError("{} has no TOUR_SECTION".format(path))
    cities = []
    for row in sections["TOUR_SECTION"]:
        for word in row:
            if int(word) < 0:
                return cities
            cities.append(int(word))
    return cities


def cvrp_routes(path):
    """The customer lists of the 'Route #k: ...' lines of a CVRPLIB .sol."""
    routes = []
    for line in text_lines(path):
        match = re.match(r"^\s*Route\s*#\s*\d+\s*:(.*)$", line)
        if match:
            routes.append([int(word) for word in match.group(1).split()])
    if not routes:
        raise FormatError("{} has no 'Route #k:' line".format(path))
    return routes


def movingai_map(path):
    """The blocked cells of a Moving AI map as rows of 0/1 (row 0 first)."""
    lines = text_lines(path)
    height = width = None
    for i, line in enumerate(lines):
        words = line.split()
        if not words:
            continue
        if words[0] == "height":
            height = int(words[1])
        elif words[0] == "width":
            width = int(words[1])
        elif words[0] == "map":
            rows = [row.strip() for row in lines[i + 1:] if row.strip()]
            break
    else:
        raise FormatError("{}: no 'map' line".format(path))
    if height is None or width is None or len(rows) < height:
        raise FormatError("{}: the map does not have its height and width".format(path))
    return [[0 if c in ".GS" else 1 for c in row[:width]] for row in rows[:height]]


def grid_paths(path):
    """Cells (x, y) of every agent: per step from a .path trajectory, or the final cells of a
    .agents state (one cell per agent)."""
    agents = []
    for line in text_lines(path):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "agent":
            values = [int(w) for w in words[2:]]
            agents.append(list(zip(values[0::2], values[1::2])))
        elif len(words) == 2 and all(re.match(r"^-?\d+$", w) for w in words):
            agents.append([(int(words[0]), int(words[1]))])
    if not agents:
        raise FormatError("{} lists no agent".format(path))
    return agents


def trace_points(path):
    """(time, objective) of a trace.jsonl, skipping lines that are not whole (a run cut off)."""
    points = []
    try:
        lines = text_lines(path)
    except OSError:
        return points
    for line in lines:
        try:
            j = json.loads(line)
            points.append((float(j["time_s"]), float(j["objective"])))
        except (ValueError, KeyError, TypeError):
            continue
    return points


# ---------------------------------------------------------------------------------------------
# Runs as step functions of time.


def sense_sign(run):
    """-1 for a run of a maximisation problem (its values are negated so that lower is better
    everywhere below, as in the engines), else 1."""
    return -1.0 if run.get("objective_sense") == "maximize" else 1.0


class Curve:
    """The best objective of a run (negated for a maximisation problem) as a non-increasing step
    function of time."""

    def __init__(self, run):
        points = trace_points(run["trace_file"]) if run.get("trace_file") else []
        final = run.get("objective")
        if run.get("feasible") and final is not None:
            points.append((float(run.get("time_to_best_s") or 0.0), float(final)))
        sign = sense_sign(run)
        points = sorted((t, sign * v) for t, v in points)
        self.times, self.values = [], []
        for t, v in points:
            if not self.values or v < self.values[-1]:
                self.times.append(max(t, 0.0))
                self.values.append(v)
        end = float(run.get("total_time_s") or 0.0)
        self.end = max([end] + self.times)

    def empty(self):
        return not self.times

    def at(self, grid):
        """Values at the times of `grid` (infinite before the first point: no solution yet)."""
        out = np.full(len(grid), np.inf)
        if self.empty():
            return out
        index = np.searchsorted(np.asarray(self.times), grid, side="right") - 1
        values = np.asarray(self.values)
        ok = index >= 0
        out[ok] = values[index[ok]]
        return out

    def time_to(self, target):
        """The first time the run is at or below `target` (negated values), or None."""
        slack = 1e-9 * max(1.0, abs(target))
        for t, v in zip(self.times, self.values):
            if v <= target + slack:
                return t
        return None


def gap(value, best_known):
    """The gap in percent of a negated-if-maximised value to the best known, likewise negated:
    how far above the best known a minimised value is, how far below a maximised one is."""
    return 100.0 * (value - best_known) / abs(best_known)


def final_value(run):
    """A run's final objective, negated for maximisation; None without a feasible result."""
    if not run.get("feasible") or run.get("objective") is None:
        return None
    return sense_sign(run) * float(run["objective"])


class Sense:
    """How an instance's objective reads: the words of its labels and the user's value of a
    negated-if-maximised one."""

    def __init__(self, maximised):
        self.maximised = maximised
        self.sign = -1.0 if maximised else 1.0
        self.word = "maximised" if maximised else "minimised"
        self.gap_words = "below" if maximised else "above"
        self.reach = "at or above" if maximised else "at or below"
        self.off = "\u2212" if maximised else "+"  # a target is best known - t % when maximised

    def user(self, v):
        return self.sign * v


# ---------------------------------------------------------------------------------------------
# Text, axes and saving.


def plain(v, digits=12):
    """A number as people write it, to `digits` significant digits: no exponent, a real minus
    sign, and an integer part of five digits or more grouped by threes with thin spaces
    (12 001 234.5)."""
    if v is None or not math.isfinite(v):
        return str(v)
    text = np.format_float_positional(float("{:.{}g}".format(abs(v), digits)), trim="-")
    whole, dot, fraction = text.partition(".")
    if len(whole) >= 5:
        whole = "{:,d}".format(int(whole)).replace(",", "\u2009")
    return ("\u2212" if v < 0 and float(text) != 0 else "") + whole + dot + fraction


NBSP = "\u00a0"  # between a number and its unit, so that a caption's line never parts them


def percent_text(v):
    return plain(v, 6) + NBSP + "%"


def slug(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:80] or "x"


def colour(labels, label):
    return plt.get_cmap("tab10")(labels.index(label) % 10)


def stepped(labels, label):
    """The line of a config where the lines of several often coincide (time to target,
    performance profile): its colour, a dash pattern of its own and a width that narrows from
    the first config on, so that a line drawn over another leaves it visible (in grey too)."""
    k = labels.index(label)
    return {"color": colour(labels, label), "linestyle": ("-", "--", "-.", ":")[k % 4],
            "linewidth": max(2.6 - 0.5 * (k % 4), 1.1)}


def new_figure(width, height, **kwargs):
    return plt.subplots(figsize=(width, height), layout="constrained", **kwargs)


def plain_axis(axis, unit=""):
    """Tick labels of an axis as plain numbers (with `unit` after them), minor ticks unlabelled:
    no offset, no scientific multiplier, no 10^k on a log axis."""
    axis.set_major_formatter(mpl.ticker.FuncFormatter(
        lambda v, _pos: plain(v) + unit))
    axis.set_minor_formatter(mpl.ticker.NullFormatter())


def time_axis(ax, tmin, tmax):
    if tmax > 0 and tmax / tmin > 20:
        ax.set_xscale("log")
        ax.set_xlim(tmin, tmax * 1.05)
        ax.xaxis.set_major_locator(mpl.ticker.LogLocator(base=10))
    else:
        ax.set_xlim(0, tmax * 1.02)
    plain_axis(ax.xaxis)
    ax.set_xlabel("time (s)")


def gap_axis(axis, values):
    """A gap axis (percent) readable from 0.01 % to 10 % and beyond: logarithmic above 0.01 %
    (linear between -0.01 and 0.01 %, so that a gap of 0 - the best known reached - and a
    negative one - a new best - are drawn too), ticks at 0 and the powers of ten, labelled
    '0.01 %', '0.1 %', '1 %', '10 %'."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    lo = min(finite + [0.0])
    hi = max(finite + [0.0])
    top = 10.0 ** math.ceil(math.log10(max(hi, 0.01)))
    ticks = [0.0] + [10.0 ** k for k in range(-2, int(round(math.log10(top))) + 1)]
    bottom = -0.003
    if lo < 0:
        low = 10.0 ** math.ceil(math.log10(max(-lo, 0.01)))
        ticks = [-(10.0 ** k) for k in range(int(round(math.log10(low))), -3, -1)] + ticks
        bottom = -low * 1.2
    scale = dict(linthresh=0.01, linscale=0.4)
    ax = axis.axes
    if axis is ax.yaxis:
        ax.set_yscale("symlog", **scale)
        ax.set_ylim(bottom, top * 1.2)
    else:
        ax.set_xscale("symlog", **scale)
        ax.set_xlim(bottom, top * 1.2)
    axis.set_major_locator(mpl.ticker.FixedLocator(ticks))
    axis.set_major_formatter(mpl.ticker.FuncFormatter(lambda v, _pos: percent_text(v)))
    minor = [m * 10.0 ** k for k in range(-2, int(round(math.log10(top)))) for m in range(2, 10)]
    axis.set_minor_locator(mpl.ticker.FixedLocator(minor + [-m for m in minor if -m > bottom]))
    axis.set_minor_formatter(mpl.ticker.NullFormatter())


def one_or_mixed(values, unit_of=str, many=None):
    """The one value of a list, 'mixed (a, b)' when they differ, None when there is none."""
    seen = []
    for v in values:
        if v is not None and v != "" and v not in seen:
            seen.append(v)
    if not seen:
        return None
    if len(seen) == 1:
        return unit_of(seen[0])
    if many is not None and len(seen) > 3:
        return "mixed ({})".format(many(len(seen)))
    return "mixed ({})".format(", ".join(unit_of(v) for v in seen))


def setting_caption(runs):
    """The caption line of a figure of `runs`: their time limit, backend and device."""
    limits = [r.get("time_limit_s") for r in runs]
    if runs and all(isinstance(v, (int, float)) for v in limits):
        limit = "time limit " + one_or_mixed(limits, lambda v: plain(v, 6) + NBSP + "s") + \
            " per run"
    elif any(isinstance(v, (int, float)) for v in limits):
        known = [v for v in limits if isinstance(v, (int, float))]
        limit = "time limit mixed ({}, and not recorded for {})".format(
            ", ".join(plain(v, 6) + NBSP + "s" for v in sorted(set(known))),
            runs_phrase(limits.count(None)))
    else:
        limit = "time limit not recorded"
    backend = one_or_mixed([r.get("backend") for r in runs]) or "not recorded"
    device = one_or_mixed([r.get("device") for r in runs],
                          many=lambda n: "{} devices".format(n)) or "not recorded"
    return "{}; backend {}; device {}.".format(limit[0].upper() + limit[1:], backend, device)


def wrapped(fig, text, size):
    """`text` in lines that fit the width of the figure at `size` points (measured)."""
    renderer = fig.canvas.get_renderer()
    prop = mpl.font_manager.FontProperties(size=size)
    room = 0.97 * fig.get_size_inches()[0] * fig.dpi
    lines = []
    for word in text.split(" "):
        line = word if not lines else lines[-1] + " " + word
        if lines and renderer.get_text_width_height_descent(line, prop, ismath=False)[0] <= room:
            lines[-1] = line
        else:
            lines.append(word)
    return lines


class Figure:
    """What a figure says, as written into plots.json: title, axis labels, legend entries,
    panel titles and caption."""

    def __init__(self, kind, alt):
        self.kind, self.alt = kind, alt
        self.labels = {}

    def caption(self, fig, text):
        """The caption under the figure, wrapped to its width; room is kept for it below the
        axes."""
        lines = wrapped(fig, text, SMALL_PT)
        # NOTE: as the figure's x label, which the constrained layout keeps room for below
        # everything else (axes, their labels, a legend outside them).
        fig.supxlabel("\n".join(lines), x=0.01, ha="left", fontsize=SMALL_PT, linespacing=1.25)
        self.caption_text = "\n".join(lines)
        self.labels["caption"] = text

    def describe(self, fig):
        axes = [ax for ax in fig.axes if ax.get_visible()]
        self.labels.setdefault("title", fig.get_suptitle() or (axes[0].get_title() if axes
                                                                else ""))
        if axes:
            self.labels.setdefault("x", next((a.get_xlabel() for a in axes if a.get_xlabel()),
                                             ""))
            self.labels.setdefault("y", next((a.get_ylabel() for a in axes if a.get_ylabel()),
                                             ""))
        legend = []
        for holder in [fig] + axes:
            for lg in getattr(holder, "legends", []) + ([holder.get_legend()]
                                                        if holder is not fig and
                                                        holder.get_legend() else []):
                legend.extend(t.get_text() for t in lg.get_texts())
        self.labels["legend"] = legend
        if len(axes) > 1:
            self.labels["panels"] = [a.get_title() for a in axes]

    def ticks(self, fig):
        """The tick labels drawn on the first axes, and any offset or multiplier text of an axis
        (none is wanted)."""
        axes = [ax for ax in fig.axes if ax.get_visible()]
        if not axes:
            return
        def shown(axis):
            lo, hi = sorted(axis.get_view_interval())
            slack = 1e-9 * (hi - lo)
            return [label.get_text() for at, label in zip(axis.get_majorticklocs(),
                                                          axis.get_majorticklabels())
                    if lo - slack <= at <= hi + slack and label.get_text()]

        self.labels["ticks"] = {"x": shown(axes[0].xaxis), "y": shown(axes[0].yaxis)}
        self.labels["offsets"] = [text for ax in axes for text in
                                  (ax.xaxis.get_offset_text().get_text(),
                                   ax.yaxis.get_offset_text().get_text()) if text]

    def save(self, fig, out_dir, stem):
        """Writes the figure as PNG, PDF and SVG; returns its plots.json entry, with the size of
        its smallest text in points at the figure's real size (size_in, in inches)."""
        self.describe(fig)
        width, height = fig.get_size_inches()
        entry = {"file": stem + ".png", "alt": self.alt, "kind": self.kind,
                 "size_in": [round(float(width), 2), round(float(height), 2)]}
        for fmt in FORMATS:
            metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(fmt)
            fig.savefig(os.path.join(out_dir, stem + "." + fmt), dpi=PNG_DPI, metadata=metadata)
            if fmt != "png":
                entry[fmt] = stem + "." + fmt
            else:  # drawn now: its tick labels are known
                self.ticks(fig)
        sizes = [t.get_fontsize() for t in fig.findobj(mpl.text.Text)
                 if t.get_visible() and t.get_text().strip()]
        entry["min_font_pt"] = min(sizes) if sizes else None
        entry["labels"] = self.labels
        plt.close(fig)
        return entry


# ---------------------------------------------------------------------------------------------
# Figures of an instance.


def time_range(curves):
    drawn = [c for _, c in curves if not c.empty()]
    positive = [t for c in drawn for t in c.times if t > 0]
    tmin = max(min(positive) if positive else 1e-3, 1e-4)
    tmax = max([c.end for c in drawn] + [tmin * 10])
    return tmin, tmax


def runs_phrase(n):
    return "{} run{}".format(n, "" if n == 1 else "s")


def plot_convergence(instance, labels, curves, best_known, sense, runs):
    """Best objective (or gap) against time. The thick line of a config is the median over its
    runs of their best-so-far values at each time, a run without a solution yet counting as
    infinitely bad: drawn from when half of the runs have a solution."""
    figure = Figure("convergence", "convergence")
    fig, ax = new_figure(6.5, 3.6)
    use_gap = best_known is not None and best_known != 0
    transform = (lambda v: gap(v, best_known)) if use_gap else sense.user
    tmin, tmax = time_range(curves)
    values = []
    handles = []
    for label in labels:
        mine = [c for lab, c in curves if lab == label and not c.empty()]
        if not mine:
            continue
        col = colour(labels, label)
        for c in mine:
            xs = [max(t, tmin) for t in c.times] + [max(c.end, c.times[-1], tmin)]
            ys = [transform(v) for v in c.values]
            ys.append(ys[-1])
            values.extend(ys)
            ax.step(xs, ys, where="post", color=col, alpha=0.35, linewidth=0.7)
        grid = np.geomspace(tmin, tmax, 400)
        median = np.median(np.vstack([c.at(grid) for c in mine]), axis=0)
        median[~np.isfinite(median)] = np.nan
        line, = ax.plot(grid, [transform(v) for v in median], color=col, linewidth=2.0,
                        label="{}: median of {}".format(label, runs_phrase(len(mine))))
        handles.append(line)
    single = mpl.lines.Line2D([], [], color="grey", alpha=0.6, linewidth=0.7,
                              label="single runs (best so far)")
    time_axis(ax, tmin, tmax)
    if use_gap:
        ax.set_ylabel("gap {} best known (%)".format(sense.gap_words))
        gap_axis(ax.yaxis, values)
        known = "best known {}".format(plain(sense.user(best_known), 10))
    else:
        ax.set_ylabel("objective ({})".format(sense.word))
        user = [v for v in values if math.isfinite(v)]
        if user and min(user) > 0 and max(user) / min(user) > 100:
            ax.set_yscale("log")
        plain_axis(ax.yaxis)
        known = "no best-known value"
    ax.set_title("{}: convergence ({}, {})".format(instance, sense.word, known))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(handles=handles + [single], loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False)
    figure.caption(fig, "Thick: the median over a config's runs of the best objective found so "
                   "far{}; thin: single runs. {}".format(
                       " (its gap {} the best-known value)".format(sense.gap_words)
                       if use_gap else "", setting_caption(runs)))
    return figure, fig


def plot_time_to_target(instance, labels, curves, best_known, sense, runs):
    figure = Figure("time-to-target", "time to target")
    finals = [v for _, c in curves for v in c.values]
    if best_known is not None:
        reference, name = float(best_known), "best known"
    else:
        reference, name = min(finals), "best found"
    tmin, tmax = time_range(curves)
    fig, axes = new_figure(7.0, 3.2, ncols=len(TARGETS), sharey=True)
    handles = {}
    reached_counts = {}
    for ax, t in zip(axes, TARGETS):
        target = reference + abs(reference) * t
        for label in labels:
            mine = [c for lab, c in curves if lab == label]
            if not mine:
                continue
            reached = sorted(max(x, tmin) for x in (c.time_to(target) for c in mine)
                             if x is not None)
            fractions = [(k + 1) / len(mine) for k in range(len(reached))]
            xs = [tmin] + reached + [tmax]
            ys = [0.0] + fractions + [fractions[-1] if fractions else 0.0]
            line, = ax.step(xs, ys, where="post", **stepped(labels, label),
                            label="{} ({})".format(label, runs_phrase(len(mine))))
            handles.setdefault(label, line)
            reached_counts.setdefault(label, []).append("{}/{}".format(len(reached), len(mine)))
        time_axis(ax, tmin, tmax)
        ax.set_ylim(-0.02, 1.04)
        plain_axis(ax.yaxis)
        what = name if t == 0 else "{} {} {}".format(name, sense.off, percent_text(100 * t))
        ax.set_title("{}\n({} {})".format(what, "\u2265" if sense.maximised else "\u2264",
                                           plain(sense.user(target), 8)))
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("fraction of runs {}\nthe target".format(sense.reach))
    fig.suptitle("{}: time to target ({}, {} {})".format(
        instance, sense.word, name, plain(sense.user(reference), 10)))
    fig.legend(handles=list(handles.values()), loc="outside right center", frameon=False)
    figure.labels["reached"] = reached_counts
    figure.caption(fig, "Fraction of a config's runs whose best objective is {} the target, "
                   "against time; targets: the {} value, and 1\u00a0% and 5\u00a0% {} it. {}".format(
                       sense.reach, name, sense.gap_words, setting_caption(runs)))
    return figure, fig


# ---------------------------------------------------------------------------------------------
# Pictures of a best solution.


def distinct_colours():
    """Twenty colours, the ten strong ones first (tab20 pairs a strong and a light hue)."""
    cmap = plt.get_cmap("tab20")
    return [cmap(i) for i in range(0, 20, 2)] + [cmap(i) for i in range(1, 20, 2)]


def side_legend(ax):
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)


def picture_axes(title):
    fig, ax = new_figure(5.0, 5.2)
    ax.set_title(title)
    ax.set_aspect("equal")
    plain_axis(ax.xaxis)
    plain_axis(ax.yaxis)
    return fig, ax


def draw_tour(instance_file, solution_file, title):
    coords = node_coordinates(instance_file)
    cities = tour_cities(solution_file)
    missing = [c for c in cities if c not in coords]
    if missing:
        raise FormatError("{}: city {} has no coordinates in {}".format(solution_file, missing[0],
                                                                       instance_file))
    xs = [coords[c][0] for c in cities + cities[:1]]
    ys = [coords[c][1] for c in cities + cities[:1]]
    fig, ax = picture_axes(title)
    ax.plot(xs, ys, "-", color="tab:blue", linewidth=0.9)
    ax.scatter(xs[:-1], ys[:-1], s=6, color="black", zorder=3)
    return fig


def draw_routes(instance_file, solution_file, title):
    coords = node_coordinates(instance_file)
    depot = depot_node(instance_file)
    customers = sorted(i for i in coords if i != depot)  # customer k is the k-th of these
    routes = cvrp_routes(solution_file)
    fig, ax = picture_axes(title)
    colours = distinct_colours()
    for k, route in enumerate(routes):
        if not route:
            continue
        bad = [c for c in route if c < 1 or c > len(customers)]
        if bad:
            plt.close(fig)
            raise FormatError("{}: customer {} out of range 1..{}".format(solution_file, bad[0],
                                                                         len(customers)))
        nodes = [depot] + [customers[c - 1] for c in route] + [depot]
        xs = [coords[v][0] for v in nodes]
        ys = [coords[v][1] for v in nodes]
        ax.plot(xs, ys, "-", color=colours[k % 20], linewidth=1.1)
        ax.scatter(xs[1:-1], ys[1:-1], s=10, color=colours[k % 20], zorder=3)
    ax.scatter([coords[depot][0]], [coords[depot][1]], s=70, marker="s", color="black", zorder=4,
               label="depot")
    side_legend(ax)
    return fig


def draw_grid(instance_file, solution_file, title):
    blocked = movingai_map(instance_file)
    agents = grid_paths(solution_file)
    fig, ax = picture_axes(title)
    ax.imshow(np.asarray(blocked), cmap="Greys", vmin=0, vmax=1.6, interpolation="nearest")
    colours = distinct_colours()
    for a, cells in enumerate(agents):
        xs = [c[0] for c in cells]
        ys = [c[1] for c in cells]
        col = colours[a % 20]
        if len(cells) > 1:
            ax.plot(xs, ys, "-", color=col, linewidth=1.2)
            ax.scatter(xs[:1], ys[:1], s=14, marker="o", color=col, zorder=3)
        ax.scatter(xs[-1:], ys[-1:], s=18, marker="s", color=col, zorder=3)
    if any(len(cells) > 1 for cells in agents):
        ax.scatter([], [], s=14, marker="o", color="grey", label="start")
    ax.scatter([], [], s=18, marker="s", color="grey", label="end")
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    side_legend(ax)
    return fig


PICTURES = {
    # problem: (what is drawn, drawing function, the run's file to draw)
    "tsp": ("tour", draw_tour, "solution_file"),
    "dcvrp": ("routes", draw_routes, "solution_file"),
    "gridpath": ("paths", draw_grid, "trajectory_file"),
}


# ---------------------------------------------------------------------------------------------
# Figures across the instances of a report.


def config_medians(entry, labels):
    """{label: median final objective (negated if maximised)} of the configs that ran on an
    instance; a run without a feasible result counts as infinitely bad."""
    runs = entry.get("runs", [])
    medians = {}
    for label in labels:
        finals = [final_value(r) for r in runs if r["label"] == label]
        if finals:
            medians[label] = float(np.median([math.inf if v is None else v for v in finals]))
    return medians


def instance_sense(entry):
    runs = entry.get("runs", [])
    return Sense(bool(runs) and sense_sign(runs[0]) < 0)


def performance_ratios(instances, labels):
    """The performance ratios of the Dolan-More profile, per instance on which two configs or
    more ran: r(p, s) = m(p, s) / min over configs of m(p, ·) for a minimised objective and
    max over configs of m(p, ·) / m(p, s) for a maximised one, where m(p, s) is the median final
    objective of config s on instance p. So r >= 1, r = 1 for the best config of the instance,
    and r = inf when the median run of s is infeasible. Needs positive objectives: an instance
    with another median is left out (a note says so). Returns ({instance: {label: r}}, notes)."""
    ratios, single, notes = {}, 0, []
    for entry in instances:
        medians = config_medians(entry, labels)
        if len(medians) < 2:
            single += 1
            continue
        sense = instance_sense(entry)
        user = {lab: (sense.user(v) if math.isfinite(v) else None) for lab, v in medians.items()}
        finite = [v for v in user.values() if v is not None]
        if not finite:
            notes.append("{}: no config has a feasible median run, left out of the performance "
                         "profile.".format(entry["name"]))
            continue
        if min(finite) <= 0:
            notes.append("{}: a median final objective is not positive, so no ratio to the best "
                         "config: left out of the performance profile.".format(entry["name"]))
            continue
        best = max(finite) if sense.maximised else min(finite)
        ratios[entry["name"]] = {
            lab: (math.inf if v is None else (best / v if sense.maximised else v / best))
            for lab, v in user.items()}
    if single:
        notes.append("{} instance{} with runs of one config only {} not in the performance "
                     "profile (a ratio to the best config needs two).".format(
                         single, "" if single == 1 else "s", "is" if single == 1 else "are"))
    return ratios, notes


def plot_performance_profile(instances, labels, all_runs):
    ratios, notes = performance_ratios(instances, labels)
    if not ratios:
        return None, [note for note in notes if "runs of one config only" not in note] + [
            "No performance profile: no instance has results of two configs."]
    figure = Figure("performance-profile", "performance profile")
    fig, ax = new_figure(6.0, 3.4)
    finite = [r for row in ratios.values() for r in row.values() if math.isfinite(r)]
    rmax = max(finite + [1.0])
    log = rmax > 2.0
    tau_max = rmax * 1.25 if log else 1.0 + max((rmax - 1.0) * 1.08, 0.01)
    covered = {}
    for label in labels:
        mine = [row[label] for row in ratios.values() if label in row]
        if not mine:
            continue
        steps = sorted(r for r in mine if math.isfinite(r))
        xs = [1.0] + steps + [tau_max]
        ys = [0.0] + [(k + 1) / len(mine) for k in range(len(steps))] + [len(steps) / len(mine)]
        ax.step(xs, ys, where="post", **stepped(labels, label),
                label="{} ({} instance{})".format(label, len(mine), "" if len(mine) == 1
                                                  else "s"))
        covered[label] = {"instances": len(mine), "at_1": sum(1 for r in mine if r <= 1.0)}
    if log:
        ax.set_xscale("log", base=2)
    ax.set_xlim(1.0, tau_max)
    ax.set_ylim(-0.02, 1.04)
    plain_axis(ax.xaxis)
    plain_axis(ax.yaxis)
    ax.set_xlabel("\u03c4: factor of the best config's median final objective")
    ax.set_ylabel("fraction of instances\nwithin \u03c4 of the best")
    ax.set_title("Performance profile over {} instance{}".format(
        len(ratios), "" if len(ratios) == 1 else "s"))
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    figure.labels["configs"] = covered
    figure.caption(fig, ("Dolan\u2013Mor\u00e9 performance profile: for each config s, the "
                         "fraction of the instances it ran on where r = m(s) / m(best) \u2264 "
                         "\u03c4 (m(best) / m(s) for a maximised objective), m being the median "
                         "final objective over a config's runs (an infeasible median: never "
                         "within) and best the config with the best m on that instance; at "
                         "\u03c4 = 1, the fraction on which s is the best. ").replace(
                             " = ", NBSP + "=" + NBSP).replace(" / ", NBSP + "/" + NBSP).replace(
                             " \u2264 \u03c4", NBSP + "\u2264" + NBSP + "\u03c4") +
                   setting_caption(all_runs))
    return figure, fig, notes


def final_gaps(instances, labels):
    """{label: [(instance, median final gap in %)]}: per instance, the gap of the median of a
    config's final objectives to the best-known value (to the best found over all runs of the
    instance when there is none), positive when worse for both senses. Also the number of
    instances measured against the best found, and notes."""
    gaps, against_found, notes = {}, 0, []
    for entry in instances:
        medians = config_medians(entry, labels)
        if not medians:
            continue
        sense = instance_sense(entry)
        reference = entry.get("best_known")
        if reference is not None:
            reference = sense.sign * float(reference)
        else:
            found = [v for v in (final_value(r) for r in entry.get("runs", [])) if v is not None]
            if not found:
                continue
            reference = min(found)
            against_found += 1
        if reference == 0:
            notes.append("{}: its reference value is 0, so no gap in % in the box plot.".format(
                entry["name"]))
            continue
        for label, m in medians.items():
            if math.isfinite(m):
                gaps.setdefault(label, []).append((entry["name"], gap(m, reference)))
    return gaps, against_found, notes


def plot_final_gaps(instances, labels, all_runs):
    gaps, against_found, notes = final_gaps(instances, labels)
    if not gaps:
        return None, notes + ["No box plot of final gaps: no config has a feasible median run."]
    figure = Figure("final-gaps", "final gaps")
    present = [lab for lab in labels if lab in gaps]
    fig, ax = new_figure(max(4.5, 2.8 + 0.9 * len(present)), 3.4)
    data = [[g for _, g in gaps[lab]] for lab in present]
    positions = list(range(1, len(present) + 1))
    ax.boxplot(data, positions=positions, widths=0.55, showfliers=False, whis=1.5,
               medianprops=dict(color="black", linewidth=1.8),
               boxprops=dict(linewidth=1.0), whiskerprops=dict(linewidth=1.0),
               capprops=dict(linewidth=1.0))
    for k, (lab, values) in enumerate(zip(present, data)):
        spread = np.linspace(-0.16, 0.16, len(values)) if len(values) > 1 else np.zeros(1)
        ax.scatter(positions[k] + spread, values, s=14, color=colour(labels, lab), alpha=0.85,
                   zorder=3, edgecolors="none")
    gap_axis(ax.yaxis, [g for values in data for g in values])
    ax.set_xticks(positions)
    ax.set_xticklabels(["\n".join(textwrap.wrap(lab, 14, break_on_hyphens=False) or [lab]) +
                        "\nn\u2009=\u2009{}".format(len(gaps[lab])) for lab in present])
    ax.set_xlabel("config")
    ax.set_ylabel("final gap (%)")
    measured = len({name for values in gaps.values() for name, _ in values})
    ax.set_title("Final gaps over {} instance{}".format(measured, "" if measured == 1 else "s"))
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(handles=[
        mpl.lines.Line2D([], [], color="black", linewidth=1.8, label="median"),
        mpl.patches.Patch(facecolor="white", edgecolor="black", label="quartiles"),
        mpl.lines.Line2D([], [], color="black", linewidth=1.0,
                         label="whiskers: 1.5 \u00d7 IQR"),
        mpl.lines.Line2D([], [], color="grey", marker="o", linestyle="none", markersize=4,
                         label="an instance")], loc="upper left", bbox_to_anchor=(1.01, 1.0),
        frameon=False)
    figure.labels["values"] = {lab: {name: round(g, 9) for name, g in gaps[lab]}
                               for lab in present}
    if against_found == 0:
        reference = "the best-known value"
    elif against_found == len({name for values in gaps.values() for name, _ in values}):
        reference = "the best found over all runs of the instance (none has a best-known value)"
    else:
        reference = "the best-known value (the best found over all runs for {} without " \
            "one)".format("1 instance" if against_found == 1 else
                          "{} instances".format(against_found))
    figure.caption(fig, "One point per instance (n: the instances of a config): the gap of the "
                   "median of a config's final objectives to {}, how far worse (above when "
                   "minimised, below when maximised). {}".format(reference,
                                                                  setting_caption(all_runs)))
    return figure, fig, notes


# ---------------------------------------------------------------------------------------------


class Names:
    """File stems unique within the output directory (each stem has a .png, .pdf and .svg)."""

    def __init__(self):
        self.used = set()

    def take(self, stem):
        name, k = stem, 2
        while name in self.used:
            name, k = "{}-{}".format(stem, k), k + 1
        self.used.add(name)
        return name


def plot_instance(entry, labels, out_dir, names):
    instance = entry["name"]
    images, notes = [], []
    runs = entry.get("runs", [])
    present = [lab for lab in labels if any(r["label"] == lab for r in runs)]
    curves = [(r["label"], Curve(r)) for r in runs]
    sense = instance_sense(entry)
    best_known = entry.get("best_known")
    if best_known is not None:
        best_known = sense.sign * best_known
    stem = slug(instance)
    if any(not c.empty() for _, c in curves):
        for draw, suffix in ((plot_convergence, "-convergence"), (plot_time_to_target, "-ttt")):
            figure, fig = draw(instance, present, curves, best_known, sense, runs)
            images.append(figure.save(fig, out_dir, names.take(stem + suffix)))
    else:
        notes.append("No convergence or time-to-target plot: no run of this instance recorded "
                     "a trace or a feasible result.")

    picture = PICTURES.get(entry.get("problem"))
    if picture is None:
        return {"name": instance, "images": images, "notes": notes}
    what, draw, key = picture
    if not entry.get("instance_file"):
        notes.append("No picture of the best {}: {}.".format(
            what, entry.get("instance_note") or "no instance file"))
        return {"name": instance, "images": images, "notes": notes}
    for label in present:
        feasible = [r for r in runs if r["label"] == label and r.get("feasible")
                    and r.get("objective") is not None]
        if not feasible:
            notes.append("No picture of the best {} of {}: no feasible run.".format(what, label))
            continue
        best = min(feasible, key=lambda r: sense_sign(r) * r["objective"])
        solution = best.get(key) or (best.get("solution_file") if key == "trajectory_file"
                                     else None)
        if not solution or not os.path.isfile(solution):
            notes.append("No picture of the best {} of {}: its file {} is missing.".format(
                what, label, best.get("solution_file_recorded") or solution or "(none)"))
            continue
        title = "{} \u2013 {}: best {}\n(objective {}, seed {})".format(
            instance, label, what, plain(best["objective"], 10), best.get("seed"))
        try:
            fig = draw(entry["instance_file"], solution, title)
        except (ValueError, OSError, KeyError, IndexError) as error:
            plt.close("all")
            notes.append("No picture of the best {} of {}: {}.".format(what, label, error))
            continue
        figure = Figure("solution", "{}: best {}".format(label, what))
        figure.caption(fig, "The best of {}'s {} (objective {}). {}".format(
            label, runs_phrase(len([r for r in runs if r["label"] == label])), sense.word,
            setting_caption([best])))
        images.append(figure.save(fig, out_dir, names.take("{}-{}-solution".format(
            stem, slug(label)))))
    return {"name": instance, "images": images, "notes": notes}


def plot_summary(instances, labels, out_dir, names):
    """The figures across all instances: performance profile and box plot of final gaps."""
    all_runs = [r for entry in instances for r in entry.get("runs", [])]
    images, notes = [], []
    for draw, stem in ((plot_performance_profile, "performance-profile"),
                       (plot_final_gaps, "final-gaps")):
        drawn = draw(instances, labels, all_runs)
        if drawn[0] is None:
            notes.extend(drawn[1])
            continue
        figure, fig, more = drawn
        notes.extend(more)
        images.append(figure.save(fig, out_dir, names.take(stem)))
    return {"images": images, "notes": notes}


def earlier_files(manifest_path):
    """The files of the plots an earlier report wrote into this directory."""
    try:
        with open(manifest_path, "r", encoding="utf-8") as f:
            manifest = json.load(f)
        entries = list(manifest.get("instances", [])) + [manifest.get("summary") or {}]
        return [image[key] for entry in entries for image in entry.get("images", [])
                for key in ("file",) + FORMATS if isinstance(image.get(key), str)]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: locus_plots.py RUNS_JSON OUT_DIR\n")
        return EXIT_BAD_INPUT
    try:
        with open(argv[1], "r", encoding="utf-8") as f:
            runs = json.load(f)
        instances, labels = runs["instances"], runs["labels"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        sys.stderr.write("locus_plots: cannot read '{}': {}\n".format(argv[1], error))
        return EXIT_BAD_INPUT
    missing = load_matplotlib()
    if missing:
        sys.stderr.write("matplotlib is not importable by {}: {}\n".format(sys.executable, missing))
        return EXIT_NO_MATPLOTLIB
    out_dir = argv[2]
    os.makedirs(out_dir, exist_ok=True)
    manifest_path = os.path.join(out_dir, "plots.json")
    # The pictures of an earlier report in this directory go; others' files stay.
    for name in earlier_files(manifest_path):
        old = os.path.join(out_dir, os.path.basename(name))
        if os.path.isfile(old):
            os.remove(old)
    names = Names()
    manifest = {"formats": list(FORMATS),
                "instances": [plot_instance(entry, labels, out_dir, names)
                              for entry in instances],
                "summary": plot_summary(instances, labels, out_dir, names)}
    with open(manifest_path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
    os.replace(manifest_path + ".tmp", manifest_path)
    count = sum(len(e["images"]) for e in manifest["instances"] + [manifest["summary"]])
    sys.stdout.write("{} plot{} ({} each)\n".format(count, "" if count == 1 else "s",
                                                   ", ".join(FORMATS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
