from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def tiebreak(value: Any, percent: bool) -> str:
    """A stored tiebreak for the screen: percentages with 2 decimals, lists as counts."""
    if value is None:
        return "–"
    if isinstance(value, list):
        return "/".join(str(v) for v in value)
    if percent:
        return f"{value * 100:.2f}%"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


@register.filter
def points(value: Any) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


@register.filter
def index(sequence: Any, i: int) -> Any:
    return sequence[i]
