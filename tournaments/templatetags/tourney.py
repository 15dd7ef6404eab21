from __future__ import annotations

from typing import Any

from django import template
from django.utils.formats import get_format
from django.utils.translation import gettext

from tournaments.labels import seed_change_text, spoken
from tournaments.messages import Message
from tournaments.rules import RoundName

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
        return _local(f"{value * 100:.2f}") + "%"
    if isinstance(value, float):
        return _local(f"{value:.2f}")
    return str(value)


def _local(number: str) -> str:
    """A number written with a "." as the active language writes it ("66,67" in French,
    issue 29). Not number_format: this runs for every cell of a 2,048-row table."""
    mark = get_format("DECIMAL_SEPARATOR")
    return number if mark == "." else number.replace(".", mark)


@register.filter
def points(value: Any) -> str:
    text = f"{value:f}"
    return _local(text.rstrip("0").rstrip(".") if "." in text else text)


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


@register.filter
def translated(text: str) -> str:
    """A variable's text in the reader's language, looked up as the catalogue holds it:
    `{% translate var %}` looks it up with each "%" doubled (Django's Variable), which
    would need a second entry for every name holding one ("OMW%")."""
    return gettext(str(text))


# Round names as the read model keeps them: data (rules.RoundName), since the event's view
# is built once per version for every reader (tournaments.pages.event); each page says
# them in its reader's language here (issues 29, 36). A text is shown as it is, never
# read back into a round: a player named "Round 4" stays a name.


@register.filter
def round_name(name: RoundName | str | None) -> str:
    """A round's name ("Round 4", "Semifinals", "Round of 16") in the active language."""
    if isinstance(name, RoundName):
        return spoken(name.message())
    return "" if name is None else str(name)


@register.filter
def after_round(name: RoundName | str | None) -> str:
    """What the standings are after, as "After round 5" / "After the Semifinals" in the
    active language."""
    if isinstance(name, RoundName):
        return spoken(name.after())
    return "" if name is None else str(name)


@register.filter
def seed_change(message: Message | str) -> str:
    """A change to the top cut's seeds (domain.cut_state) in the active language."""
    return seed_change_text(message) if isinstance(message, Message) else str(message)
