"""Issue 24 item 5: an event owner could take over any account that had not set its
password yet (add the username as staff, ask for a new set-password link, set it: the
rightful holder's own link then answered 410). A set-password link for an existing
account is now made by a site admin, or by the owner the account was created for on their
staff screen while it is unused and works at no other organizer's event."""

from __future__ import annotations

import re
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from tournaments import services
from tournaments.models import AccountOrigin, AuditEntry, Tournament

pytestmark = pytest.mark.django_db
LINK = re.compile(r"/accounts/set-password/[^/\s\"<]+/[^/\s\"<]+/")
GOOD = "a-long-tournament-password-7"


@pytest.fixture
def event(owner: User) -> Tournament:
    return services.create_tournament(name="Takeover Cup", owner=owner, seed=3)


@pytest.fixture
def mallory(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("mallory")


@pytest.fixture
def mallory_event(mallory: User) -> Tournament:
    return services.create_tournament(name="Mallory Open", owner=mallory, seed=4)


def logged_in(user: User) -> Client:
    c = Client()
    c.force_login(user)
    return c


def link_in(text: str) -> str:
    found = LINK.search(text)
    assert found, text
    return found.group(0)


def set_password(link: str) -> Any:
    return Client().post(link, {"new_password1": GOOD, "new_password2": GOOD})


def renew(c: Client, t: Tournament, user: User) -> Any:
    return c.post(f"/accounts/staff/{t.slug}/{user.pk}/link/")


def create_organizer(*args: str) -> str:
    out = StringIO()
    call_command("create_organizer", *args, "--site", "https://swiss.example.org", stdout=out)
    return out.getvalue()


def test_an_owner_cannot_take_over_a_new_organizer_by_adding_them_as_staff(
    mallory: User, mallory_event: Tournament
) -> None:
    alices_link = link_in(create_organizer("alice"))
    alice = User.objects.get(username="alice")
    attacker = logged_in(mallory)
    added = attacker.post(f"/t/{mallory_event.slug}/manage/staff/", {"username": "alice"})
    assert added.status_code == 302  # adding staff stays allowed: it gives no link
    response = renew(attacker, mallory_event, alice)
    body = response.content.decode()
    assert response.status_code == 422 and not LINK.search(body)
    assert "alice&#x27;s account was not created on your staff screen" in body
    assert "ask a site admin" in body
    assert set_password(alices_link).status_code == 302  # alice's own link still works
    alice.refresh_from_db()
    assert alice.check_password(GOOD)


def test_an_owner_cannot_take_over_a_helper_another_owner_created_and_then_removed(
    owner: User, event: Tournament, mallory: User, mallory_event: Tournament
) -> None:
    # Removed from its creator's staff, the helper works at no other event: the check
    # that the account works nowhere else let any owner who added it take it over.
    helper = services.create_staff_account(tournament=event, username="helper", by=owner)
    services.remove_staff(tournament=event, user_id=helper.pk, by=owner)
    services.add_staff(tournament=mallory_event, username="helper", by=mallory)
    response = renew(logged_in(mallory), mallory_event, helper)
    assert response.status_code == 422 and not LINK.search(response.content.decode())
    with pytest.raises(services.ServiceError, match="not created on your staff screen"):
        services.renew_set_password_link(tournament=mallory_event, user_id=helper.pk, by=mallory)


def test_the_owner_still_creates_a_staff_account_and_renews_its_link_before_it_is_used(
    oc: Client, event: Tournament
) -> None:
    first = link_in(
        oc.post(f"/accounts/staff/{event.slug}/new/", {"username": "judge"}).content.decode()
    )
    judge = User.objects.get(username="judge")
    assert AccountOrigin.objects.get(user=judge).created_for_id == event.owner_id
    response = renew(oc, event, judge)
    assert response.status_code == 200
    second = link_in(response.content.decode())
    assert Client().get(first).status_code == 410
    assert set_password(second).status_code == 302


def test_a_site_admin_renews_the_link_of_any_account_without_a_password(
    mallory: User, mallory_event: Tournament, django_user_model: type[User]
) -> None:
    old = link_in(create_organizer("alice"))
    alice = User.objects.get(username="alice")
    services.add_staff(tournament=mallory_event, username="alice", by=mallory)
    root = django_user_model.objects.create_superuser("root", password="root-pass-123")
    response = renew(logged_in(root), mallory_event, alice)
    assert response.status_code == 200
    assert Client().get(old).status_code == 410
    assert set_password(link_in(response.content.decode())).status_code == 302


def test_a_site_admin_makes_a_new_link_for_an_organizer_from_the_command_line() -> None:
    old = link_in(create_organizer("alice"))
    text = create_organizer("alice", "--new-link")
    assert "earlier ones stop working" in text
    new = link_in(text)
    assert new != old and Client().get(old).status_code == 410
    assert set_password(new).status_code == 302
    with pytest.raises(CommandError, match="has set a password already"):
        create_organizer("alice", "--new-link")
    with pytest.raises(CommandError, match="There is no user called 'nobody'"):
        create_organizer("nobody", "--new-link")


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_right_to_renew_for_accounts_created_before_it(
    migrate: Any,
) -> None:
    apps = migrate("0008_fill_audit_facts")
    old_user = apps.get_model("auth", "User")
    old_tournament = apps.get_model("tournaments", "Tournament")
    old_entry = apps.get_model("tournaments", "AuditEntry")
    # As create_user leaves them (the historical model's create would stamp last_login).
    account = {"password": "!unusable", "last_login": None}
    owner = old_user.objects.create(username="owner", **account)
    t = old_tournament.objects.create(name="Old Cup", slug="old-cup", seed=1, owner=owner)
    helper = old_user.objects.create(username="helper", **account)
    old_user.objects.create(username="settled", password="pbkdf2_sha256$1$x$y")
    for name in ("helper", "settled"):
        old_entry.objects.create(
            tournament=t, action="staff", summary=f"Staff account created: {name}", after=name
        )
    migrate("0009_account_origin")
    origin = AccountOrigin.objects.get(user_id=helper.pk)
    assert origin.created_for_id == owner.pk and origin.tournament_id == t.pk
    assert not AccountOrigin.objects.filter(user__username="settled").exists()
    assert AuditEntry.objects.filter(tournament_id=t.pk).count() == 2
