"""The infractions of the Magic Infraction Procedure Guide (IPG) and their penalties.

Pure: the standard library only (rules.py re-exports the table as INFRACTIONS; services,
pages and forms read it). Sections and default penalties as the IPG's Appendix A
(Penalty Quick Reference) and its sections 2-4 give them: Missed Trigger carries no
penalty (2.1), Deck Problem is a Warning (3.5, upgraded in the cases it lists),
Improperly Determining a Winner and Bribery and Wagering are Match Losses (4.3, 4.4).
The judge may issue another penalty than the default: the IPG's upgrades and
downgrades (section 1.2) are the judge's call, not this table's.
"""

from __future__ import annotations

from dataclasses import dataclass


def gettext_noop(message: str) -> str:
    """The message as is. Only a mark: makemessages finds the names through it (its
    keyword gettext_noop) while this module stays pure; the pages and services translate
    a name when they show it (django's gettext of the English name)."""
    return message


# The penalties (IPG 1.1), by their stored values (models.PenaltyKind holds the same).
WARNING = "warning"
GAME_LOSS = "game_loss"
MATCH_LOSS = "match_loss"
DISQUALIFICATION = "dq"
PENALTY_NAMES = {
    WARNING: gettext_noop("Warning"),
    GAME_LOSS: gettext_noop("Game Loss"),
    MATCH_LOSS: gettext_noop("Match Loss"),
    DISQUALIFICATION: gettext_noop("Disqualification"),
}
# Least to most severe: what "an upgrade" means.
SEVERITY = (WARNING, GAME_LOSS, MATCH_LOSS, DISQUALIFICATION)

# The IPG's three classes of infractions (sections 2, 3 and 4), in its order.
GAME_PLAY_ERRORS = gettext_noop("Game Play Errors")
TOURNAMENT_ERRORS = gettext_noop("Tournament Errors")
UNSPORTING_CONDUCT = gettext_noop("Unsporting Conduct")
CATEGORIES = (GAME_PLAY_ERRORS, TOURNAMENT_ERRORS, UNSPORTING_CONDUCT)


@dataclass(frozen=True, slots=True)
class Infraction:
    key: str  # stored in Penalty.infraction (at most 40 characters)
    name: str
    category: str
    section: str  # the IPG's section: "3.1"
    penalty: str | None  # the default penalty; None: the IPG gives none (Missed Trigger)

    @property
    def label(self) -> str:
        """ "Tardiness (IPG 3.1)"."""
        return f"{self.name} (IPG {self.section})"

    @property
    def default_name(self) -> str:
        return PENALTY_NAMES[self.penalty] if self.penalty else gettext_noop("No penalty")


def _table(*rows: tuple[str, str, str, str, str | None]) -> dict[str, Infraction]:
    return {key: Infraction(key, name, cat, section, p) for key, name, cat, section, p in rows}


GPE, TE, USC = GAME_PLAY_ERRORS, TOURNAMENT_ERRORS, UNSPORTING_CONDUCT

INFRACTIONS: dict[str, Infraction] = _table(
    ("missed_trigger", gettext_noop("Missed Trigger"), GPE, "2.1", None),
    ("looking_at_extra_cards", gettext_noop("Looking at Extra Cards"), GPE, "2.2", WARNING),
    ("hidden_card_error", gettext_noop("Hidden Card Error"), GPE, "2.3", WARNING),
    ("mulligan_procedure_error", gettext_noop("Mulligan Procedure Error"), GPE, "2.4", WARNING),
    ("game_rule_violation", gettext_noop("Game Rule Violation"), GPE, "2.5", WARNING),
    ("failure_to_maintain_game_state", gettext_noop("Failure to Maintain Game State"), GPE, "2.6", WARNING),
    ("tardiness", gettext_noop("Tardiness"), TE, "3.1", GAME_LOSS),
    ("outside_assistance", gettext_noop("Outside Assistance"), TE, "3.2", MATCH_LOSS),
    ("slow_play", gettext_noop("Slow Play"), TE, "3.3", WARNING),
    ("decklist_problem", gettext_noop("Decklist Problem"), TE, "3.4", GAME_LOSS),
    ("deck_problem", gettext_noop("Deck Problem"), TE, "3.5", WARNING),
    ("limited_procedure_violation", gettext_noop("Limited Procedure Violation"), TE, "3.6", WARNING),
    ("communication_policy_violation", gettext_noop("Communication Policy Violation"), TE, "3.7", WARNING),
    ("marked_cards", gettext_noop("Marked Cards"), TE, "3.8", WARNING),
    ("insufficient_shuffling", gettext_noop("Insufficient Shuffling"), TE, "3.9", WARNING),
    ("unsporting_conduct_minor", gettext_noop("Unsporting Conduct — Minor"), USC, "4.1", WARNING),
    ("unsporting_conduct_major", gettext_noop("Unsporting Conduct — Major"), USC, "4.2", MATCH_LOSS),
    ("improperly_determining_a_winner", gettext_noop("Improperly Determining a Winner"), USC, "4.3",
     MATCH_LOSS),
    ("bribery_and_wagering", gettext_noop("Bribery and Wagering"), USC, "4.4", MATCH_LOSS),
    ("aggressive_behavior", gettext_noop("Aggressive Behavior"), USC, "4.5", DISQUALIFICATION),
    ("theft_of_tournament_material", gettext_noop("Theft of Tournament Material"), USC, "4.6",
     DISQUALIFICATION),
    ("stalling", gettext_noop("Stalling"), USC, "4.7", DISQUALIFICATION),
    ("cheating", gettext_noop("Cheating"), USC, "4.8", DISQUALIFICATION),
)  # fmt: skip


def by_category() -> list[tuple[str, list[Infraction]]]:
    """The infractions grouped by class, in the IPG's order (a form's option groups)."""
    return [(cat, [i for i in INFRACTIONS.values() if i.category == cat]) for cat in CATEGORIES]


def infraction_name(key: str) -> str:
    """The infraction's name; a key this table no longer knows (an older backup) as is."""
    found = INFRACTIONS.get(key)
    return found.name if found is not None else key
