"""Stored standings: written by scoring.services.recompute, read by every page."""

from __future__ import annotations

from django.db import models

from tournaments.models import Player, Tournament


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
