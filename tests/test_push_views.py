"""Web Push's pages (issue 29): the service worker, a player's opt-in on their private
page (/p/<token>/push/) and a judge's on the judges' screen (/t/<slug>/judge/push/);
plain and HX; refusals 422 naming the problem; who may; and a page served over plain
HTTP (the venue mode) saying why nothing is offered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from tests.push_service import Browser
from tournaments import services, vapid
from tournaments.models import Player, PushSubscription, StaffRole, Tournament
from tournaments.services.registration import issue_link

pytestmark = pytest.mark.django_db
NAMES = ["Ana Souza", "Ben Ito", "Cleo Park"]
ENDPOINT = "https://push.example.net/send/abc"
HX = {"HTTP_HX_REQUEST": "true"}
SECURE = {"secure": True}


@pytest.fixture(autouse=True)
def server_keys(settings: Any) -> Iterator[vapid.VapidKeys]:
    keys = vapid.from_environment({"VAPID_PRIVATE_KEY": vapid.new_private_key()})
    assert keys is not None
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = keys.private_key, keys.public_key
    settings.ALLOWED_HOSTS = ["testserver", "localhost", "192.168.1.23"]
    vapid.server_keys.cache_clear()
    yield keys
    vapid.server_keys.cache_clear()


@pytest.fixture
def event(owner: Any) -> Tournament:
    t = services.create_tournament(name="Push Open", owner=owner, seed=5)
    services.register_players(tournament=t, names=NAMES)
    services.pair_next_round(tournament=t)
    return t


@pytest.fixture
def ana(event: Tournament) -> tuple[Player, str]:
    player = Player.objects.get(tournament=event, name="Ana Souza")
    return player, issue_link(player=player)


def subscription_json(endpoint: str = ENDPOINT) -> str:
    return json.dumps(Browser().subscription(endpoint))


def post_json(client: Client, url: str, body: str, **extra: Any) -> Any:
    return client.post(url, body, content_type="application/json", **extra)


def test_the_service_worker_is_served_from_the_root_for_any_scope(client: Client) -> None:
    response = client.get("/push-sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert "script-src 'self'" in response["Content-Security-Policy"]
    body = response.content.decode()
    assert 'addEventListener("push"' in body and "notificationclick" in body


def test_the_private_page_offers_notifications_over_https_with_the_servers_key(
    client: Client, ana: tuple[Player, str], server_keys: vapid.VapidKeys
) -> None:
    _player, token = ana
    html = client.get(f"/p/{token}/", **SECURE).content.decode()
    assert 'id="push-optin"' in html
    assert f'data-key="{server_keys.public_key}"' in html
    assert f'data-url="/p/{token}/push/"' in html and f'data-scope="/p/{token}/"' in html
    assert "Notify me" in html and "Stop notifications" in html
    assert "js/push.js" in html


def test_the_private_page_over_plain_http_at_a_venue_says_why_nothing_is_offered(
    client: Client, ana: tuple[Player, str]
) -> None:
    _player, token = ana
    html = client.get(f"/p/{token}/", HTTP_HOST="192.168.1.23").content.decode()
    assert "data-push-reason" in html
    assert "only on a secure (HTTPS) connection" in html
    assert "plain HTTP on the venue&#x27;s network" in html
    assert "Notify me" not in html
    assert "beeps and vibrates" in html  # the live page's own alert instead
    assert 'data-key=""' in html


def test_this_machine_itself_counts_as_secure(client: Client, ana: tuple[Player, str]) -> None:
    _player, token = ana
    html = client.get(f"/p/{token}/", HTTP_HOST="localhost").content.decode()
    assert "Notify me" in html


def test_a_player_subscribes_this_phone_hx(client: Client, ana: tuple[Player, str]) -> None:
    player, token = ana
    response = post_json(client, f"/p/{token}/push/", subscription_json(), **HX, **SECURE)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="push-optin"')
    assert "Notifications are on for this device." in html
    found = PushSubscription.objects.get()
    assert (found.player, found.endpoint, found.user) == (player, ENDPOINT, None)
    assert found.language == "en"
    assert response["Cache-Control"] == "private, no-store"  # the private link's headers


def test_a_player_subscribes_plain_and_is_sent_back_to_their_page(
    client: Client, ana: tuple[Player, str]
) -> None:
    _player, token = ana
    browser = Browser()
    response = client.post(
        f"/p/{token}/push/",
        {"endpoint": ENDPOINT, "p256dh": browser.p256dh, "auth": browser.auth},
        **SECURE,
    )
    assert response.status_code == 302 and response["Location"] == f"/p/{token}/"
    assert PushSubscription.objects.count() == 1


def test_a_player_stops_this_phone_hx(client: Client, ana: tuple[Player, str]) -> None:
    _player, token = ana
    post_json(client, f"/p/{token}/push/", subscription_json(), **HX)
    stop = json.dumps({"action": "stop", "endpoint": ENDPOINT})
    response = post_json(client, f"/p/{token}/push/", stop, **HX)
    assert response.status_code == 200
    assert "Notifications are off on this device." in response.content.decode()
    assert PushSubscription.objects.count() == 0


def test_the_plain_stop_form_stops_every_device_of_the_player_only(
    client: Client, ana: tuple[Player, str], event: Tournament
) -> None:
    _player, token = ana
    ben = Player.objects.get(tournament=event, name="Ben Ito")
    ben_token = issue_link(player=ben)
    post_json(client, f"/p/{token}/push/", subscription_json(ENDPOINT + "1"), **HX)
    post_json(client, f"/p/{token}/push/", subscription_json(ENDPOINT + "2"), **HX)
    post_json(client, f"/p/{ben_token}/push/", subscription_json(ENDPOINT + "3"), **HX)
    html = client.get(f"/p/{token}/", **SECURE).content.decode()
    assert "Stop notifications on all 2 subscribed devices" in html
    response = client.post(f"/p/{token}/push/", {"action": "stop"})
    assert response.status_code == 302
    assert list(PushSubscription.objects.values_list("player__name", flat=True)) == ["Ben Ito"]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("{not json", "The subscription is not valid JSON."),
        ("[1, 2]", "The subscription is not a JSON object."),
        ('{"keys": {}}', "The subscription has no endpoint."),
        (
            json.dumps({"endpoint": "http://10.0.0.1/x", "keys": {}}),
            "its endpoint is not an https:// URL",
        ),
        (json.dumps({"endpoint": ENDPOINT, "keys": {"p256dh": "x", "auth": "y"}}), "p256dh"),
        ("x" * 5000, "The subscription is too long."),
    ],
)
def test_a_bad_subscription_is_refused_422_with_a_clear_message(
    client: Client, ana: tuple[Player, str], body: str, said: str
) -> None:
    _player, token = ana
    response = post_json(client, f"/p/{token}/push/", body, **HX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "data-push-error" in html and said.replace("'", "&#x27;") in html
    assert PushSubscription.objects.count() == 0


def test_a_bad_subscription_posted_plain_goes_back_to_the_page_unchanged(
    client: Client, ana: tuple[Player, str]
) -> None:
    _player, token = ana
    response = client.post(f"/p/{token}/push/", {"endpoint": "nonsense"})
    assert response.status_code == 302
    assert PushSubscription.objects.count() == 0


def test_a_bad_token_is_404_and_a_get_is_405(client: Client, ana: tuple[Player, str]) -> None:
    _player, token = ana
    response = post_json(client, "/p/not-a-real-token-at-all/push/", subscription_json(), **HX)
    assert response.status_code == 404
    assert "This private link is not valid" in response.content.decode()
    assert PushSubscription.objects.count() == 0
    assert client.get(f"/p/{token}/push/").status_code == 405


def test_the_post_needs_the_pages_csrf_token(ana: tuple[Player, str]) -> None:
    _player, token = ana
    strict = Client(enforce_csrf_checks=True)
    assert post_json(strict, f"/p/{token}/push/", subscription_json(), **HX).status_code == 403
    html = strict.get(f"/p/{token}/", **SECURE).content.decode()
    csrf = html.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    response = post_json(
        strict, f"/p/{token}/push/", subscription_json(), HTTP_X_CSRFTOKEN=csrf, **HX
    )
    assert response.status_code == 200


# --- judges ----------------------------------------------------------------------------------


@pytest.fixture
def staff(event: Tournament, owner: Any, django_user_model: Any) -> dict[str, Any]:
    people = {"owner": owner}
    for role in (StaffRole.SCOREKEEPER, StaffRole.HEAD_JUDGE, StaffRole.FLOOR_JUDGE):
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=event, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    return people


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("owner", 200),
        ("scorekeeper", 200),
        ("head_judge", 200),
        ("floor_judge", 200),
        ("stranger", 403),
        (None, 302),
    ],
)
def test_who_may_opt_in_on_the_judges_screen(
    client: Client, event: Tournament, staff: dict[str, Any], who: str | None, status: int
) -> None:
    if who is not None:
        client.force_login(staff[who])
    url = f"/t/{event.slug}/judge/push/"
    response = post_json(client, url, subscription_json(), **HX)
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith("/accounts/login/")
    stored = list(PushSubscription.objects.values_list("user__username", flat=True))
    assert stored == ([who] if status == 200 else [])


def test_the_judges_screen_offers_notifications_for_calls(
    client: Client, event: Tournament, staff: dict[str, Any]
) -> None:
    client.force_login(staff["floor_judge"])
    html = client.get(f"/t/{event.slug}/judge/", **SECURE).content.decode()
    assert 'id="push-optin"' in html
    assert f'data-scope="/t/{event.slug}/judge/"' in html
    assert "for every new judge call" in html
    plain = client.get(f"/t/{event.slug}/judge/", HTTP_HOST="192.168.1.23").content.decode()
    assert "only on a secure (HTTPS) connection" in plain


def test_a_judge_subscribes_and_stops_hx_and_plain(
    client: Client, event: Tournament, staff: dict[str, Any]
) -> None:
    client.force_login(staff["head_judge"])
    url = f"/t/{event.slug}/judge/push/"
    response = post_json(client, url, subscription_json(), **HX)
    assert "Notifications are on for this device." in response.content.decode()
    found = PushSubscription.objects.get()
    assert (found.user, found.player, found.tournament) == (staff["head_judge"], None, event)
    response = client.post(url, {"action": "stop"})
    assert response.status_code == 302 and response["Location"] == f"/t/{event.slug}/judge/"
    assert PushSubscription.objects.count() == 0


def test_a_judges_bad_subscription_is_422(
    client: Client, event: Tournament, staff: dict[str, Any]
) -> None:
    client.force_login(staff["floor_judge"])
    response = post_json(client, f"/t/{event.slug}/judge/push/", "{}", **HX)
    assert response.status_code == 422
    assert "The subscription has no endpoint." in response.content.decode()
