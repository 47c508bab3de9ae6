"""Figures of tours, routes and convergence (matplotlib), returned rather than saved."""

import numpy as np

__all__ = ["tour", "routes", "convergence"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError("locus.plots needs matplotlib (pip install matplotlib, or the "
                          "Debian package python3-matplotlib)") from error
    return plt


def _axes(ax):
    plt = _pyplot()
    if ax is None:
        figure, ax = plt.subplots(figsize=(6, 6))
        return figure, ax
    return ax.figure, ax


def _coordinates(source):
    from .models import Model
    if isinstance(source, Model):
        data = source.data
        if "coordinates" not in data:
            raise ValueError("this model has no coordinates in Python (a model read from a file "
                             "or built from a matrix): pass the coordinates instead")
        return np.asarray(data["coordinates"], dtype=float)
    xy = np.asarray(source, dtype=float)
    if xy.ndim != 2 or xy.shape[1] != 2:
        raise ValueError(f"coordinates must have shape (n, 2), got {xy.shape}")
    return xy


def tour(source, tour, *, ax=None, title=None):
    """A closed tour over the coordinates of `source` (a model built from coordinates, or an
    (n, 2) array). Returns the figure."""
    xy = _coordinates(source)
    order = np.asarray(tour, dtype=np.int64)
    figure, ax = _axes(ax)
    closed = np.append(order, order[:1])
    ax.plot(xy[closed, 0], xy[closed, 1], "-", lw=0.8, color="tab:blue")
    ax.plot(xy[:, 0], xy[:, 1], ".", ms=3, color="black")
    ax.set_aspect("equal")
    ax.set_title(title or f"tour of {len(order)} cities")
    return figure


def routes(source, routes, *, ax=None, title=None):
    """Routes (lists of customers) from and to the depot, node 0 of the coordinates of
    `source`, one color each. Returns the figure."""
    xy = _coordinates(source)
    figure, ax = _axes(ax)
    colors = _pyplot().get_cmap("tab20")
    for k, route in enumerate(routes):
        path = np.concatenate(([0], np.asarray(route, dtype=np.int64), [0]))
        ax.plot(xy[path, 0], xy[path, 1], "-", lw=0.9, color=colors(k % 20))
    ax.plot(xy[1:, 0], xy[1:, 1], ".", ms=3, color="black")
    ax.plot(xy[0, 0], xy[0, 1], "s", ms=7, color="red", label="depot")
    ax.set_aspect("equal")
    ax.set_title(title or f"{len(routes)} routes")
    return figure


def convergence(*results, ax=None, gap=False, labels=None):
    """The best objective (or its gap in % to the best-known value, `gap=True`) over time of
    each Result, as a step plot. Returns the figure."""
    figure, ax = _axes(ax)
    for k, result in enumerate(results):
        t = np.asarray(result.trace["time_s"])
        y = np.asarray(result.trace["objective"], dtype=float)
        if gap:
            best_known = result.line.get("best_known")
            if best_known is None:
                raise ValueError("gap=True needs results with a best-known value")
            y = 100.0 * (y - best_known) / abs(best_known)
        if len(t):
            t = np.append(t, result.total_time_s)
            y = np.append(y, y[-1])
        label = labels[k] if labels else f"{result.backend} seed {result.seed}"
        ax.step(t, y, where="post", label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("gap (%)" if gap else "best objective")
    ax.legend()
    return figure
