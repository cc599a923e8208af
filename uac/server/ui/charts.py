"""Pictures rendered on the server as inline SVG: no scripts, no external assets.

Labels are escaped here (they may be domain names or dates, but nothing that
goes into markup is trusted); colours come from the inspector's stylesheet
through class names, so the pages need no inline styles.
"""

from __future__ import annotations

import datetime as _dt

from markupsafe import Markup, escape


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def column_chart(points: list[tuple[str, int]], *, title: str, height: int = 160, bar: int = 14) -> Markup:
    """Vertical bars, one per (label, value), e.g. facts per month; every few labels shown."""
    if not points:
        return Markup('<p class="muted">nothing to draw yet</p>')
    top = max(v for _, v in points) or 1
    gap = 4
    width = max(240, len(points) * (bar + gap) + 40)
    plot = height - 30
    every = max(1, -(-56 // (bar + gap)), len(points) // 12)  # labels 56 px apart at least
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
        f'<text class="axis" x="0" y="10">{top}</text>',
        f'<line class="axis-line" x1="30" y1="{plot}" x2="{width}" y2="{plot}"/>',
    ]
    for i, (label, value) in enumerate(points):
        x = 34 + i * (bar + gap)
        h = plot * value / top
        parts.append(
            f'<rect class="bar" x="{x}" y="{_num(plot - h)}" width="{bar}" height="{_num(h)}">'
            f"<title>{escape(label)}: {value}</title></rect>"
        )
        if i % every == 0:
            parts.append(f'<text class="axis" x="{x}" y="{plot + 14}">{escape(label)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def bar_chart(points: list[tuple[str, int]], *, title: str, width: int = 420, row: int = 20) -> Markup:
    """Horizontal bars, one per (label, value), e.g. records per domain."""
    if not points:
        return Markup('<p class="muted">nothing to draw yet</p>')
    top = max(v for _, v in points) or 1
    label_w = 120
    plot = width - label_w - 50
    height = row * len(points) + 4
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
    ]
    for i, (label, value) in enumerate(points):
        y = i * row + 2
        w = max(1.0, plot * value / top) if value else 0.0
        parts.append(f'<text class="label" x="0" y="{y + 13}">{escape(label[:18])}</text>')
        parts.append(
            f'<rect class="bar" x="{label_w}" y="{y + 2}" width="{_num(w)}" height="{row - 6}">'
            f"<title>{escape(label)}: {value}</title></rect>"
        )
        parts.append(f'<text class="axis" x="{_num(label_w + w + 4)}" y="{y + 13}">{value}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def interval_bar(
    start: _dt.date | None,
    end: _dt.date | None,
    lo: _dt.date,
    hi: _dt.date,
    *,
    width: int = 220,
    superseded: bool = False,
) -> Markup:
    """A fact's validity interval ``[start, end)`` on the axis ``lo .. hi`` (open end: to ``hi``)."""
    span = max(1, (hi - lo).days)
    first = start or lo
    last = end or hi
    x = width * max(0, (first - lo).days) / span
    w = max(2.0, width * max(0, (last - first).days) / span)
    kind = "bar superseded" if superseded else "bar"
    title = f"valid {first.isoformat()} – {end.isoformat() if end else 'now'}"
    return Markup(
        f'<svg class="interval" viewBox="0 0 {width} 12" width="{width}" height="12" xmlns="http://www.w3.org/2000/svg">'
        f'<rect class="track" x="0" y="3" width="{width}" height="6"/>'
        f'<rect class="{kind}" x="{_num(x)}" y="1" width="{_num(min(w, width - x))}" height="10"><title>{escape(title)}</title></rect>'
        "</svg>"
    )
