"""Print (issue 26 item 6): the registration poster, the result slips' drop boxes and the
share page printed without the organizer's navigation.

The poster on A4 paper (one page) and the share page under print media are checked in a
browser: tests/browser/test_projector_4k.py.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.conftest import PROJECT_ROOT
from tournaments import services
from tournaments.models import Match, MatchKind, Tournament

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def club(owner: User) -> Tournament:
    """Registration open, nobody paired yet: the poster goes up now."""
    t = services.create_tournament(name="Thursday Club Modern", owner=owner, seed=3)
    t.registration_open = True
    t.save(update_fields=["registration_open"])
    return t


@pytest.fixture
def paired(owner: User) -> Tournament:
    t = services.create_tournament(name="Friday Modern", owner=owner, seed=7)
    services.register_players(
        tournament=t, names=["Ana Souza", "Ben Ito", "Cleo Park", "Dev Rao", "Eva Lund"]
    )
    services.pair_next_round(tournament=t)
    return t


def poster_url(t: Tournament) -> str:
    return f"/t/{t.slug}/manage/print/poster/"


def sheet(html: str) -> str:
    """What the paper shows: the page less its screen-only parts (the toolbar, notes)."""
    html = re.sub(r'<nav class="toolbar".*?</nav>', "", html, flags=re.S)
    return re.sub(r'<p class="meta screen-only">.*?</p>', "", html, flags=re.S)


def test_the_poster_holds_the_events_name_the_registration_qr_code_and_its_address(
    oc: Client, club: Tournament
) -> None:
    response = oc.get(poster_url(club))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and "css/print.css" in html
    paper = sheet(html)
    assert '<h1 class="poster-name">Thursday Club Modern</h1>' in paper
    assert f'src="/t/{club.slug}/register/qr.svg"' in paper
    address = f"http://testserver/t/{club.slug}/register/"
    assert f'<p class="poster-address">{address}</p>' in paper
    body = re.search(r'<main class="sheet">(.*)</main>', paper, re.S)
    assert body is not None
    # Nothing else on the paper: no link, no navigation, no other text.
    words = re.sub(r"<[^>]+>", " ", body.group(1)).split()
    assert " ".join(words) == f"Thursday Club Modern {address}"
    assert "<a " not in body.group(1) and "<nav" not in body.group(1)
    # The QR code encodes the same address (drawn by segno, as the share page's is).
    qr = oc.get(f"/t/{club.slug}/register/qr.svg")
    assert qr.status_code == 200 and qr["Content-Type"] == "image/svg+xml"


def test_the_poster_warns_on_screen_only_while_registration_is_closed(
    oc: Client, paired: Tournament
) -> None:
    html = oc.get(poster_url(paired)).content.decode()
    assert '<p class="meta screen-only">Registration is not open' in html
    assert "Registration is not open" not in sheet(html)


def test_an_htmx_request_for_the_poster_gets_its_partial(oc: Client, club: Tournament) -> None:
    response = oc.get(poster_url(club), **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and html.count('<section id="print-poster"') == 1
    assert "Thursday Club Modern" in html and f"/t/{club.slug}/register/" in html
    assert "HX-Request" in response["Vary"]


def test_the_poster_is_for_the_events_managers_only(
    client: Client, club: Tournament, django_user_model: type[User]
) -> None:
    response = client.get(poster_url(club))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    client.force_login(django_user_model.objects.create_user("stranger"))
    assert client.get(poster_url(club)).status_code == 403


def test_the_print_index_links_the_poster_before_and_after_round_1(
    oc: Client, club: Tournament, paired: Tournament
) -> None:
    for t in (club, paired):
        html = oc.get(f"/t/{t.slug}/manage/print/").content.decode()
        assert f'href="{poster_url(t)}">Registration poster</a>' in html


def test_each_result_slip_has_a_drop_box_for_each_player(oc: Client, paired: Tournament) -> None:
    html = oc.get(f"/t/{paired.slug}/manage/print/slips/").content.decode()
    slips = re.findall(r'<article class="slip">(.*?)</article>', html, re.S)
    played = Match.objects.filter(round__tournament=paired, kind=MatchKind.PLAYED).order_by("table")
    assert len(slips) == played.count() == 2
    for slip, match in zip(slips, played, strict=True):
        names = list(match.seats.order_by("position").values_list("player__name", flat=True))
        boxes = re.findall(
            r'<span class="drop-box"><span class="box" aria-hidden="true"></span>([^<]*) drops</span>',
            slip,
        )
        assert boxes == names


def test_the_share_page_prints_without_the_organizers_navigation(
    oc: Client, club: Tournament
) -> None:
    html = oc.get(f"/t/{club.slug}/manage/share/").content.decode()
    assert '<div class="share-print">' in html and "css/organizer.css" in html
    css = (PROJECT_ROOT / "static" / "css" / "organizer.css").read_text()
    block = css[css.index("@media print {", css.index(".share-print")) :]
    rule = block[: block.index("}")]
    assert "body:has(.share-print) header.site" in rule and "display: none" in rule
