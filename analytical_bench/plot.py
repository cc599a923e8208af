"""The accuracy-against-N plot (matplotlib, from the ``plots`` extra)."""

from __future__ import annotations

from pathlib import Path

from uac import UserError


class PlotsUnavailable(UserError, ImportError):
    """matplotlib is not installed."""


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:
        raise PlotsUnavailable(
            "the accuracy plot needs matplotlib, which is not installed.",
            hint="Install the plots extra: pip install 'user-as-code[plots]' (or run with --no-plot).",
        ) from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_series(
    series: dict[str, dict[int, float]],
    path: Path,
    *,
    title: str,
    ylabel: str,
) -> Path:
    """One line per series (x = record count N on a log axis, y = percent)."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4.2), dpi=120)
    try:
        ticks: set[int] = set()
        markers = "osD^vP*X"
        for number, (label, points) in enumerate(series.items()):
            xs = sorted(points)
            ticks.update(xs)
            axes.plot(xs, [points[x] for x in xs], marker=markers[number % len(markers)], label=label)
        axes.set_xscale("log")
        if ticks:
            axes.set_xticks(sorted(ticks))
            axes.set_xticklabels([str(t) for t in sorted(ticks)])
            axes.minorticks_off()
        axes.set_ylim(-3, 103)
        axes.set_xlabel("records per case (N, log scale)")
        axes.set_ylabel(ylabel)
        axes.set_title(title)
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize=8, loc="lower left")
        figure.tight_layout()
        path = Path(path)
        figure.savefig(path, format="png", metadata={"Software": None})
    finally:
        plt.close(figure)
    return path
