"""Staff: the owner adds or removes people who may run the event like the owner, and
creates accounts for helpers who have none (no mail server needed: the owner hands them
a one-time link to set their own password)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext_lazy

from tournaments.messages import Message, gettext_noop, template
from tournaments.models import AccountOrigin, AuditAction, StaffMember, StaffRole, Tournament
from tournaments.services.writing import ServiceError, writing

# Refusals, raised as Messages and said where they are shown (issue 36).
OWNER_ONLY_MSG = template(
    "staff.owner_only",
    gettext_noop("Only the event's owner creates staff accounts and their links."),
)
# Lazy: views.accounts raises it too, each time in the request's language.
OWNER_ONLY = gettext_lazy(OWNER_ONLY_MSG.singular)
# %(known)s: the roles' labels, said where raised (StaffRole's choices, not templates).
NOT_A_ROLE = template(
    "staff.not_a_role", gettext_noop("%(role)r is not a staff role: pick one of %(known)s.")
)
NO_SUCH_USER = template("staff.no_such_user", gettext_noop("There is no user called %(username)r."))
OWNS_ALREADY = template(
    "staff.owns_already", gettext_noop("%(username)s owns this tournament already.")
)
STAFF_ALREADY = template("staff.staff_already", gettext_noop("%(username)s is staff already."))
NOT_STAFF = template("staff.not_staff", gettext_noop("That user is not on the staff."))
NO_USERNAME = template("staff.no_username", gettext_noop("Give a username for the new account."))
# %(problems)s: the user model's validators' messages, said by Django where raised.
BAD_USERNAME = template("staff.bad_username", gettext_noop("Username %(username)r: %(problems)s"))
TAKEN = template("staff.taken", gettext_noop("An account called %(username)r exists already."))
# %(refusal)s: TAKEN (a Message).
TAKEN_ADD = template(
    "staff.taken_add",
    gettext_noop("%(refusal)s To make them staff, add them by username above."),
)
HAS_PASSWORD = template(
    "staff.has_password",
    gettext_noop("%(name)s has set a password already: they log in with it."),
)
NOT_CREATED_HERE = template(
    "staff.not_created_here",
    gettext_noop(
        "%(name)s's account was not created on your staff screen: ask a site admin for "
        "its set-password link."
    ),
)
LOGGED_IN = template(
    "staff.logged_in",
    gettext_noop("%(name)s has logged in before: ask a site admin for its set-password link."),
)
WORKS_ELSEWHERE = template(
    "staff.works_elsewhere",
    gettext_noop(
        "%(name)s also works at other organizers' events: ask a site admin for its "
        "set-password link."
    ),
)


class UsernameTaken(ServiceError):
    """The new account's username (in any case) belongs to someone already."""


def _role(role: str) -> StaffRole:
    if role not in StaffRole.values:
        known = ", ".join(str(label) for label in StaffRole.labels)
        raise ServiceError(NOT_A_ROLE(role=role, known=known))
    return StaffRole(role)


def add_staff(
    *, tournament: Tournament, username: str, role: str = StaffRole.SCOREKEEPER, by: Any = None
) -> Any:
    role = _role(role)
    username = username.strip()
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ServiceError(NO_SUCH_USER(username=username))
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        if user.pk == t.owner_id:
            raise ServiceError(OWNS_ALREADY(username=username))
        if t.staff.filter(pk=user.pk).exists():
            raise ServiceError(STAFF_ALREADY(username=username))
        t.staff.add(user, through_defaults={"role": role})
        w.touched()
        w.audit(AuditAction.STAFF, f"Added {username} to the staff as {role.label.lower()}",
                after={"event": "added", "username": username, "role": role.value})  # fmt: skip
    return user


def set_staff_role(*, tournament: Tournament, user_id: int, role: str, by: Any = None) -> None:
    """Make a staff member a scorekeeper, head judge or floor judge."""
    role = _role(role)
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        member = (
            StaffMember.objects.select_for_update()
            .select_related("user")
            .filter(tournament=t, user_id=user_id)
            .first()
        )
        if member is None:
            raise ServiceError(NOT_STAFF())
        if member.role == role:
            return
        before = member.role
        member.role = role
        member.save(update_fields=["role"])
        w.touched()
        name = member.user.get_username()
        w.audit(AuditAction.STAFF, f"{name} is now {role.label.lower()}",
                before={"username": name, "role": before},
                after={"event": "role", "username": name, "role": role.value})  # fmt: skip


def remove_staff(*, tournament: Tournament, user_id: int, by: Any = None) -> None:
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        user = t.staff.filter(pk=user_id).first()
        if user is None:
            raise ServiceError(NOT_STAFF())
        t.staff.remove(user)
        w.touched()
        w.audit(AuditAction.STAFF, f"Removed {user.get_username()} from the staff",
                before=user.get_username())  # fmt: skip


def create_account(*, username: str, superuser: bool = False) -> Any:
    """A login without a usable password: its holder sets one through
    `set_password_path(user)`, so no password is ever chosen by, or shown to, anyone else."""
    model = get_user_model()
    username = username.strip()
    if not username:
        raise ServiceError(NO_USERNAME())
    try:
        # The user model's own rules: at most 150 characters, letters, digits and @.+-_
        model._meta.get_field(model.USERNAME_FIELD).run_validators(username)
    except ValidationError as exc:
        raise ServiceError(
            BAD_USERNAME(username=username, problems=" ".join(exc.messages))
        ) from None
    # Usernames are unique as typed; one differing only in case would be a confusing twin.
    existing = model.objects.filter(**{f"{model.USERNAME_FIELD}__iexact": username}).first()
    if existing is not None:
        raise UsernameTaken(TAKEN(username=existing.get_username()))
    fields = {"is_staff": True, "is_superuser": True} if superuser else {}
    try:
        with transaction.atomic():  # a twin created meanwhile fails here, not the caller's block
            return model.objects.create_user(username, password=None, **fields)
    except IntegrityError:
        raise UsernameTaken(TAKEN(username=username)) from None


def create_staff_account(
    *, tournament: Tournament, username: str, role: str = StaffRole.SCOREKEEPER, by: Any = None
) -> Any:
    """A new account, on this event's staff at once; the caller hands out its link."""
    role = _role(role)
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        _check_owner(t, by)
        try:
            user = create_account(username=username)
        except UsernameTaken as exc:
            raise UsernameTaken(TAKEN_ADD(refusal=exc.message)) from None
        t.staff.add(user, through_defaults={"role": role})
        AccountOrigin.objects.create(user=user, created_for_id=t.owner_id, tournament=t)
        w.touched()
        w.audit(AuditAction.STAFF, f"Staff account created: {user.get_username()}",
                after={"event": "created", "username": user.get_username(), "role": role.value})  # fmt: skip
    return user


def renew_set_password_link(*, tournament: Tournament, user_id: int, by: Any = None) -> Any:
    """Make every earlier set-password link of a staff account that has not set its
    password stop working; the caller then hands out a new one (`set_password_path`)."""
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        _check_owner(t, by)
        user = t.staff.filter(pk=user_id).first()
        if user is None:
            raise ServiceError(NOT_STAFF())
        name = user.get_username()
        if user.has_usable_password():
            raise ServiceError(HAS_PASSWORD(name=name))
        if not (by is None or getattr(by, "is_superuser", False)):
            refusal = _why_the_owner_may_not_renew(t, user)
            if refusal:
                raise ServiceError(refusal)
        # The token hashes the stored password: a fresh unusable one voids the old links.
        user.set_unusable_password()
        user.save(update_fields=["password"])
        w.audit(AuditAction.STAFF, f"New set-password link for {name}",
                after={"event": "link", "username": name})  # fmt: skip
    return user


def _why_the_owner_may_not_renew(t: Tournament, user: Any) -> Message | None:
    """Whoever holds a set-password link holds the account: adding someone's username to
    one's staff must not let an owner take over an account that has not set its password
    yet (an organizer's from create_organizer, another owner's helper). An owner renews
    the link of an account created for them on their staff screen, never used, and
    working at no other organizer's event; None when that is so."""
    name = user.get_username()
    origin = AccountOrigin.objects.filter(user=user).first()
    if origin is None or origin.created_for_id is None or origin.created_for_id != t.owner_id:
        return NOT_CREATED_HERE(name=name)
    if user.last_login is not None:
        return LOGGED_IN(name=name)
    if (
        user.is_staff
        or user.is_superuser
        or user.owned_tournaments.exists()
        or user.staffed_tournaments.exclude(owner_id=t.owner_id).exists()
    ):
        return WORKS_ELSEWHERE(name=name)
    return None


def renew_account_link(*, username: str) -> Any:
    """The command line's (a site admin's) new set-password link for any account that has
    not set its password, e.g. an organizer whose create_organizer link expired; earlier
    links stop working. The caller prints `set_password_path(user)`."""
    model = get_user_model()
    with transaction.atomic():
        user = (
            model.objects.select_for_update()
            .filter(**{model.USERNAME_FIELD: username.strip()})
            .first()
        )
        if user is None:
            raise ServiceError(f"There is no user called {username.strip()!r}.")
        if user.has_usable_password():
            raise ServiceError(
                f"{user.get_username()} has set a password already: to replace it, "
                "use manage.py changepassword."
            )
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def set_password_path(user: Any) -> str:
    """/accounts/set-password/<uid>/<token>/: works until the password is set (the token
    hashes the stored password) and for settings.PASSWORD_RESET_TIMEOUT at most."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("set_password", args=[uid, default_token_generator.make_token(user)])


def _check_owner(t: Tournament, by: Any) -> None:
    # by=None is the command line or a test: trusted callers. A person must own the event.
    if by is not None and not (getattr(by, "is_superuser", False) or t.owner_id == by.pk):
        raise ServiceError(OWNER_ONLY_MSG())


def staff_members(tournament: Tournament) -> list[Any]:
    """The staff screen's rows: each user with `role` (its StaffRole) and `role_label`."""
    rows = StaffMember.objects.filter(tournament=tournament).select_related("user")
    out = []
    for row in rows.order_by("user__username"):
        row.user.role = row.role
        row.user.role_label = StaffRole(row.role).label
        out.append(row.user)
    return out
