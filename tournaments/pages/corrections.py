"""Corrections after the top cut was seeded: the organizer's notice and review screen.

A Swiss result corrected after the cut was seeded can move players across the cut line
or between seeds. tournaments.domain.cut_state compares the seeds held by the first
playoff round with the stored standings and says which seeds a re-seed would change;
these screens show it unless the organizer already decided for exactly these changes.
services.corrections acts on the answer (re-seed or keep); pages.bracket.cut_note is
what the public bracket says afterwards.
"""

from __future__ import annotations

from typing import Any

from tournaments.domain import cut_state
from tournaments.models import Status, Tournament


def cut_check(t: Tournament) -> dict[str, Any] | None:
    """The pending decision for the organizer's notice, or None.

    Pending: the tournament is in its top cut, a re-seed from the current standings
    would change a seed, and the organizer has not kept the cut for exactly these
    changes. Cheap: no query at all outside the top cut, two while the seeds hold, two
    more when they do not.
    """
    if t.status != Status.TOP_CUT:
        return None
    state = cut_state(t)
    if state is None or not state["changes"] or state["decided"]:
        return None
    return state


def cut_review(t: Tournament, **extra: Any) -> dict[str, Any]:
    """The review screen: the state of the cut (None: no top cut to check) and what the
    view adds (a message)."""
    state = cut_state(t) if t.status == Status.TOP_CUT else None
    return {"tournament": t, "cut": state, **extra}
