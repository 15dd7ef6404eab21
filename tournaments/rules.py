"""Rule constants, each once, with where it comes from.

Pure: the standard library and the pure scoring engine only (services, pages, forms and
the pairing engines read these; nothing here reads the database).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

# shared/spec/scoring.md sections 1, 2 and 2b: the three Magic presets share the Swiss
# tiebreakers (OMW%, GW%, OGW%); pod (section 3) and league (section 4) do not. Defined
# by the scoring engine, which decides what a system computes.
from scoring.engine.mtr import SWISS_SYSTEMS as SWISS_SYSTEMS

# The Magic Infraction Procedure Guide's infractions and default penalties (issue 27).
from tournaments.infractions import INFRACTIONS as INFRACTIONS
from tournaments.messages import Message, gettext_noop, template

# Best of 1 or 3 (MTR 2.3, "a match is won by the first player to win two games" in a best
# of 3); the database holds the same rule as a check constraint.
BEST_OF = (1, 3)

# Single-elimination top cut sizes the bracket seeds (MTR Appendix E: top 8, 4 or 2); 0 is
# "no top cut". tournaments/models.py repeats the list in its check constraint because a
# migration must not import code that may change.
TOP_CUT_SIZES = (2, 4, 8)
TOP_CUT_CHOICES = (0, *TOP_CUT_SIZES)

# The Swiss tiebreakers in the order they break ties after match points, under the keys
# the stored standings use (shared/spec/scoring.md s.1: OMW%, then GW%, then OGW%; the
# same for mtr, dci and melee).
SWISS_TIEBREAK_ORDER = ("omw", "gw", "ogw")


def playoff_name(matches: int) -> str:
    """A playoff round's name in English (the exports', the logs'): `RoundName`'s."""
    return RoundName.playoff(matches).message().english()


# A round's name and what the standings are "after", as messages: whole in each language,
# the catalogue's msgids shared with the pages that said them before (issue 36).
ROUND_NUMBER = template("round.number", gettext_noop("Round %(number)s"))
ROUND_OF = template("round.of", gettext_noop("Round of %(players)s"))
QUARTERFINALS = template("round.quarterfinals", gettext_noop("Quarterfinals"))
SEMIFINALS = template("round.semifinals", gettext_noop("Semifinals"))
FINAL = template("round.final", gettext_noop("Final"))
AFTER_ROUND = template("after.round", gettext_noop("After round %(number)s"))
AFTER_THE = template("after.the", gettext_noop("After the %(round)s"))
_PLAYOFF_TEMPLATES = {4: QUARTERFINALS, 2: SEMIFINALS, 1: FINAL}


@dataclass(frozen=True)
class RoundName:
    """A round's name as data: its number and, in the top cut, its number of matches
    (None for a Swiss round). The read model keeps this, never the English words, so a
    page says it in its reader's language (tournaments.templatetags.tourney.round_name)
    and grammar (the Final *is* paired) follows the size, not a word's ending. A round
    named only by its size (a bracket drawn ahead) has number 0."""

    number: int
    playoff_matches: int | None = None

    @classmethod
    def playoff(cls, matches: int, number: int = 0) -> RoundName:
        return cls(number, matches)

    @property
    def is_playoff(self) -> bool:
        return self.playoff_matches is not None

    @property
    def plural(self) -> bool:
        """The name is a plural noun: "the Semifinals are", "the Final is", "round 4 is".
        Every playoff round but the final is named for its several matches."""
        return self.playoff_matches is not None and self.playoff_matches > 1

    def message(self) -> Message:
        """ "Round 4", "Round of 16", "Quarterfinals", "Semifinals", "Final"."""
        if self.playoff_matches is None:
            return ROUND_NUMBER(number=self.number)
        named = _PLAYOFF_TEMPLATES.get(self.playoff_matches)
        return named() if named is not None else ROUND_OF(players=2 * self.playoff_matches)

    def after(self) -> Message:
        """What the standings are after: "After round 5", "After the Semifinals"."""
        if self.playoff_matches is None:
            return AFTER_ROUND(number=self.number)
        return AFTER_THE(round=self.message())

    def __str__(self) -> str:
        # English, for the exports and the logs; a page renders `message()` instead.
        return self.message().english()


# A correction after the cut, one change to the seeds (domain.cut_state), as the
# organizer reads it. "place" is a number, written as a place (labels.ordinal_text) where
# the message is said; "points" a number already written as text.
CUT_ENTERS = template(
    "cut.enters",
    gettext_noop("%(name)s (%(points)s points, now %(place)s) would enter as seed %(new_seed)s"),
)
CUT_ENTERS_UNSCORED = template(
    "cut.enters_unscored",
    gettext_noop("%(name)s (now %(place)s) would enter as seed %(new_seed)s"),
)
CUT_OUT_UNRANKED = template(
    "cut.out_unranked",
    gettext_noop("%(name)s (seed %(seed)s) is no longer ranked: out of the cut"),
)
CUT_OUT = template(
    "cut.out", gettext_noop("%(name)s (seed %(seed)s) would now be %(place)s: out of the cut")
)
CUT_MOVES = template(
    "cut.moves",
    gettext_noop("%(name)s (seed %(seed)s) would now be %(place)s: seed %(new_seed)s"),
)
CUT_CHANGES = (CUT_ENTERS, CUT_ENTERS_UNSCORED, CUT_OUT_UNRANKED, CUT_OUT, CUT_MOVES)


# A top cut's finishes (MTR Appendix E ranks the players a playoff round knocks out
# together): the final's winner, then each round's losers sharing its places.
class Finish(NamedTuple):
    """A top-cut finish as numbers: the places a player shares, `first` to `last` (both
    1 for the champion). The pages say it in the reader's language (labels.finish_text);
    the exports in English (`english`)."""

    first: int
    last: int

    @property
    def english(self) -> str:
        """ "1st", "2nd", "3rd-4th", "5th-8th" (the exports' and the command line's)."""
        if self.first == self.last:
            return ordinal(self.first)
        return f"{ordinal(self.first)}-{ordinal(self.last)}"


CHAMPION = Finish(1, 1)


def knocked_out(matches: int) -> Finish:
    """The finish of a player who lost in a playoff round of `matches` matches: 2nd (the
    final), 3rd-4th (a semifinal), 5th-8th (a quarterfinal)."""
    if matches == 1:
        return Finish(2, 2)
    return Finish(matches + 1, 2 * matches)


# Magic Tournament Rules, Appendix E: Swiss rounds by the number of players (9-16 play 4
# with a top 4 or 5 with a top 8). (upper bound of players, rounds) in order.
MTR_ROUND_TABLE: tuple[tuple[int, int], ...] = (
    (8, 3),
    (16, 5),
    (32, 5),
    (64, 6),
    (128, 7),
    (226, 8),
    (409, 9),
)
MTR_ROUNDS_MORE = 10  # 410 players and more
# The same table as the dashboard shows it.
MTR_ROUNDS_SHOWN = (
    ("2-8", 3),
    ("9-16", "4 (top 4) or 5 (top 8)"),
    ("17-32", 5),
    ("33-64", 6),
    ("65-128", 7),
    ("129-226", 8),
    ("227-409", 9),
    ("410+", 10),
)


def suggested_swiss_rounds(player_count: int) -> int:
    """Swiss rounds for a field of `player_count` (MTR Appendix E).

    9-16 players get 5 rounds (the MTR's number with a top-8 cut; 4 would only suit a
    top 4). At least 3 rounds, so 8 or fewer players play 3.
    """
    if player_count < 2:
        raise ValueError("a Swiss needs at least 2 players")
    for limit, rounds in MTR_ROUND_TABLE:
        if player_count <= limit:
            return rounds
    return MTR_ROUNDS_MORE


# MTR 2.5: a 50-minute minimum for a best-of-three round.
DEFAULT_ROUND_MINUTES = 50
ROUND_MINUTES_RANGE = (1, 600)

# shared/spec/interchange.md: far above any real match; stops a typo such as 2000.
MAX_GAMES = 99


# --- Result wording (one text for the organizer, the phones and the audit log) ----------


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st: places and seeds as written."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# shared/spec/interchange.md, match kinds.
PLAYED, BYE, LOSS, DOUBLE_LOSS, GAME = "played", "bye", "loss", "double_loss", "game"


class _Match(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def reported(self) -> bool: ...
    @property
    def draws(self) -> int: ...


class _Seat(Protocol):
    @property
    def games_won(self) -> int | None: ...
    @property
    def place(self) -> int | None: ...
    @property
    def absent(self) -> bool: ...


# The organizer's one-click results per best-of (MTR 2.3: 2-0, 2-1 and the draws a best
# of 3 allows; a playoff match needs a winner): (label, value) where value is "wins-wins[-draws]".
# The round screen's one-click results by best-of, as scores (seat order). MTR 2.3:
# unfinished games count as drawn, so the agreed draw of a best of 3 is 0-0-3.
QUICK_RESULTS = {3: ["2-0", "2-1", "1-2", "0-2", "1-1"], 1: ["1-0", "0-1"]}
DRAW_RESULTS = {3: "0-0-3", 1: "0-0-1"}  # the agreed draw: the quick entry's "d" too
PLAYOFF_RESULTS = {3: ["2-0", "2-1", "1-2", "0-2"], 1: ["1-0", "0-1"]}  # nobody draws


def score_text(wins: Sequence[int], draws: int) -> str:
    """Games won by each seat in seat order, then drawn games if any: "2-1", "0-0-3"."""
    text = "-".join(str(w) for w in wins)
    return f"{text}-{draws}" if draws else text


def result_text(match: _Match, seats: Sequence[_Seat]) -> str:
    """A match's result as every screen shows it (seat order); "" while it is missing."""
    if match.kind == BYE:
        return "Bye"
    if match.kind == LOSS:
        return "Loss"
    if not match.reported:
        return ""
    if match.kind == DOUBLE_LOSS:
        return "Double loss"
    if match.kind == GAME:
        return " / ".join(str(s.place) for s in seats if not s.absent)
    return score_text([s.games_won or 0 for s in seats], match.draws)


# Issue 13: a player reads their own result as the outcome word, then their games first.
NOT_REPORTED = "not reported"


# The outcome words of a result read from one side (`SideResult.outcome`).
WIN, LOSS_WORD, DRAW_WORD, BYE_WORD, PLACE, ABSENT = "win", "loss", "draw", "bye", "place", "absent"


@dataclass(frozen=True)
class SideResult:
    """A match's result as one player reads it, as data: the outcome word ("win",
    "loss", "draw", "bye", "place", "absent", or NOT_REPORTED), their score with their
    games first ("2-1", "1-1-1"; "" when none), a league table's place of how many
    seated, and whether the loss was a double loss. The pages say it in the reader's
    language (labels.side_result_text); the exports in English (`english`)."""

    outcome: str
    score: str = ""
    place: int | None = None
    size: int | None = None
    double_loss: bool = False

    @property
    def reported(self) -> bool:
        return self.outcome != NOT_REPORTED

    @property
    def word(self) -> str:
        """The outcome as one word: the CSS class of the pages' cells and the "outcome" of
        players/<id>.json ("not" for a result not reported, as they always had it)."""
        return "not" if self.outcome == NOT_REPORTED else self.outcome

    @property
    def english(self) -> str:
        """ "win 2-1", "loss 0-2", "draw 1-1-1", "bye", "loss", "loss (double loss)",
        "place 2 of 4", "absent", "not reported": what the exports and the JSON API say."""
        if self.double_loss:
            return f"{self.outcome} (double loss)"
        if self.place is not None:
            return f"{self.outcome} {self.place} of {self.size}"
        return f"{self.outcome} {self.score}" if self.score else self.outcome

    def __str__(self) -> str:
        return self.english


def result_from_side(match: _Match, seats: Sequence[_Seat], mine: int) -> SideResult:
    """A match's result as the player in `seats[mine]` reads it (`SideResult`, in English
    "win 2-1", "loss 0-2", "draw 1-1-1": their games, the opponent's, then drawn games;
    "bye", "loss" (no opponent), "loss (double loss)", "place 2 of 4" (a league table),
    "not reported").

    `result_text` reads in seat order and stays what the by-table screens show; this is
    for every place that shows one player's result (their page, find me, the JSON API).
    """
    if match.kind == BYE:
        return SideResult(BYE_WORD)
    if match.kind == LOSS:
        return SideResult(LOSS_WORD)
    if not match.reported:
        return SideResult(NOT_REPORTED)
    if match.kind == DOUBLE_LOSS:
        return SideResult(LOSS_WORD, double_loss=True)
    seat = seats[mine]
    if match.kind == GAME:
        if seat.absent or seat.place is None:
            return SideResult(ABSENT)
        return SideResult(PLACE, place=seat.place, size=sum(1 for s in seats if not s.absent))
    own = seat.games_won or 0
    theirs = [s.games_won or 0 for i, s in enumerate(seats) if i != mine]
    best = max(theirs, default=0)
    outcome = WIN if own > best else LOSS_WORD if own < best else DRAW_WORD
    return SideResult(outcome, score=score_text([own, *theirs], match.draws))


def check_two_player_result(
    *, best_of: int, wins: Sequence[int], draws: int, recorded: bool = False
) -> Message | None:
    """What a best-of-N match cannot produce, as a message; None when it can.

    MTR 2.3: the first to N//2+1 games wins the match; unfinished games count as drawn,
    so 0-0-3 (an intentional draw) fits a best of 3. `recorded` (an imported event):
    shared/spec/interchange.md keeps what real events recorded beyond that (3-0, or 2-1
    plus three drawn games in a best of 3), but still nothing no match could produce:
    more than N games won by one player, two winners, more than 2N games in all.
    """
    if len(wins) != 2:
        return TWO_PLAYERS()
    if any(w < 0 for w in wins) or draws < 0:
        return NEGATIVE()
    need = best_of // 2 + 1
    if recorded:
        if any(w > best_of for w in wins):
            return TOO_MANY_WON(best_of=best_of, most=best_of)
        if min(wins) >= need:
            return TWO_WINNERS()
        if sum(wins) + draws > 2 * best_of:
            return TOO_MANY_GAMES_RECORDED(best_of=best_of, most=2 * best_of)
        return None
    if any(w > need for w in wins):
        return TOO_MANY_WON(best_of=best_of, most=need)
    if wins[0] == need and wins[1] == need:
        return TWO_WINNERS()
    if sum(wins) + draws > best_of:
        return TOO_MANY_GAMES(best_of=best_of, most=best_of)
    return None


TWO_PLAYERS = template(
    "result.two_players",
    gettext_noop("A result gives the games won by each of the two players."),
)
NEGATIVE = template("result.negative", gettext_noop("Game counts cannot be negative."))
TOO_MANY_WON = template(
    "result.too_many_won",
    gettext_noop("In a best-of-%(best_of)s nobody wins more than %(most)s games."),
)
TWO_WINNERS = template("result.two_winners", gettext_noop("Both players cannot win the match."))
TOO_MANY_GAMES_RECORDED = template(
    "result.too_many_games_recorded",
    gettext_noop("A best-of-%(best_of)s has at most %(most)s games, even as recorded."),
)
TOO_MANY_GAMES = template(
    "result.too_many_games", gettext_noop("A best-of-%(best_of)s has at most %(most)s games.")
)


# --- CSV -------------------------------------------------------------------------------

# OWASP "CSV injection": a spreadsheet runs a cell that starts with one of these as a
# formula (=HYPERLINK(...)). Text cells that do are written with a leading apostrophe,
# which spreadsheets show as text; numbers are left as numbers.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
