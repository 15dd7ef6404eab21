"""Admin: browsing; every change goes through the services (never a raw save).

Scoring inputs (systems, seeds, drops, phases, rounds) are shown read-only: the event
screen changes them through the services, which audit, bump the version and recompute.
A player's name and a match's result can be edited here, through the same services.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from tournaments import services
from tournaments.models import Match, MatchKind, Player, Round, Tournament


class ReadOnly(admin.ModelAdmin):
    """Shown, never written: no add, change or delete from the admin."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(ReadOnly):
    list_display = ["name", "slug", "system", "status", "best_of", "version"]
    search_fields = ["name", "slug"]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Only the name is edited here, through services.rename_player."""

    list_display = ["name", "external_id", "tournament", "dropped_after_round"]
    list_filter = ["tournament"]
    search_fields = ["name"]
    fields = ["name", "external_id", "tournament", "dropped_after_round", "made_phase"]
    readonly_fields = ["external_id", "tournament", "dropped_after_round", "made_phase"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players join through the event screen or an import

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a player's matches are the standings' source of truth

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        services.rename_player(player=obj, name=form.cleaned_data["name"], by=request.user)


@admin.register(Round)
class RoundAdmin(ReadOnly):
    list_display = ["tournament", "number", "phase", "playoff"]
    list_filter = ["tournament"]


class ResultForm(forms.ModelForm):
    """Edits a two-player result; saving goes through services.record_result."""

    wins_first = forms.IntegerField(min_value=0, required=False, label="Games won (first)")
    wins_second = forms.IntegerField(min_value=0, required=False, label="Games won (second)")
    double_loss = forms.BooleanField(required=False)

    class Meta:
        model = Match
        fields = ["draws"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        seats = list(self.instance.seats.order_by("position")) if self.instance.pk else []
        if len(seats) == 2 and self.instance.reported:
            self.fields["wins_first"].initial = seats[0].games_won
            self.fields["wins_second"].initial = seats[1].games_won
        self.fields["double_loss"].initial = self.instance.kind == MatchKind.DOUBLE_LOSS

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        first, second = data.get("wins_first"), data.get("wins_second")
        if (first is None) != (second is None):
            raise forms.ValidationError("Give both players' games won, or neither to clear.")
        if self.instance.kind not in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS):
            raise forms.ValidationError("Only two-player matches have a result to edit here.")
        try:
            if first is not None and not data.get("double_loss"):
                services.check_two_player_result(
                    best_of=self.instance.round.tournament.best_of,
                    wins=(first, second),
                    draws=data.get("draws") or 0,
                )
        except services.ServiceError as exc:
            raise forms.ValidationError(str(exc)) from exc
        return data


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    form = ResultForm
    list_display = ["__str__", "kind", "reported", "players"]
    list_filter = ["round__tournament"]
    list_select_related = ["round"]

    @admin.display(description="Players")
    def players(self, match: Match) -> str:
        return " vs ".join(s.player.name for s in match.seats.select_related("player"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # matches come from pairing or import

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # undo the round's pairing on the event screen instead

    def save_model(self, request: HttpRequest, obj: Match, form: Any, change: bool) -> None:
        data = form.cleaned_data
        first, second = data.get("wins_first"), data.get("wins_second")
        services.record_result(
            match=Match.objects.get(pk=obj.pk),  # the stored row, not the form's edit
            wins=None if first is None else (first, second),
            draws=data.get("draws") or 0,
            double_loss=bool(data.get("double_loss")),
            by=request.user,
        )
