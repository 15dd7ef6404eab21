"""Words the pages show that are stored or computed in English (issue 29): the model's
choice labels, the top cut's round names, the tiebreakers' names and a match's outcome.

They stay English where they are defined (the models' choices are in migrations, the
rules module imports no Django) and are translated where they are shown
(`{% translate tournament.get_status_display %}`, `round_label`): the calls below only
put them in the catalogues for makemessages. The functions at the end translate the
words kept in English (outcomes, places, top-cut finishes) as a page is rendered.
"""

from __future__ import annotations

from django.utils.translation import get_language, gettext_noop, pgettext, pgettext_lazy

from tournaments.messages import Message
from tournaments.rules import Finish, SideResult, ordinal

SYSTEMS = (
    gettext_noop("Magic Tournament Rules"),
    gettext_noop("DCI (older rules)"),
    gettext_noop("Melee.gg"),
    gettext_noop("Draft pod (round robin)"),
    gettext_noop("Board-game league"),
)
STATUSES = (
    gettext_noop("Registration"),
    gettext_noop("Running"),
    gettext_noop("Top cut"),
    gettext_noop("Finished"),
)
PLAYOFF_ROUNDS = (
    gettext_noop("Quarterfinals"),
    gettext_noop("Semifinals"),
    gettext_noop("Final"),
)
TIEBREAKERS = (
    gettext_noop("OMW%"),
    gettext_noop("GW%"),
    gettext_noop("OGW%"),
    gettext_noop("OWP"),
    gettext_noop("WR"),
    gettext_noop("OOWP"),
    gettext_noop("WRR"),
    gettext_noop("Places"),
    gettext_noop("Vs avg"),
    gettext_noop("Raw"),
    gettext_noop("Opponents' win %"),
    gettext_noop("Win resistance"),
    gettext_noop("Opp. opponents' win %"),
    gettext_noop("Win resistance resistance"),
    gettext_noop("Places (1st/2nd/...)"),
    gettext_noop("Vs game average"),
    gettext_noop("Raw score total"),
)
# A match's outcome from one player's side (the player's card), with its context.
OUTCOMES = (
    pgettext_lazy("a match's outcome", "win"),
    pgettext_lazy("a match's outcome", "loss"),
    pgettext_lazy("a match's outcome", "draw"),
    pgettext_lazy("a match's outcome", "bye"),
    # A board-game league table's (rules.result_from_side: "place 2 of 4", "absent").
    pgettext_lazy("a match's outcome", "place"),
    pgettext_lazy("a match's outcome", "absent"),
)

# The outcomes above, by the word the rules and the engine use: `outcome_text`.
_OUTCOMES = {"win", "loss", "draw", "bye", "place", "absent"}


def outcome_text(word: str) -> str:
    """A match's outcome ("win", "loss", "draw", "bye", "place", "absent") in the active
    language; any other word as it is."""
    return pgettext("a match's outcome", word) if word in _OUTCOMES else word


def detail_text(result: SideResult) -> str:
    """What follows the outcome word of a result read from one side (rules.
    result_from_side), in the active language: a score stays as it is ("2-1"), "(double
    loss)" and a league place's "2 of 4" are said from their data."""
    if result.double_loss:
        return pgettext("after a loss", "(double loss)")
    if result.place is not None:
        return pgettext("a place at a table", "%(place)s of %(size)s") % {
            "place": result.place,
            "size": result.size,
        }
    return result.score


def side_result_text(result: SideResult) -> str:
    """A whole result read from one side ("win 2-1", "not reported", "place 2 of 4") in
    the active language: the public pairings' cells (the exports keep the English)."""
    if not result.reported:
        return pgettext("a match's result", "not reported")
    shown = outcome_text(result.outcome)
    rest = detail_text(result)
    return f"{shown} {rest}" if rest else shown


def result_cell_text(result: str) -> str:
    """A match's result as every screen shows it (rules.result_text: "Bye", "Loss",
    "Double loss", or a score or places left as they are) in the active language."""
    words = {
        "Bye": pgettext("a match's result", "Bye"),
        "Loss": pgettext("a match's result", "Loss"),
        "Double loss": pgettext("a match's result", "Double loss"),
    }
    return words.get(result, result)


def ordinal_text(n: int) -> str:
    """A place as the active language writes it: "1st", "2nd" in English (rules.ordinal),
    "1er", "2e" in French, "1.", "2." in German, "1位" in Japanese. Two messages (the
    first place, any other) cover the shipped languages; English keeps its own suffixes,
    which no single message can give."""
    if (get_language() or "en").split("-")[0] == "en":
        return ordinal(n)
    if n == 1:
        return pgettext("a place, the first", "1st")
    return pgettext("a place, any but the first", "%(n)sth") % {"n": n}


def finish_text(finish: Finish) -> str:
    """A top-cut finish (pages.bracket.finishes: its places as numbers) in the active
    language: "5th-8th" in English, "5e-8e" in French, "2位" in Japanese."""
    if finish.first == finish.last:
        return ordinal_text(finish.first)
    return pgettext("a range of places", "%(first)s-%(last)s") % {
        "first": ordinal_text(finish.first),
        "last": ordinal_text(finish.last),
    }


def spoken(message: object) -> str:
    """A message (tournaments.messages.Message) in the reader's language; any other text
    as it is."""
    from django.utils.translation import gettext, ngettext

    if not isinstance(message, Message):
        return str(message)
    return message.render(gettext, ngettext)


def seed_change_text(message: Message) -> str:
    """A change to the top cut's seeds (rules.CUT_CHANGES) in the reader's language: its
    "place" (a number) written as the language writes a place, then said."""
    params = dict(message.params)
    if params.get("place") is not None:
        params["place"] = ordinal_text(int(params["place"]))
    return spoken(Message(message.code, params))


def seed_change_english(message: Message) -> str:
    """The same change in English (the audit's summary line, the exports)."""
    params = dict(message.params)
    if params.get("place") is not None:
        params["place"] = ordinal(int(params["place"]))
    return Message(message.code, params).english()
