from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def tiebreak(value: Any, percent: bool | str) -> str:
    """A stored tiebreak for the screen: percentages with 2 decimals, lists as counts.

    `percent` is a flag, or the tiebreaker's key (shared/spec/interchange.md).
    """
    if isinstance(percent, str):
        percent = percent in PERCENT
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
def clocktime(seconds: int | None) -> str:
    """Seconds as M:SS (or H:MM:SS), sign dropped: the template says which way it runs."""
    if seconds is None:
        return ""
    seconds = abs(int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


# shared/spec/interchange.md: tiebreaker keys by system; short for table headers,
# long for the player's page.
SHORT_LABELS = {
    "omw": "OMW%",
    "gw": "GW%",
    "ogw": "OGW%",
    "owp": "OWP",
    "wr": "WR",
    "oowp": "OOWP",
    "wrr": "WRR",
    "places": "Places",
    "vs_average": "Vs avg",
    "raw_total": "Raw",
}
LABELS = {
    "omw": "OMW%",
    "gw": "GW%",
    "ogw": "OGW%",
    "owp": "Opponents' win %",
    "wr": "Win resistance",
    "oowp": "Opp. opponents' win %",
    "wrr": "Win resistance resistance",
    "places": "Places (1st/2nd/...)",
    "vs_average": "Vs game average",
    "raw_total": "Raw score total",
}
PERCENT = {"omw", "gw", "ogw", "owp", "oowp"}


@register.filter
def tblabel(key: str) -> str:
    return LABELS.get(key, key)
