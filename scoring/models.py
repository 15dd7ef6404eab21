"""Stored standings: written by scoring.services.recompute, read by every page."""

from __future__ import annotations

from django.db import models

from tournaments.models import Player, Round, Tournament


class Standing(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="standings")
    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="standing")
    position = models.PositiveIntegerField()
    rank = models.PositiveIntegerField()
    # Exact values as "p/q" strings, rounded copies for display and sorting in SQL.
    points = models.DecimalField(max_digits=14, decimal_places=4)
    points_exact = models.CharField(max_length=60)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    played = models.PositiveIntegerField(default=0)
    tiebreakers = models.JSONField(default=dict)

    class Meta:
        ordering = ["tournament", "position"]
        indexes = [models.Index(fields=["tournament", "position"])]


class StandingsState(models.Model):
    """Which data version the stored standings reflect."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="standings_state"
    )
    after_round = models.PositiveSmallIntegerField(null=True, blank=True)
    computed_at = models.DateTimeField(auto_now=True)


class Outlook(models.Model):
    """ "What do I need?" for one Swiss round (issue 15), written by scoring.outlooks.

    `data` is plain JSON: {"players": {id: answer}, "tables": [table, ...]}, a chance
    being "in", "out" or {"hits": h, "runs": r} (scoring.outlooks.to_json). `version` is
    the tournament's version the figures were computed for: older than the tournament's
    means a newer run is due or under way, and the figures are shown as such.
    """

    class State(models.TextChoices):
        COMPUTING = "computing", "Computing"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"
        NOT_APPLICABLE = "not_applicable", "Not applicable"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="outlooks")
    # An undone pairing deletes its round, and with it the figures computed for it.
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="outlooks")
    state = models.CharField(max_length=16, choices=State.choices, default=State.COMPUTING)
    version = models.PositiveBigIntegerField(default=0)
    rounds_after = models.PositiveSmallIntegerField(default=0)
    cut = models.PositiveSmallIntegerField(default=0)
    # random.Random(seed) handed to compute_outlook reproduces every figure.
    seed = models.BigIntegerField(default=0)
    simulations = models.PositiveIntegerField(default=0)
    margin = models.FloatField(default=0.0)  # display only: nothing is ranked by it
    # What the figures assume: the engine's MODEL as message data ([{"code", "params"}],
    # tournaments.messages), said in the reader's language where shown (issue 36).
    model = models.JSONField(blank=True, default=list)
    data = models.JSONField(default=dict)
    error = models.CharField(max_length=300, blank=True, default="")
    computed_at = models.DateTimeField(null=True, blank=True)
    took_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round"], name="outlook_one_per_round"),
            models.CheckConstraint(
                condition=models.Q(state__in=["computing", "ready", "failed", "not_applicable"]),
                name="outlook_state_known",
            ),
            models.CheckConstraint(
                condition=models.Q(seed__gte=0), name="outlook_seed_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"Outlook of round {self.round_id} ({self.state})"
