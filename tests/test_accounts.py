"""Accounts and navigation (issue 12 item 5): login lands on "my tournaments", staff see
a "Manage" link on public pages, the owner creates staff accounts with a one-time link to
set a password, and `create_organizer` makes the first account of a production install."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.auth.tokens import default_token_generator
from django.core.management import CommandError, call_command
from django.template.loader import render_to_string
from django.test import Client, RequestFactory

from tournaments import services
from tournaments.models import AuditEntry, Tournament
from tournaments.services import ServiceError

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
LINK = re.compile(r"https?://[^\s\"<]+/accounts/set-password/[^/\s\"<]+/[^/\s\"<]+/")
GOOD = "a-long-tournament-password-7"


@pytest.fixture
def owner(django_user_model: type[User]) -> User:
    """conftest's owner with a password: tests here log in through the login form."""
    return django_user_model.objects.create_user("owner", password="owner-pass-123")


@pytest.fixture
def event(owner: User) -> Tournament:
    t = services.create_tournament(name="Staff Cup", owner=owner, seed=5, top_cut=4)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    return t


def logged_in(user: User) -> Client:
    c = Client()
    c.force_login(user)
    return c


def new_account(oc: Client, t: Tournament, username: str = "judge", **extra: str) -> str:
    """Create a staff account through the staff screen; the one-time link it shows."""
    response = oc.post(f"/accounts/staff/{t.slug}/new/", {"username": username}, **extra)
    assert response.status_code == 200, response.content.decode()
    found = LINK.search(response.content.decode())
    assert found, "the answer shows the one-time link"
    return found.group(0)


def path_of(link: str) -> str:
    return link[link.index("/accounts/") :]


def set_password(c: Client, link: str, password: str = GOOD, **extra: str) -> object:
    return c.post(path_of(link), {"new_password1": password, "new_password2": password}, **extra)


# --- Landing after login and the header ----------------------------------------------------


def test_logging_in_lands_on_my_tournaments(client: Client, owner: User) -> None:
    response = client.post("/accounts/login/", {"username": "owner", "password": "owner-pass-123"})
    assert response.status_code == 302 and response["Location"] == "/manage/"
    page = client.get("/manage/").content.decode()
    assert "My tournaments" in page and "Create the tournament" in page


def test_a_next_parameter_still_decides_where_login_lands(
    client: Client, owner: User, event: Tournament
) -> None:
    target = f"/t/{event.slug}/manage/"
    response = client.post(
        "/accounts/login/",
        {"username": "owner", "password": "owner-pass-123", "next": target},
    )
    assert response.status_code == 302 and response["Location"] == target


def test_the_header_and_home_page_lead_a_logged_in_user_to_my_tournaments_and_create(
    oc: Client,
) -> None:
    page = oc.get("/").content.decode()
    assert page.count('href="/manage/"') == 2  # the header's link and the home page's button
    assert 'href="/manage/#create-title">Create a tournament' in page
    assert 'id="create-title"' in oc.get("/manage/").content.decode()


def test_an_anonymous_visitor_sees_no_organizer_links_on_the_home_page(client: Client) -> None:
    page = client.get("/").content.decode()
    assert "My tournaments" not in page and "Create a tournament" not in page
    assert 'href="/accounts/login/"' in page


# --- The "Manage" link on public pages -------------------------------------------------------

PUBLIC = ["", "pairings/", "standings/", "bracket/"]


@pytest.mark.parametrize("tail", PUBLIC)
def test_the_owner_staff_and_site_admins_see_a_manage_link_on_public_pages(
    event: Tournament, owner: User, django_user_model: type[User], tail: str
) -> None:
    judge = django_user_model.objects.create_user("judge")
    services.add_staff(tournament=event, username="judge")
    admin = django_user_model.objects.create_superuser("root", password="root-pass-123")
    manage = f'href="/t/{event.slug}/manage/">Manage</a>'
    for user in (owner, judge, admin):
        response = logged_in(user).get(f"/t/{event.slug}/{tail}")
        assert response.status_code == 200 and manage in response.content.decode(), user


@pytest.mark.parametrize("tail", PUBLIC)
def test_anonymous_visitors_and_other_users_see_no_manage_link(
    client: Client, event: Tournament, django_user_model: type[User], tail: str
) -> None:
    stranger = django_user_model.objects.create_user("stranger")
    for c in (client, logged_in(stranger)):
        response = c.get(f"/t/{event.slug}/{tail}")
        assert response.status_code == 200
        assert f"/t/{event.slug}/manage/" not in response.content.decode()


def test_the_cached_live_fragment_never_carries_the_manage_link(
    owner: User, event: Tournament
) -> None:
    # The owner's HTMX poll is served from the fragment every phone shares.
    body = logged_in(owner).get(f"/t/{event.slug}/standings/", **HX).content.decode()
    assert "<html" not in body and "/manage/" not in body


def test_the_manage_link_costs_an_anonymous_page_no_query(
    event: Tournament, django_assert_num_queries: object
) -> None:
    request = RequestFactory().get(f"/t/{event.slug}/")
    request.user = AnonymousUser()
    with django_assert_num_queries(0):  # type: ignore[operator]
        html = render_to_string(
            "tournaments/_event_nav.html",
            {"tournament": event, "user": request.user},
            request=request,
        )
    assert "Standings" in html and "Manage" not in html


# --- Staff accounts: created by the owner --------------------------------------------------


def test_the_owner_creates_a_staff_account_and_is_shown_its_one_time_link(
    oc: Client, event: Tournament
) -> None:
    response = oc.post(f"/accounts/staff/{event.slug}/new/", {"username": "judge"})
    body = response.content.decode()
    assert response.status_code == 200 and "<html" in body
    assert "Give <strong>judge</strong> this link" in body and LINK.search(body)
    judge = User.objects.get(username="judge")
    assert not judge.has_usable_password() and not judge.is_staff
    assert event.staff.filter(pk=judge.pk).exists()
    assert "(no password yet)" in body and "New set-password link" in body
    entry = AuditEntry.objects.filter(tournament=event).order_by("-pk").first()
    assert entry is not None and entry.summary == "Staff account created: judge"
    assert entry.user is not None and entry.user.username == "owner"
    # The link is shown in that answer only, never on the staff screen again.
    assert not LINK.search(oc.get(f"/t/{event.slug}/manage/staff/").content.decode())


def test_creating_a_staff_account_with_htmx_answers_the_staff_panel(
    oc: Client, event: Tournament
) -> None:
    response = oc.post(f"/accounts/staff/{event.slug}/new/", {"username": "scorer"}, **HX)
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert body.lstrip().startswith('<section id="staff-panel"') and LINK.search(body)
    assert event.staff.filter(username="scorer").exists()


def test_the_staff_screen_offers_the_new_account_form_to_the_owner_only(
    oc: Client, event: Tournament, django_user_model: type[User]
) -> None:
    action = f'action="/accounts/staff/{event.slug}/new/"'
    assert action in oc.get(f"/t/{event.slug}/manage/staff/").content.decode()
    judge = django_user_model.objects.create_user("judge")
    services.add_staff(tournament=event, username="judge")
    assert action not in logged_in(judge).get(f"/t/{event.slug}/manage/staff/").content.decode()


@pytest.mark.parametrize("extra", [{}, HX])
def test_staff_who_are_not_the_owner_cannot_create_accounts(
    event: Tournament, django_user_model: type[User], extra: dict[str, str]
) -> None:
    judge = django_user_model.objects.create_user("judge")
    services.add_staff(tournament=event, username="judge")
    response = logged_in(judge).post(
        f"/accounts/staff/{event.slug}/new/", {"username": "friend"}, **extra
    )
    assert response.status_code == 403
    assert not User.objects.filter(username="friend").exists()


def test_strangers_cannot_create_accounts_and_anonymous_visitors_are_sent_to_log_in(
    client: Client, event: Tournament, django_user_model: type[User]
) -> None:
    response = client.post(f"/accounts/staff/{event.slug}/new/", {"username": "x"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    stranger = django_user_model.objects.create_user("stranger")
    response = logged_in(stranger).post(f"/accounts/staff/{event.slug}/new/", {"username": "x"})
    assert response.status_code == 403 and not User.objects.filter(username="x").exists()


def test_the_service_refuses_a_staff_account_asked_for_by_someone_other_than_the_owner(
    event: Tournament, django_user_model: type[User]
) -> None:
    judge = django_user_model.objects.create_user("judge")
    with pytest.raises(ServiceError, match="Only the event's owner"):
        services.create_staff_account(tournament=event, username="friend", by=judge)
    assert not User.objects.filter(username="friend").exists()


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "Give a username for the new account."),
        ("bad name!", "Enter a valid username"),
        ("OWNER", "An account called &#x27;owner&#x27; exists already"),
    ],
)
@pytest.mark.parametrize("extra", [{}, HX])
def test_a_refused_username_is_named_beside_the_form_and_kept(
    oc: Client, event: Tournament, typed: str, message: str, extra: dict[str, str]
) -> None:
    before = User.objects.count()
    response = oc.post(f"/accounts/staff/{event.slug}/new/", {"username": typed}, **extra)
    body = response.content.decode()
    assert response.status_code == 422 and message in body
    assert f'value="{typed}"' in body.replace("&#x27;", "'") or typed == ""
    assert User.objects.count() == before
    assert ("<html" in body) is not bool(extra)


# --- The one-time link ----------------------------------------------------------------------


def test_the_one_time_link_sets_the_password_once_then_refuses(
    oc: Client, event: Tournament
) -> None:
    link = new_account(oc, event)
    phone = Client()
    page = phone.get(path_of(link))
    assert page.status_code == 200 and "Account judge" in page.content.decode()
    assert "<html" in page.content.decode() and page["Cache-Control"].startswith("max-age=0")
    response = set_password(phone, link)
    assert response.status_code == 302 and response["Location"] == "/manage/"
    judge = User.objects.get(username="judge")
    assert judge.check_password(GOOD)
    # Logged in at once, and "my tournaments" lists the event they are staff of.
    assert event.name in phone.get("/manage/").content.decode()
    again = Client().get(path_of(link))
    assert again.status_code == 410 and "has been used" in again.content.decode()
    assert set_password(Client(), link, "another-long-password-9").status_code == 410
    judge.refresh_from_db()
    assert judge.check_password(GOOD)
    # The new password works on the ordinary login.
    response = Client().post("/accounts/login/", {"username": "judge", "password": GOOD})
    assert response.status_code == 302


def test_the_set_password_page_with_htmx_answers_its_panel_and_redirects_when_done(
    oc: Client, event: Tournament
) -> None:
    link = new_account(oc, event)
    phone = Client()
    page = phone.get(path_of(link), **HX).content.decode()
    assert "<html" not in page and page.lstrip().startswith('<section id="set-password"')
    response = set_password(phone, link, **HX)
    assert response.status_code == 200 and response["HX-Redirect"] == "/manage/"
    gone = phone.get(path_of(link), **HX)
    assert gone.status_code == 410 and "<html" not in gone.content.decode()


@pytest.mark.parametrize("extra", [{}, HX])
def test_a_weak_or_mismatched_password_is_refused_with_the_reason_and_the_link_still_works(
    oc: Client, event: Tournament, extra: dict[str, str]
) -> None:
    link = new_account(oc, event)
    response = Client().post(
        path_of(link), {"new_password1": "password", "new_password2": "password"}, **extra
    )
    assert response.status_code == 422 and "too common" in response.content.decode()
    response = Client().post(
        path_of(link), {"new_password1": GOOD, "new_password2": GOOD + "x"}, **extra
    )
    assert response.status_code == 422 and "didn’t match" in response.content.decode()
    assert not User.objects.get(username="judge").has_usable_password()
    assert set_password(Client(), link).status_code == 302


def test_an_expired_link_is_refused_with_a_clear_message(
    oc: Client, event: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = new_account(oc, event)
    later = datetime.now() + timedelta(days=3, minutes=1)  # PASSWORD_RESET_TIMEOUT: 3 days
    monkeypatch.setattr(default_token_generator, "_now", lambda: later)
    response = Client().get(path_of(link))
    assert response.status_code == 410 and "has expired" in response.content.decode()
    assert set_password(Client(), link).status_code == 410
    assert not User.objects.get(username="judge").has_usable_password()


@pytest.mark.parametrize(
    "path",
    [
        "/accounts/set-password/garbage/abc-123/",
        "/accounts/set-password/OTk5OTk/abc-123/",  # user 99999: nobody
        "/accounts/set-password/%FF%FE/abc-123/",
    ],
)
def test_a_mangled_link_is_a_clear_400_never_a_500(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 400 and "This link is not valid" in response.content.decode()
    response = client.post(path, {"new_password1": GOOD, "new_password2": GOOD}, **HX)
    assert response.status_code == 400 and "<html" not in response.content.decode()


def test_a_link_with_a_wrong_token_is_refused(oc: Client, event: Tournament) -> None:
    link = new_account(oc, event)
    forged = path_of(link).rsplit("/", 2)[0] + "/cxyz-0123456789abcdef/"
    response = Client().get(forged)
    assert response.status_code == 410 and "a newer one replaced it" in response.content.decode()


def test_someone_logged_in_who_opens_the_link_is_told_whose_it_is_and_keeps_the_link(
    oc: Client, event: Tournament
) -> None:
    link = new_account(oc, event)
    body = oc.get(path_of(link)).content.decode()
    assert "You are logged in as owner: this link is for judge" in body
    assert set_password(Client(), link).status_code == 302


# --- A new link for an account that has not set its password --------------------------------


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_owner_issues_a_new_link_and_the_old_one_stops_working(
    oc: Client, event: Tournament, extra: dict[str, str]
) -> None:
    old = new_account(oc, event)
    judge = User.objects.get(username="judge")
    response = oc.post(f"/accounts/staff/{event.slug}/{judge.pk}/link/", **extra)
    body = response.content.decode()
    assert response.status_code == 200 and ("<html" in body) is not bool(extra)
    new = LINK.search(body)
    assert new and new.group(0) != old
    assert Client().get(path_of(old)).status_code == 410
    assert set_password(Client(), new.group(0)).status_code == 302
    summaries = list(AuditEntry.objects.filter(tournament=event).values_list("summary", flat=True))
    assert "New set-password link for judge" in summaries


@pytest.mark.parametrize("extra", [{}, HX])
def test_no_new_link_for_an_account_whose_password_is_set(
    oc: Client, event: Tournament, extra: dict[str, str]
) -> None:
    link = new_account(oc, event)
    set_password(Client(), link)
    judge = User.objects.get(username="judge")
    page = oc.get(f"/t/{event.slug}/manage/staff/").content.decode()
    assert "New set-password link" not in page and "(no password yet)" not in page
    response = oc.post(f"/accounts/staff/{event.slug}/{judge.pk}/link/", **extra)
    assert response.status_code == 422 and "has set a password already" in response.content.decode()
    assert not LINK.search(response.content.decode())
    judge.refresh_from_db()
    assert judge.check_password(GOOD)


def test_only_the_owner_issues_new_links(
    oc: Client, event: Tournament, django_user_model: type[User]
) -> None:
    new_account(oc, event)
    colleague = django_user_model.objects.create_user("colleague")
    services.add_staff(tournament=event, username="colleague")
    judge = User.objects.get(username="judge")
    response = logged_in(colleague).post(f"/accounts/staff/{event.slug}/{judge.pk}/link/")
    assert response.status_code == 403
    response = oc.post(f"/accounts/staff/{event.slug}/{colleague.pk + 1000}/link/")
    assert response.status_code == 422 and "not on the staff" in response.content.decode()


def test_an_owner_cannot_take_over_an_unfinished_account_working_for_another_organizer(
    oc: Client, event: Tournament, django_user_model: type[User]
) -> None:
    rival = django_user_model.objects.create_user("rival", password="rival-pass-123")
    theirs = services.create_tournament(name="Rival Open", owner=rival, seed=1)
    services.create_staff_account(tournament=theirs, username="helper", by=rival)
    services.add_staff(tournament=event, username="helper")
    helper = User.objects.get(username="helper")
    response = oc.post(f"/accounts/staff/{event.slug}/{helper.pk}/link/")
    assert response.status_code == 422 and "ask a site admin" in response.content.decode()


# --- create_organizer ---------------------------------------------------------------------


def test_create_organizer_prints_a_one_time_link_that_sets_the_first_password() -> None:
    out = StringIO()
    call_command("create_organizer", "alice", "--site", "https://swiss.example.org/", stdout=out)
    text = out.getvalue()
    alice = User.objects.get(username="alice")
    assert not alice.has_usable_password() and not alice.is_superuser
    found = LINK.search(text)
    assert found and found.group(0).startswith("https://swiss.example.org/accounts/set-password/")
    assert "works once" in text
    c = Client()
    assert set_password(c, found.group(0)).status_code == 302
    assert c.get("/manage/").status_code == 200  # logged in, on "my tournaments"
    assert Client().get(path_of(found.group(0))).status_code == 410


def test_create_organizer_can_make_a_site_admin_and_refuses_a_taken_name() -> None:
    call_command("create_organizer", "root", "--admin", stdout=StringIO())
    root = User.objects.get(username="root")
    assert root.is_superuser and root.is_staff
    with pytest.raises(CommandError, match="exists already"):
        call_command("create_organizer", "Root", stdout=StringIO())
    with pytest.raises(CommandError, match="valid username"):
        call_command("create_organizer", "no spaces", stdout=StringIO())
