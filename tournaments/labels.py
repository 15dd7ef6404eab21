"""Words the pages show that are stored or computed in English (issue 29): the model's
choice labels, the top cut's round names, the tiebreakers' names and a match's outcome.

They stay English where they are defined (the models' choices are in migrations, the
rules module imports no Django) and are translated where they are shown
(`{% translate tournament.get_status_display %}`, `round_label`): the calls below only
put them in the catalogues for makemessages.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop, pgettext_lazy

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
)
