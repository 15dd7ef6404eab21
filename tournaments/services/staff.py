"""Staff: the owner adds or removes people who may run the event like the owner."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from tournaments.models import AuditAction, Tournament
from tournaments.services.writing import ServiceError, writing


def add_staff(*, tournament: Tournament, username: str, by: Any = None) -> Any:
    username = username.strip()
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ServiceError(f"There is no user called {username!r}.")
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        if user.pk == t.owner_id:
            raise ServiceError(f"{username} owns this tournament already.")
        if t.staff.filter(pk=user.pk).exists():
            raise ServiceError(f"{username} is staff already.")
        t.staff.add(user)
        w.touched()
        w.audit(AuditAction.STAFF, f"Added {username} to the staff", after=username)
    return user


def remove_staff(*, tournament: Tournament, user_id: int, by: Any = None) -> None:
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        user = t.staff.filter(pk=user_id).first()
        if user is None:
            raise ServiceError("That user is not on the staff.")
        t.staff.remove(user)
        w.touched()
        w.audit(AuditAction.STAFF, f"Removed {user.get_username()} from the staff",
                before=user.get_username())  # fmt: skip
