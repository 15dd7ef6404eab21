"""The organizer's forms: validation only (types, ranges, shapes); services decide the rest."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any
from zoneinfo import available_timezones

from django import forms
from django.conf import settings
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.models import Enforcement, Seat, StaffRole, System
from tournaments.rules import TOP_CUT_CHOICES, TOP_CUT_SIZES


def shown(choices: list[tuple[str, str]]) -> list[tuple[str, Any]]:
    """A model's choices with their labels in the reader's language (the models keep
    them English, tournaments/models.py)."""
    return [(value, _(label)) for value, label in choices]


NOT_NEGATIVE = {
    "min_value": _("Game counts cannot be negative."),
    "invalid": _("Enter a whole number of games."),
}
RESULT_RE = re.compile(r"^\s*(\d{1,2})-(\d{1,2})(?:-(\d{1,2}))?\s*$", re.ASCII)


def _top(size: int) -> str:
    return gettext("Top %(size)s") % {"size": size}


# A choice's label, said in the language of the request that shows the form.
top_label = lazy(_top, str)


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=200, strip=True)
    system = forms.ChoiceField(choices=shown(System.choices), initial=System.MTR)
    best_of = forms.TypedChoiceField(
        choices=[(3, _("Best of 3")), (1, _("Best of 1"))], coerce=int, initial=3
    )
    planned_rounds = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=30,
        label=_("Planned Swiss rounds"),
        help_text=_("Leave empty to decide later: the event screen suggests a number."),
    )
    top_cut = forms.TypedChoiceField(
        choices=[(n, top_label(n) if n else _("No top cut")) for n in TOP_CUT_CHOICES],
        coerce=int,
        initial=0,
    )
    time_zone = forms.ChoiceField(
        choices=lambda: [(z, z) for z in sorted(available_timezones())],
        initial=lambda: settings.TIME_ZONE,
        required=False,  # empty: the server's (settings.TIME_ZONE)
        label=_("Time zone"),
        help_text=_("Where the event is played: the audit log's times are in it."),
    )
    enforcement = forms.ChoiceField(
        choices=shown(Enforcement.choices),
        initial=Enforcement.REGULAR,
        required=False,  # empty (a form of before this field): Regular
        label=_("Rules Enforcement Level"),
        help_text=_(
            "Regular for casual events: only they may keep two players from being "
            "paired. Changeable later on the event's Seating screen."
        ),
    )

    def clean_enforcement(self) -> str:
        return self.cleaned_data.get("enforcement") or Enforcement.REGULAR


class PlanForm(forms.Form):
    """Planned Swiss rounds and the top cut, adjustable once the field is known."""

    planned_rounds = TournamentForm.base_fields["planned_rounds"]
    top_cut = TournamentForm.base_fields["top_cut"]


class PlayerForm(forms.Form):
    name = forms.CharField(max_length=200, strip=True, label=_("Player name"))


class PasteForm(forms.Form):
    names = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        label=_("Player names, one a line"),
    )

    def clean_names(self) -> list[str]:
        names = [line.strip() for line in self.cleaned_data["names"].splitlines()]
        names = [n for n in names if n]
        if not names:
            raise forms.ValidationError(gettext("Give at least one player name."))
        for number, name in enumerate(names, start=1):
            if len(name) > 200:
                raise forms.ValidationError(
                    gettext("Line %(line)s: the name is longer than 200 characters.")
                    % {"line": number}
                )
        return names


class ResultForm(forms.Form):
    """A one-click result ("2-1", "0-0-3") or the small form: games, draws, double loss, clear."""

    result = forms.CharField(required=False, max_length=12)
    wins_a = forms.IntegerField(
        required=False, min_value=0, max_value=99, error_messages=NOT_NEGATIVE
    )
    wins_b = forms.IntegerField(
        required=False, min_value=0, max_value=99, error_messages=NOT_NEGATIVE
    )
    draws = forms.IntegerField(
        required=False, min_value=0, max_value=99, error_messages=NOT_NEGATIVE
    )
    action = forms.ChoiceField(
        required=False,
        choices=[("save", _("Save")), ("double_loss", _("Double loss")), ("clear", _("Clear"))],
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        action = data.get("action") or "save"
        if action == "clear":
            data.update(wins=None, draws=0, double_loss=False)
        elif action == "double_loss":
            data.update(wins=(0, 0), draws=0, double_loss=True)
        elif data.get("result"):
            m = RESULT_RE.match(data["result"])
            if m is None:
                raise forms.ValidationError(gettext("A result looks like 2-1 or 0-0-3."))
            data.update(wins=(int(m[1]), int(m[2])), draws=int(m[3] or 0), double_loss=False)
        else:
            if data.get("wins_a") is None or data.get("wins_b") is None:
                raise forms.ValidationError(gettext("Give the games won by both players."))
            data.update(
                wins=(data["wins_a"], data["wins_b"]),
                draws=data.get("draws") or 0,
                double_loss=False,
            )
        return data


class GameForm(forms.Form):
    """A league table: per seat a place, a raw score and an absent box."""

    action = forms.ChoiceField(required=False, choices=[("save", _("Save")), ("clear", _("Clear"))])

    def __init__(self, *args: Any, seats: list[Seat], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seats = seats
        for seat in seats:
            self.fields[f"place_{seat.pk}"] = forms.IntegerField(
                required=False,
                min_value=1,
                max_value=99,
                error_messages={
                    "min_value": _("Places start at 1."),
                    "invalid": _("A place is a whole number."),
                },
            )
            self.fields[f"score_{seat.pk}"] = forms.DecimalField(
                required=False,
                max_digits=14,
                decimal_places=4,
                error_messages={"invalid": _("A score is a number.")},
            )
            self.fields[f"absent_{seat.pk}"] = forms.BooleanField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        absent = [s.player_id for s in self.seats if data.get(f"absent_{s.pk}")]
        if (data.get("action") or "save") == "clear":
            data.update(places=None, scores=None, absent=absent)
            return data
        places: list[int] = []
        scores: list[Decimal] = []
        for seat in self.seats:
            if seat.player_id in absent:
                continue
            place, score = data.get(f"place_{seat.pk}"), data.get(f"score_{seat.pk}")
            if place is None or score is None:
                raise forms.ValidationError(
                    gettext("Give a place and a score for %(name)s (or mark them absent).")
                    % {"name": seat.player.name}
                )
            places.append(place)
            scores.append(score)
        data.update(places=places, scores=scores, absent=absent)
        return data


class CutForm(forms.Form):
    mode = forms.ChoiceField(
        choices=[
            ("points", _("At least this many match points")),
            ("top", _("The top N players")),
        ],
        initial="points",
        widget=forms.RadioSelect,
    )
    value = forms.IntegerField(
        min_value=0,
        max_value=100000,
        error_messages={"invalid": _("Enter a whole number."), "min_value": _("Enter 0 or more.")},
    )


class TopCutForm(forms.Form):
    size = forms.TypedChoiceField(
        choices=[(n, top_label(n)) for n in reversed(TOP_CUT_SIZES)], coerce=int, initial=8
    )


class StaffForm(forms.Form):
    """A username to add to an event's staff (an existing account, or a new one)."""

    username = forms.CharField(max_length=150)
    # Left out (an older form, a script): a scorekeeper, as every staff member was before roles.
    role = forms.ChoiceField(
        choices=shown(StaffRole.choices), initial=StaffRole.SCOREKEEPER, required=False
    )

    def clean_role(self) -> str:
        return self.cleaned_data["role"] or StaffRole.SCOREKEEPER
