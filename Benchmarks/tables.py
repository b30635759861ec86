"""Formatting shared by the benchmark scripts' markdown tables (suite.py, websocket.py)."""

import statistics


def spread(values, fmt):
    """The median of the values that are there, formatted, with their range when more than one;
    an en dash when there are none."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    text = fmt(statistics.median(values))
    if len(values) > 1:
        text += " (%s–%s)" % (fmt(min(values)), fmt(max(values)))
    return text
