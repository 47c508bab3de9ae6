#!/usr/bin/env python3
"""Plots of a locus report.

    locus_plots.py RUNS_JSON OUT_DIR

RUNS_JSON is the normalised list of runs that `locus report` writes (R/plots/runs.json): per
instance its problem, best-known value, instance file (or why there is none) and runs with
their label, seed, result and the trace, solution and trajectory files. Writes into OUT_DIR:

  <instance>-convergence.png     best objective (or gap to the best-known value) against time,
                                 one thin line per run, the median of each label thick;
  <instance>-ttt.png             time to target: for targets best-known x (1 + t), t = 0, 1, 5 %
                                 (the best found over all runs when no best-known value), the
                                 fraction of a label's runs that reached it against time;
  <instance>-<label>-solution.png  the best solution of a label: TSP tour, CVRP routes or grid
                                 paths (not for QAP, nor for generated instances);
  plots.json                     what was drawn and what was not, per instance, for the report.

Exit status: 0 done, 2 bad arguments or input, 3 matplotlib (or numpy) not importable.
"""

import json
import math
import os
import re
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3
TARGETS = (0.0, 0.01, 0.05)

plt = None
np = None


def load_matplotlib():
    """Imports matplotlib with the Agg backend, and numpy; returns an error text or None."""
    global plt, np
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
        import numpy
    except Exception as error:  # a half-made environment fails in many ways
        return str(error) or type(error).__name__
    plt, np = pyplot, numpy
    return None


# ---------------------------------------------------------------------------------------------
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
        """The first time the run is at or below `target`, or None."""
        slack = 1e-9 * max(1.0, abs(target))
        for t, v in zip(self.times, self.values):
            if v <= target + slack:
                return t
        return None


def gap(value, best_known):
    return 100.0 * (value - best_known) / abs(best_known)


# ---------------------------------------------------------------------------------------------
# Figures.


def slug(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:80] or "x"


def colour(labels, label):
    return plt.get_cmap("tab10")(labels.index(label) % 10)


def time_axis(ax, tmin, tmax):
    if tmax > 0 and tmax / tmin > 20:
        ax.set_xscale("log")
        ax.set_xlim(tmin, tmax * 1.05)
    ax.set_xlabel("time (s)")


def plot_convergence(instance, labels, curves, best_known, path, maximised=False):
    fig, ax = plt.subplots(figsize=(8, 4.8))
    use_gap = best_known is not None and best_known != 0
    transform = (lambda v: gap(v, best_known)) if use_gap else (lambda v: v)
    drawn = [c for _, c in curves if not c.empty()]
    positive = [t for c in drawn for t in c.times if t > 0]
    tmin = max(min(positive) if positive else 1e-3, 1e-4)
    tmax = max([c.end for c in drawn] + [tmin * 10])
    values = []
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
            ax.step(xs, ys, where="post", color=col, alpha=0.5, linewidth=0.9)
        # The median of the best-so-far values, a run without a solution yet counting as
        # infinite: non-increasing, drawn from when half of the runs have a solution.
        grid = np.geomspace(tmin, tmax, 300)
        median = np.median(np.vstack([c.at(grid) for c in mine]), axis=0)
        median[~np.isfinite(median)] = np.nan
        ax.plot(grid, [transform(v) for v in median], color=col, linewidth=2.4,
                label="{} (median of {} run{})".format(label, len(mine),
                                                       "" if len(mine) == 1 else "s"))
    time_axis(ax, tmin, tmax)
    if use_gap:
        ax.set_ylabel("gap to the best-known value {:.10g} (%)".format(
            -best_known if maximised else best_known))
        if values and max(values) > 10:
            ax.set_yscale("symlog", linthresh=1.0)
        if values:  # from 0 (or a gap below it: a new best) to above the start
            ax.set_ylim(min(0.0, min(values)), max(max(values) * 1.25, 0.1))
    else:
        ax.set_ylabel("best objective, negated (maximised)" if maximised else "best objective")
        if values and min(values) > 0 and max(values) / min(values) > 100:
            ax.set_yscale("log")
    ax.set_title("{}: convergence".format(instance))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_time_to_target(instance, labels, curves, best_known, path, maximised=False):
    finals = [v for _, c in curves for v in c.values]
    shown = (lambda v: -v) if maximised else (lambda v: v)
    if best_known is not None:
        reference, name = float(best_known), "best known {:.10g}".format(shown(best_known))
    else:
        reference, name = min(finals), "best found {:.10g}".format(shown(min(finals)))
    drawn = [c for _, c in curves if not c.empty()]
    positive = [t for c in drawn for t in c.times if t > 0]
    tmin = max(min(positive) if positive else 1e-3, 1e-4)
    tmax = max([c.end for c in drawn] + [tmin * 10])
    fig, axes = plt.subplots(1, len(TARGETS), figsize=(4.2 * len(TARGETS), 4.2), sharey=True)
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
            ax.step(xs, ys, where="post", color=colour(labels, label), linewidth=1.8,
                    label="{} ({}/{})".format(label, len(reached), len(mine)))
        time_axis(ax, tmin, tmax)
        ax.set_ylim(-0.02, 1.05)
        ax.set_title("target {}{}".format(name, "" if t == 0 else " + {:g} %".format(100 * t)),
                     fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    axes[0].set_ylabel("fraction of runs at or below the target")
    fig.suptitle("{}: time to target".format(instance))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def distinct_colours():
    """Twenty colours, the ten strong ones first (tab20 pairs a strong and a light hue)."""
    cmap = plt.get_cmap("tab20")
    return [cmap(i) for i in range(0, 20, 2)] + [cmap(i) for i in range(1, 20, 2)]


def below_legend(ax):
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.04), ncol=3,
              frameon=False)


def picture_axes(title):
    fig, ax = plt.subplots(figsize=(6.4, 6.4))
    ax.set_title(title, fontsize="medium")
    ax.set_aspect("equal")
    return fig, ax


def draw_tour(instance_file, solution_file, title, path):
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
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def draw_routes(instance_file, solution_file, title, path):
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
            raise FormatError("{}: customer {} out of range 1..{}".format(solution_file, bad[0],
                                                                         len(customers)))
        nodes = [depot] + [customers[c - 1] for c in route] + [depot]
        xs = [coords[v][0] for v in nodes]
        ys = [coords[v][1] for v in nodes]
        ax.plot(xs, ys, "-", color=colours[k % 20], linewidth=1.1)
        ax.scatter(xs[1:-1], ys[1:-1], s=10, color=colours[k % 20], zorder=3)
    ax.scatter([coords[depot][0]], [coords[depot][1]], s=70, marker="s", color="black", zorder=4,
               label="depot")
    below_legend(ax)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def draw_grid(instance_file, solution_file, title, path):
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
    below_legend(ax)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


PICTURES = {
    # problem: (what is drawn, drawing function, the run's file to draw)
    "tsp": ("tour", draw_tour, "solution_file"),
    "dcvrp": ("routes", draw_routes, "solution_file"),
    "gridpath": ("paths", draw_grid, "trajectory_file"),
}


# ---------------------------------------------------------------------------------------------


class Names:
    """File names unique within the output directory."""

    def __init__(self):
        self.used = set()

    def take(self, stem):
        name, k = stem + ".png", 2
        while name in self.used:
            name, k = "{}-{}.png".format(stem, k), k + 1
        self.used.add(name)
        return name


def plot_instance(entry, labels, out_dir, names):
    instance = entry["name"]
    images, notes = [], []
    runs = entry.get("runs", [])
    present = [lab for lab in labels if any(r["label"] == lab for r in runs)]
    curves = [(r["label"], Curve(r)) for r in runs]
    sign = sense_sign(runs[0]) if runs else 1.0
    best_known = entry.get("best_known")
    if best_known is not None:
        best_known = sign * best_known
    stem = slug(instance)
    if any(not c.empty() for _, c in curves):
        name = names.take(stem + "-convergence")
        plot_convergence(instance, present, curves, best_known, os.path.join(out_dir, name),
                         sign < 0)
        images.append({"file": name, "alt": "convergence"})
        name = names.take(stem + "-ttt")
        plot_time_to_target(instance, present, curves, best_known, os.path.join(out_dir, name),
                            sign < 0)
        images.append({"file": name, "alt": "time to target"})
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
        title = "{} - {}: best {} (objective {:.10g}, seed {})".format(
            instance, label, what, best["objective"], best.get("seed"))
        name = names.take("{}-{}-solution".format(stem, slug(label)))
        try:
            draw(entry["instance_file"], solution, title, os.path.join(out_dir, name))
        except (ValueError, OSError, KeyError, IndexError) as error:
            plt.close("all")
            notes.append("No picture of the best {} of {}: {}.".format(what, label, error))
            continue
        images.append({"file": name, "alt": "{}: best {}".format(label, what)})
    return {"name": instance, "images": images, "notes": notes}


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
    try:
        with open(manifest_path, "r", encoding="utf-8") as f:
            for entry in json.load(f).get("instances", []):
                for image in entry.get("images", []):
                    old = os.path.join(out_dir, os.path.basename(image["file"]))
                    if os.path.isfile(old):
                        os.remove(old)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    names = Names()
    manifest = {"instances": [plot_instance(entry, labels, out_dir, names)
                              for entry in instances]}
    with open(manifest_path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    os.replace(manifest_path + ".tmp", manifest_path)
    count = sum(len(e["images"]) for e in manifest["instances"])
    sys.stdout.write("{} plot{}\n".format(count, "" if count == 1 else "s"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
