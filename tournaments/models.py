"""Players, rounds, matches and seats: the source of truth every standing is computed from."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

# Marked for the catalogues, kept English: a label may be stored (audit lines) and is
# translated where it is shown ({% translate x.get_y_display %}, gettext(label)).
from django.utils.translation import gettext_noop as _


class System(models.TextChoices):
    # shared/spec/scoring.md, one preset per section
    MTR = "mtr", _("Magic Tournament Rules")
    DCI = "dci", _("DCI (older rules)")
    MELEE = "melee", _("Melee.gg")
    POD = "pod", _("Draft pod (round robin)")
    LEAGUE = "league", _("Board-game league")


class Status(models.TextChoices):
    REGISTRATION = "registration", _("Registration")
    RUNNING = "running", _("Running")
    TOP_CUT = "top_cut", _("Top cut")
    FINISHED = "finished", _("Finished")


class CutDecision(models.TextChoices):
    """The organizer's answer when a correction to a Swiss result changed the top cut's
    seeds (services.corrections): none yet, keep the cut as seeded, or re-seed it."""

    NONE = "", _("None")
    KEEP = "keep", _("Kept as seeded")
    RESEED = "reseed", _("Re-seeded")


class Enforcement(models.TextChoices):
    """The Rules Enforcement Level (Magic Tournament Rules 1.3 and appendix F): casual
    events may bend pairings on request; competitive ones pair strictly by the rules."""

    REGULAR = "regular", _("Regular (casual)")
    COMPETITIVE = "competitive", _("Competitive")
    PROFESSIONAL = "professional", _("Professional")


class DeckFormat(models.TextChoices):
    """The format an event's decklists are checked against: constructed formats by the
    legality Scryfall's data gives, limited (sealed, draft) by counts only."""

    NONE = "", _("No decklists")
    STANDARD = "standard", _("Standard")
    PIONEER = "pioneer", _("Pioneer")
    MODERN = "modern", _("Modern")
    LEGACY = "legacy", _("Legacy")
    VINTAGE = "vintage", _("Vintage")
    PAUPER = "pauper", _("Pauper")
    LIMITED = "limited", _("Limited (sealed or draft)")


class Tournament(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=220, unique=True)
    system = models.CharField(max_length=10, choices=System.choices, default=System.MTR)
    best_of = models.PositiveSmallIntegerField(default=3)
    seed = models.BigIntegerField(help_text="Seeds pairings and the final random tiebreak.")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.REGISTRATION)
    planned_rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    top_cut = models.PositiveSmallIntegerField(default=0)
    # The event's IANA time zone ("Europe/Paris"): the times its organizer reads (the
    # audit log) are in it. Empty: the server's (settings.TIME_ZONE).
    time_zone = models.CharField(max_length=64, blank=True, default="")
    # The event's default language (a code of settings.LANGUAGES): its pages speak it to
    # a reader whose browser asks for none we ship. Empty: English (tournaments.locale).
    language = models.CharField(max_length=8, blank=True, default="")
    # Decklists (issue 28): the format lists are checked against ("" : none asked for),
    # the deadline after which players' lists are locked (None: round 1's pairing), and
    # whether the top cut's lists are public.
    deck_format = models.CharField(
        max_length=10, choices=DeckFormat.choices, blank=True, default=DeckFormat.NONE
    )
    decklist_deadline = models.DateTimeField(null=True, blank=True)
    decklists_published = models.BooleanField(default=False)
    # The Swiss phase being played (2 = Day 2 after a cut; shared/spec/scoring.md, phases).
    phase = models.PositiveSmallIntegerField(default=1)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="owned_tournaments",
    )
    staff = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="staffed_tournaments",
        through="StaffMember",
    )
    # The Rules Enforcement Level (Enforcement): pairing restrictions are casual only.
    enforcement = models.CharField(
        max_length=12, choices=Enforcement.choices, default=Enforcement.REGULAR
    )
    # Bumped by every write; live pages use it for ETags and caches for freshness.
    version = models.PositiveBigIntegerField(default=0)
    # Players register themselves from a link while this is on (closed by round 1's
    # pairing); `registration_cap` entries at most; each entry waits for the organizer's
    # approval when `registration_approval` is on.
    registration_open = models.BooleanField(default=False)
    registration_cap = models.PositiveIntegerField(null=True, blank=True)
    registration_approval = models.BooleanField(default=False)
    # Check-in used: round 1 pairs only the players who checked in.
    check_in = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # The top cut (services.playoff, services.corrections). When it was started: a Swiss
    # result changed since then is a correction (domain.cut_state). The organizer's
    # decision after a correction changed the seeds, with the seed changes it answered
    # (domain.cut_state's fingerprint) and the correction it followed (round, table and
    # when, as far as known). Starting the cut again clears the decision.
    cut_started_at = models.DateTimeField(null=True, blank=True)
    cut_decision = models.CharField(
        max_length=6, choices=CutDecision.choices, blank=True, default=CutDecision.NONE
    )
    cut_decided_at = models.DateTimeField(null=True, blank=True)
    cut_decision_changes = models.JSONField(null=True, blank=True)
    cut_correction_round = models.PositiveSmallIntegerField(null=True, blank=True)
    cut_correction_table = models.PositiveIntegerField(null=True, blank=True)
    cut_correction_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(best_of__in=[1, 3]), name="best_of_1_or_3"),
            models.CheckConstraint(condition=Q(top_cut__in=[0, 2, 4, 8]), name="top_cut_size"),
            models.CheckConstraint(
                condition=Q(system__in=System.values), name="tournament_system_known"
            ),
            models.CheckConstraint(
                condition=Q(enforcement__in=Enforcement.values), name="tournament_enforcement_known"
            ),
            models.CheckConstraint(
                condition=Q(deck_format__in=DeckFormat.values), name="tournament_deck_format_known"
            ),
            # No decision and nothing about one, or a known decision with its time and
            # the seed changes it answered.
            models.CheckConstraint(
                condition=Q(
                    cut_decision=CutDecision.NONE,
                    cut_decided_at__isnull=True,
                    cut_decision_changes__isnull=True,
                    cut_correction_round__isnull=True,
                    cut_correction_table__isnull=True,
                    cut_correction_at__isnull=True,
                )
                | Q(
                    cut_decision__in=[CutDecision.KEEP, CutDecision.RESEED],
                    cut_decided_at__isnull=False,
                    cut_decision_changes__isnull=False,
                ),
                name="tournament_cut_decision_whole",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Entry(models.TextChoices):
    """A player's entry: accepted (plays), pending (waits for the organizer), rejected."""

    ACCEPTED = "accepted", _("Accepted")
    PENDING = "pending", _("Pending")
    REJECTED = "rejected", _("Rejected")


class Player(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="players")
    # The id the interchange document uses ("p1", "scott"); generated for browser entries.
    external_id = models.CharField(max_length=100)
    name = models.CharField(max_length=200)
    dropped_after_round = models.PositiveSmallIntegerField(null=True, blank=True)
    # The last Swiss phase this player made the cut for; pairing takes only players who
    # made the tournament's current phase.
    made_phase = models.PositiveSmallIntegerField(default=1)
    entry = models.CharField(max_length=10, choices=Entry.choices, default=Entry.ACCEPTED)
    # Private: how the organizer reaches the player. Never on a public page or export.
    contact = models.CharField(max_length=200, blank=True, default="")
    # SHA-256 (hex) of the player's private link token; the token itself is never stored
    # (tournaments/tokens.py). Empty: no link issued.
    token_hash = models.CharField(max_length=64, blank=True, default="")
    checked_in_at = models.DateTimeField(null=True, blank=True)
    # The drop was the player's own ("drop after this round" on their private page).
    dropped_by_player = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "external_id"], name="player_id_unique_in_tournament"
            ),
            models.UniqueConstraint(
                fields=["token_hash"], condition=~Q(token_hash=""), name="player_token_unique"
            ),
            models.CheckConstraint(condition=Q(entry__in=Entry.values), name="player_entry_known"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def dropped(self) -> bool:
        return self.dropped_after_round is not None


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    phase = models.PositiveSmallIntegerField(default=1)
    playoff = models.BooleanField(default=False)
    # The round clock: running while ends_at is set, paused while paused_remaining is set.
    # Phones count down from ends_at themselves, so the server sees no per-second requests.
    clock_ends_at = models.DateTimeField(null=True, blank=True)
    clock_paused_remaining = models.DurationField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="round_number_unique_in_tournament"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
            models.CheckConstraint(condition=Q(phase__gte=1), name="round_phase_positive"),
        ]

    def __str__(self) -> str:
        return f"Round {self.number}"


class MatchKind(models.TextChoices):
    # shared/spec/interchange.md: the shapes a match entry can take
    PLAYED = "played", _("Match")
    BYE = "bye", _("Bye")
    LOSS = "loss", _("Loss with no opponent")
    DOUBLE_LOSS = "double_loss", _("Double loss")
    GAME = "game", _("Multi-player game")


class Match(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="matches")
    table = models.PositiveIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=12, choices=MatchKind.choices, default=MatchKind.PLAYED)
    # False while a round is in progress and nobody has reported this match yet.
    reported = models.BooleanField(default=False)
    draws = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["round__number", "table", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(draws__gte=0), name="draws_not_negative"),
        ]
        # "Is this round started / still open?" (domain.current_round, the player
        # page's rounds): an index lookup per round instead of a scan of its matches.
        indexes = [models.Index(fields=["round", "reported"], name="match_round_reported")]

    def __str__(self) -> str:
        return f"{self.round} table {self.table}"


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    # Denormalised from match.round so the database itself refuses a player twice in a round.
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    games_won = models.PositiveSmallIntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    absent = models.BooleanField(default=False)
    # The player's points when the round was paired, as the pairings show them (the
    # standings move on; a pairing sheet should not). None: not known (a pod's schedule).
    points_at_pairing = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)

    class Meta:
        ordering = ["match_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["round", "player"], name="player_once_per_round"),
            models.UniqueConstraint(fields=["match", "position"], name="seat_position_unique"),
            models.CheckConstraint(
                condition=Q(games_won__isnull=True) | Q(games_won__gte=0),
                name="games_won_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(place__isnull=True) | Q(place__gte=1), name="place_positive"
            ),
        ]


class ReportState(models.TextChoices):
    """A player's own report of their match (issue 14): confirmed by the opponent, it is
    entered through the same service as the organizer's entry."""

    REPORTED = "reported", _("Reported, waiting for the opponent")
    CONFIRMED = "confirmed", _("Confirmed by the opponent")
    DISPUTED = "disputed", _("Disputed by the opponent")
    OVERRIDDEN = "overridden", _("Entered by the organizer")


class Report(models.Model):
    """One per match: what a player reported (games in seat order), and what became of it.

    `counter_*`: the opponent's own result (seat order too) when they disputed the report
    with one ("Report this instead"); all three None otherwise. It is kept while the
    report is disputed and after the organizer settles it, so both claims stay readable.
    """

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="report")
    reporter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="reports")
    wins_a = models.PositiveSmallIntegerField()
    wins_b = models.PositiveSmallIntegerField()
    draws = models.PositiveSmallIntegerField(default=0)
    state = models.CharField(
        max_length=10, choices=ReportState.choices, default=ReportState.REPORTED
    )
    answered_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="answered"
    )
    counter_wins_a = models.PositiveSmallIntegerField(null=True, blank=True)
    counter_wins_b = models.PositiveSmallIntegerField(null=True, blank=True)
    counter_draws = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=ReportState.values), name="report_state_known"
            ),
            models.CheckConstraint(
                condition=Q(counter_wins_a__isnull=True, counter_wins_b__isnull=True)
                & Q(counter_draws__isnull=True)
                | Q(counter_wins_a__isnull=False, counter_wins_b__isnull=False)
                & Q(counter_draws__isnull=False),
                name="report_counter_claim_whole",
            ),
        ]

    @property
    def claim(self) -> tuple[int, int, int]:
        """The report: games in seat order, then draws."""
        return (self.wins_a, self.wins_b, self.draws)

    @property
    def counter_claim(self) -> tuple[int, int, int] | None:
        """The opponent's own result (seat order, then draws), if they gave one."""
        if self.counter_wins_a is None or self.counter_wins_b is None:
            return None
        return (self.counter_wins_a, self.counter_wins_b, self.counter_draws or 0)

    def set_counter_claim(self, claim: tuple[int, int, int] | None) -> None:
        a, b, d = claim if claim is not None else (None, None, None)
        self.counter_wins_a, self.counter_wins_b, self.counter_draws = a, b, d


class AuditAction(models.TextChoices):
    RESULT = "result", _("Result")
    GAME = "game", _("League table")
    REGISTER = "register", _("Registration")
    REMOVE = "remove", _("Removal")
    RENAME = "rename", _("Rename")
    DROP = "drop", _("Drop")
    READMIT = "readmit", _("Re-admit")
    PAIR = "pair", _("Pairing")
    UNDO = "undo", _("Undo pairing")
    CUT = "cut", _("Day-2 cut")
    TOP_CUT = "top_cut", _("Top cut")
    FINISH = "finish", _("Finish")
    REOPEN = "reopen", _("Reopen")
    CLOCK = "clock", _("Round clock")
    STAFF = "staff", _("Staff")
    PLAN = "plan", _("Planned rounds")
    IMPORT = "import", _("Import")
    ENTRY = "entry", _("Registration decision")
    CHECK_IN = "check_in", _("Check-in")
    REPORT = "report", _("Player's report")
    LINK = "link", _("Private link")
    CALL = "call", _("Judge call")
    EXTENSION = "extension", _("Time extension")
    DECK_CHECK = "deck_check", _("Deck check")
    PENALTY = "penalty", _("Penalty")
    SEATING = "seating", _("Fixed seat")
    RESTRICTION = "restriction", _("Pairing restriction")
    DECKLIST = "decklist", _("Decklist")


class AuditEntry(models.Model):
    """Who changed what, when, with the values before and after. Written by services.

    Beside the summary, what the entry is about as fields the audit screen filters on:
    the round and table (None when the entry is about no round or table) and the players
    (AuditPlayer rows). A re-seed of the top cut is about two rounds: `round` is the
    corrected one, `after["round"]` the playoff round it pairs again.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="audit")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    action = models.CharField(max_length=12, choices=AuditAction.choices)
    summary = models.CharField(max_length=300)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    round = models.PositiveSmallIntegerField(null=True, blank=True)
    table = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=AuditAction.values), name="audit_action_known"
            ),
        ]
        indexes = [models.Index(fields=["tournament", "round"], name="audit_round")]


class AuditPlayer(models.Model):
    """A player an audit entry is about, as the entry knew them: their interchange id
    (None when an entry written before these rows named them only) and their name then
    (a renamed player's entries keep the old name; a removed player's keep theirs)."""

    entry = models.ForeignKey(AuditEntry, on_delete=models.CASCADE, related_name="players")
    external_id = models.CharField(max_length=100, null=True, blank=True)
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["external_id"], name="audit_player_external_id")]


class AccountOrigin(models.Model):
    """An account an event's owner created on the staff screen (services.staff): for whom.

    Whoever holds a set-password link holds the account, so besides site admins only this
    owner may make one for it (services.staff.renew_set_password_link). Accounts without
    a row (create_organizer's, the admin's) get new links from a site admin only.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="account_origin",
    )
    # The event's owner, even when a site admin clicked for them: the account is theirs to
    # hand out. None once that owner's account is deleted: site admins only, then.
    created_for = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)


# --- judges on the floor (issue 27) ---------------------------------------------------------


class StaffRole(models.TextChoices):
    """What a staff member may do (tournaments.permissions). The owner is the organizer.
    A scorekeeper runs the event as the owner does; judges run the floor (calls, time
    extensions, deck checks, penalties) and enter results, but never pair, cut or finish.
    A head judge also takes the calls handed up and issues disqualifications (Magic
    Tournament Rules 1.6 and 1.7: the head judge is the final authority on the floor)."""

    SCOREKEEPER = "scorekeeper", _("Scorekeeper")
    HEAD_JUDGE = "head_judge", _("Head judge")
    FLOOR_JUDGE = "floor_judge", _("Floor judge")


class StaffMember(models.Model):
    """Tournament.staff's rows, with each member's role. The table is the one the plain
    many-to-many field used (migration 0012 keeps it): existing staff are scorekeepers."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    role = models.CharField(max_length=12, choices=StaffRole.choices, default=StaffRole.SCOREKEEPER)

    class Meta:
        db_table = "tournaments_tournament_staff"
        # As the many-to-many field made it (an unnamed unique index), so the table stays.
        unique_together = [("tournament", "user")]
        constraints = [
            models.CheckConstraint(condition=Q(role__in=StaffRole.values), name="staff_role_known"),
        ]


class CallState(models.TextChoices):
    OPEN = "open", _("Waiting for a judge")
    CLAIMED = "claimed", _("A judge is on the way")
    HEAD = "head", _("Handed to the head judge")
    RESOLVED = "resolved", _("Resolved")


class JudgeCall(models.Model):
    """A player's "Call a judge" (or one a judge opens for a table), until it is resolved."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="calls")
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="calls"
    )
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    table = models.PositiveIntegerField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, default="")
    state = models.CharField(max_length=8, choices=CallState.choices, default=CallState.OPEN)
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=CallState.values), name="call_state_known"
            ),
        ]
        indexes = [models.Index(fields=["tournament", "state"], name="call_event_state")]


class DeckCheck(models.Model):
    """A deck check of one table's players: started, then finished; the time it took is
    added to the table's time (a TimeExtension pointing back here)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="deck_checks")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deck_checks")
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["started_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(finished_at__isnull=True) | Q(finished_at__gte=models.F("started_at")),
                name="deck_check_finishes_after_start",
            ),
        ]


class ExtensionReason(models.TextChoices):
    JUDGE = "judge", _("Judge's time extension")
    DECK_CHECK = "deck_check", _("Deck check")


class TimeExtension(models.Model):
    """Minutes added to one table's time in its round; a table's end is the round's end
    plus the sum of its extensions."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="extensions")
    minutes = models.PositiveSmallIntegerField()
    reason = models.CharField(
        max_length=10, choices=ExtensionReason.choices, default=ExtensionReason.JUDGE
    )
    deck_check = models.OneToOneField(
        DeckCheck, null=True, blank=True, on_delete=models.CASCADE, related_name="extension"
    )
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(minutes__gte=1), name="extension_positive"),
            models.CheckConstraint(
                condition=Q(reason__in=ExtensionReason.values), name="extension_reason_known"
            ),
        ]


class PenaltyKind(models.TextChoices):
    """Magic Infraction Procedure Guide, section 1.1 (penalty definitions)."""

    WARNING = "warning", _("Warning")
    GAME_LOSS = "game_loss", _("Game Loss")
    MATCH_LOSS = "match_loss", _("Match Loss")
    DISQUALIFICATION = "dq", _("Disqualification")


class Penalty(models.Model):
    """One penalty as the judge issued it. `infraction` is a key of
    tournaments.rules.INFRACTIONS (the IPG's name and category)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="penalties")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="penalties")
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="penalties"
    )
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    table = models.PositiveIntegerField(null=True, blank=True)
    infraction = models.CharField(max_length=40)
    penalty = models.CharField(max_length=10, choices=PenaltyKind.choices)
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(penalty__in=PenaltyKind.values), name="penalty_kind_known"
            ),
        ]


class FixedSeat(models.Model):
    """The organizer fixed this player to a table (accessibility, a stream table)."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="fixed_seat")
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="fixed_seats")
    table = models.PositiveIntegerField()
    reason = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        ordering = ["table"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "table"], name="fixed_table_once"),
            models.CheckConstraint(condition=Q(table__gte=1), name="fixed_table_positive"),
        ]


class PairingRestriction(models.Model):
    """Two players who must not be paired (casual events only; services refuse it at
    competitive ones). Stored once per pair, the smaller player id first."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="pairing_restrictions"
    )
    player_a = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    player_b = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["player_a", "player_b"], name="restriction_once"),
            models.CheckConstraint(
                condition=Q(player_a__lt=models.F("player_b")), name="restriction_ordered"
            ),
        ]


# --- decklists (issue 28) -------------------------------------------------------------------


class Card(models.Model):
    """One card of the card data the installer loads (`manage.py load_cards FILE`, the
    public Scryfall bulk file of oracle cards). `key` is the name as decklists are matched
    against it (tournaments.decklists.parse.card_key: case, accents and the "//" of split
    cards normalised); `legalities` is Scryfall's {format: "legal" | "not_legal" |
    "restricted" | "banned"}."""

    key = models.CharField(max_length=200, unique=True)
    name = models.CharField(max_length=200)
    type_line = models.CharField(max_length=200, blank=True, default="")
    legalities = models.JSONField(default=dict)
    # Basic lands, and cards whose text lets a deck hold any number of them ("A deck
    # can have any number of cards named ..."): the four-copy rule does not apply.
    any_number = models.BooleanField(default=False)
    # Cards that say a deck may hold up to N copies (Seven Dwarves: 7, Nazgûl: 9).
    max_copies = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["name"]


class Decklist(models.Model):
    """A player's registered decklist: the text as submitted, and what parsing and the
    checks made of it. `main` and `side` are [[count, card name], ...] in the list's
    order; `problems` are the checks' messages as data, never sentences (issue 36): each
    a tournaments.messages.Message's data(), {"code": "decklist....", "params": {...}}; a
    problem about one line is {"code": "decklist.line", "params": {"line": n, "problem":
    <the problem's data>}} (tournaments.decklists.messages). Pages say them in the
    reader's language (pages.decklists.shown_problem), exports in English."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="decklist")
    text = models.TextField()
    main = models.JSONField(default=list)
    side = models.JSONField(default=list)
    problems = models.JSONField(default=list)
    legal = models.BooleanField(default=False)
    # Whether card names were checked against card data (none loaded: counts only).
    names_checked = models.BooleanField(default=False)
    submitted_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    # Who last changed it: the player (None) or a judge/organizer after the lock.
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["player_id"]


# --- notifications with Web Push (issue 29) -------------------------------------------------


class PushSubscription(models.Model):
    """A browser's Web Push subscription (the Push API's PushSubscription): a player's,
    made on their private page, or a judge's, made on the judges' screen of one event.
    `endpoint` is the push service's address for that browser; `p256dh` (the browser's
    P-256 public key) and `auth` (its 16-byte secret), base64url, encrypt what is sent
    (RFC 8291). Each page registers its service worker with its own scope, so a browser
    gets one endpoint per private link or judges' screen."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="push_subscriptions",
    )
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    # The language the page was read in when subscribing: what is sent is worded in it.
    language = models.CharField(max_length=16, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    failures = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(player__isnull=False, user__isnull=True)
                | Q(player__isnull=True, user__isnull=False),
                name="push_subscription_player_or_user",
            ),
        ]
        indexes = [models.Index(fields=["tournament", "user"], name="push_event_user")]


class PushMessage(models.Model):
    """One notification waiting to be sent (the outbox): written in the transaction of
    the write it tells of, delivered later by the sender (tournaments.webpush), never in
    a request. `kind` and `facts` say what happened (the pairing's round, table and
    opponent ...); the sender words them in the subscription's language. `key`, when set,
    makes a message once-only per subscription (the round clock's warning)."""

    subscription = models.ForeignKey(
        PushSubscription, on_delete=models.CASCADE, related_name="messages"
    )
    kind = models.CharField(max_length=16)
    facts = models.JSONField(default=dict)
    key = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    # Given up: too many failed attempts, refused for good, or too old to be worth sending.
    gone = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "key"], condition=~Q(key=""), name="push_message_once"
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(sent_at__isnull=True, gone=False),
                name="push_message_due",
            )
        ]
