"""The registration desk at a club night (issue 26 item 1): a queue of entries accepted in
one action, walk-ins counted as present, no-shows named before they are dropped, "Everyone
has checked in" only when it is true, and the organizer's drop confirmed first."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.services import recompute
from tests.helpers import full_recompute, stored_standings
from tournaments import services
from tournaments.models import AuditAction, AuditEntry, Entry, Player, Tournament
from tournaments.pages import audit as audit_pages
from tournaments.services import registration as reg
from tournaments.services.writing import ServiceError

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def owner(django_user_model: type[User]) -> User:
    """alice: the audit sentences name her."""
    return django_user_model.objects.create_user("alice")


def desk(owner: User, *, approval: bool = True, check_in: bool = True) -> Tournament:
    t = services.create_tournament(name="Club Night", owner=owner, seed=26)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=approval, check_in=check_in,
        by=owner,
    )  # fmt: skip


def register(t: Tournament, *names: str) -> list[Player]:
    return [reg.register_self(tournament=t, name=n)[0] for n in names]


def queue(t: Tournament, count: int, *, first: int = 1) -> list[Player]:
    return register(t, *(f"Queued {k}" for k in range(first, first + count)))


def manage(t: Tournament, tail: str = "") -> str:
    return f"/t/{t.slug}/manage/registration/{tail}"


def html(response: Any) -> str:
    return response.content.decode()


def entries(t: Tournament) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(tournament=t, action=AuditAction.ENTRY).order_by("id"))


def version(t: Tournament) -> int:
    return Tournament.objects.get(pk=t.pk).version


@contextmanager
def recomputes() -> Iterator[mock.MagicMock]:
    with mock.patch("tournaments.services.writing.recompute", wraps=recompute) as spy:
        yield spy


# --- (a) A queue of entries in one action: the service ----------------------------------


def test_accepting_fourteen_entries_is_one_write_with_one_audit_entry_naming_them(
    owner: User,
) -> None:
    t = desk(owner)
    pending = queue(t, 14)
    before, settings_entries = version(t), len(entries(t))
    accepted = reg.accept_entries(tournament=t, players=pending, by=owner)
    assert sorted(p.pk for p in accepted) == sorted(p.pk for p in pending)
    assert set(t.players.values_list("entry", flat=True)) == {Entry.ACCEPTED}
    assert version(t) == before + 1
    (entry,) = entries(t)[settings_entries:]
    assert entry.summary.startswith("14 entries accepted by alice: Queued 1, Queued 2")
    assert entry.players.count() == 14  # the audit filter by player finds each of them
    sentence = audit_pages.describe(audit_pages.Record(
        action=entry.action, summary="", before=entry.before, after=entry.after,
        players=tuple((p.name, p.external_id) for p in entry.players.order_by("id")),
    ))  # fmt: skip
    assert not sentence.fallback  # built from the stored fields, not the summary
    assert str(sentence).startswith("14 entries accepted: Queued 1, ")
    assert reg.accept_entries(tournament=t, players=pending, by=owner) == []
    assert version(t) == before + 1  # nothing left to accept: nothing written


def test_the_bulk_accept_places_the_queue_in_the_standings_as_a_recompute_would(
    owner: User,
) -> None:
    t = desk(owner, approval=False)
    register(t, "Ana", "Ben", "Cleo")  # already accepted: the stored standings hold them
    reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=True, check_in=True, by=owner
    )
    pending = queue(t, 14)
    with recomputes() as spy:
        reg.accept_entries(tournament=t, players=pending, by=owner)
    assert spy.call_count == 0  # placed among level players, not recomputed
    assert len(stored_standings(t)) == 17
    assert stored_standings(t) == full_recompute(t)


def test_the_bulk_accept_takes_the_same_number_of_queries_for_3_entries_as_for_14(
    owner: User,
) -> None:
    counts = []
    for size in (3, 14):
        t = desk(owner, approval=False)
        register(t, *(f"Early {k} of {size}" for k in range(3)))
        reg.set_registration(
            tournament=t, registration_open=True, cap=None, approval=True, check_in=True,
            by=owner,
        )  # fmt: skip
        pending = queue(t, size)
        with CaptureQueriesContext(connection) as queries:
            reg.accept_entries(tournament=t, players=pending, by=owner)
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_reject_selected_turns_several_entries_down_in_one_audit_entry(owner: User) -> None:
    t = desk(owner)
    ana, _ben, cleo = register(t, "Ana", "Ben", "Cleo")
    rejected = reg.reject_entries(tournament=t, players=[ana, cleo], by=owner)
    assert sorted(p.name for p in rejected) == ["Ana", "Cleo"]
    assert dict(t.players.values_list("name", "entry")) == {
        "Ana": Entry.REJECTED, "Ben": Entry.PENDING, "Cleo": Entry.REJECTED,
    }  # fmt: skip
    assert entries(t)[-1].summary == "2 entries rejected by alice: Ana, Cleo"


def test_a_bulk_reject_with_a_paired_player_rejects_nobody_and_says_who(owner: User) -> None:
    t = desk(owner, approval=False, check_in=False)
    players = register(t, "Ana", "Ben", "Cleo", "Dev")
    services.pair_next_round(tournament=t, by=owner)
    late = services.register_players(tournament=t, names=["Eva"], by=owner)
    with pytest.raises(ServiceError, match=r"Already paired: Ana\.? .*nothing was rejected"):
        reg.reject_entries(tournament=t, players=[players[0], *late], by=owner)
    assert set(t.players.values_list("entry", flat=True)) == {Entry.ACCEPTED}


def test_late_entries_accepted_at_once_after_round_1_are_checked_in(owner: User) -> None:
    t = desk(owner, approval=False)
    for p in register(t, "Ana", "Ben", "Cleo", "Dev"):
        reg.check_in(player=p)
    services.pair_next_round(tournament=t, by=owner)
    reg.set_registration(
        tournament=t, registration_open=False, cap=None, approval=True, check_in=True, by=owner
    )
    late = [
        Player.objects.create(tournament=t, external_id=f"late{k}", name=f"Late {k}",
                              entry=Entry.PENDING)
        for k in (1, 2)
    ]  # fmt: skip
    reg.accept_entries(tournament=t, players=late, by=owner)
    assert all(p.checked_in_at is not None for p in t.players.filter(name__startswith="Late"))
    assert stored_standings(t) == full_recompute(t)


# --- (a) The desk's forms -----------------------------------------------------------------


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_accept_all_on_the_desk_accepts_the_fourteen_listed_in_one_click(
    oc: Client, owner: User, htmx: bool
) -> None:
    t = desk(owner)
    pending = queue(t, 14)
    screen = html(oc.get(manage(t)))
    assert "Accept all 14" in screen and screen.count('type="checkbox" name="player"') == 14
    listed = re.findall(r'name="listed" value="(\d+)"', screen)
    assert sorted(map(int, listed)) == sorted(p.pk for p in pending)
    later = queue(t, 1, first=99)  # arrived after the desk was shown: not in "all 14"
    response = oc.post(
        manage(t, "entries/"), {"decision": "accept_all", "listed": listed}, **(HX if htmx else {})
    )
    if htmx:
        assert response.status_code == 200
        body = html(response)
        assert body.lstrip().startswith('<section id="registration-panel"')
        assert "14 entries accepted: Queued 1, Queued 2" in body
        assert "Waiting for approval (1)" in body
    else:
        assert response.status_code == 302 and response["Location"] == manage(t)
    assert t.players.filter(entry=Entry.ACCEPTED).count() == 14
    assert Player.objects.get(pk=later[0].pk).entry == Entry.PENDING
    assert len([e for e in entries(t) if "accepted" in e.summary]) == 1


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_accept_or_reject_selected_takes_only_the_ticked_entries(
    oc: Client, owner: User, htmx: bool
) -> None:
    t = desk(owner)
    ana, _ben, cleo, dev = register(t, "Ana", "Ben", "Cleo", "Dev")
    extra = HX if htmx else {}
    accepted = oc.post(manage(t, "entries/"), {"decision": "accept", "player": [ana.pk, cleo.pk]},
                       **extra)  # fmt: skip
    assert accepted.status_code == (200 if htmx else 302)
    rejected = oc.post(manage(t, "entries/"), {"decision": "reject", "player": [dev.pk]}, **extra)
    assert rejected.status_code == (200 if htmx else 302)
    if htmx:
        assert "1 entry rejected: Dev." in html(rejected)
    assert dict(t.players.values_list("name", "entry")) == {
        "Ana": Entry.ACCEPTED, "Ben": Entry.PENDING, "Cleo": Entry.ACCEPTED,
        "Dev": Entry.REJECTED,
    }  # fmt: skip


def test_each_pending_row_still_accepts_or_rejects_that_entry_alone(
    oc: Client, owner: User
) -> None:
    t = desk(owner)
    ana, _ben = register(t, "Ana", "Ben")
    screen = html(oc.get(manage(t)))
    # Inside the desk's form: the row's buttons send to the entry's own address.
    assert f'formaction="{manage(t, f"entries/{ana.pk}/")}"' in screen
    assert oc.post(manage(t, f"entries/{ana.pk}/"), {"decision": "accept"}).status_code == 302
    assert dict(t.players.values_list("name", "entry")) == {
        "Ana": Entry.ACCEPTED, "Ben": Entry.PENDING,
    }  # fmt: skip


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"decision": "accept"}, "Tick the entries first"),
        ({"decision": "accept", "player": ["x7"]}, "Pick the entries from the list."),
        ({"decision": "accept", "player": ["99999999"]}, "no longer in this event"),
        ({"decision": "maybe", "player": ["1"]}, "Choose accept or reject."),
    ],
    ids=["none-ticked", "not-a-number", "gone", "bad-decision"],
)
def test_a_desk_form_without_a_usable_choice_is_a_422_with_its_message(
    oc: Client, owner: User, htmx: bool, data: dict[str, Any], message: str
) -> None:
    t = desk(owner)
    register(t, "Ana")
    response = oc.post(manage(t, "entries/"), data, **(HX if htmx else {}))
    assert response.status_code == 422 and message in html(response)
    assert t.players.get().entry == Entry.PENDING


def test_a_stranger_cannot_accept_entries_at_the_desk(
    client: Client, owner: User, django_user_model: type[User]
) -> None:
    t = desk(owner)
    (ana,) = register(t, "Ana")
    client.force_login(django_user_model.objects.create_user("mallory"))
    response = client.post(manage(t, "entries/"), {"decision": "accept_all", "listed": [ana.pk]})
    assert response.status_code == 403
    assert t.players.get().entry == Entry.PENDING


# --- (b) Walk-ins ----------------------------------------------------------------------------


def test_a_walk_in_added_before_round_1_counts_as_checked_in_and_is_no_no_show(
    oc: Client, owner: User
) -> None:
    t = desk(owner, approval=False)
    register(t, "Ana")  # from the link: checks in herself, or is a no-show
    assert oc.post(f"/t/{t.slug}/manage/players/add/", {"name": "Walk In"}).status_code == 302
    walk_in = t.players.get(name="Walk In")
    assert walk_in.checked_in_at is not None
    screen = html(oc.get(manage(t)))
    assert "Not checked in (1; 1 checked in)" in screen
    dropped = reg.drop_no_shows(tournament=t, by=owner)
    assert [p.name for p in dropped] == ["Ana"]
    assert not Player.objects.get(pk=walk_in.pk).dropped


# --- (c) The no-show confirmation names them -------------------------------------------------


def no_show_desk(owner: User) -> Tournament:
    t = desk(owner, approval=False)
    ana, _ben, _cleo = register(t, "Ana", "Ben", "Cleo")
    reg.check_in(player=ana)
    return t


def test_the_no_show_confirmation_page_names_who_will_be_dropped(oc: Client, owner: User) -> None:
    t = no_show_desk(owner)
    page = html(oc.post(manage(t, "no-shows/")))
    assert "<li>Ben</li>" in page and "<li>Cleo</li>" in page and "<li>Ana</li>" not in page
    assert "Yes, drop them" in page
    assert not t.players.filter(dropped_after_round=0).exists()


def test_with_htmx_the_no_show_confirmation_opens_in_the_desk_naming_them(
    oc: Client, owner: User
) -> None:
    t = no_show_desk(owner)
    screen = html(oc.get(manage(t)))
    # No browser dialog that only gives a count: the button asks the desk, which names them.
    assert "hx-confirm" not in screen and '"confirm": "yes"' not in screen
    panel = html(oc.post(manage(t, "no-shows/"), **HX))
    assert panel.lstrip().startswith('<section id="registration-panel"')
    assert "Drop 2 players who have not checked in?" in panel
    assert "<li>Ben</li>" in panel and "<li>Cleo</li>" in panel
    assert not t.players.filter(dropped_after_round=0).exists()
    ids = re.findall(r'name="player" value="(\d+)"', panel)
    done = oc.post(manage(t, "no-shows/"), {"confirm": "yes", "player": ids}, **HX)
    assert "Dropped 2 no-show(s)." in html(done)
    assert set(t.players.filter(dropped_after_round=0).values_list("name", flat=True)) == {
        "Ben", "Cleo",
    }  # fmt: skip


def test_the_confirmed_drop_leaves_out_a_player_who_registered_meanwhile(
    oc: Client, owner: User
) -> None:
    t = no_show_desk(owner)
    page = html(oc.post(manage(t, "no-shows/")))
    ids = re.findall(r'name="player" value="(\d+)"', page)
    register(t, "Dana")  # registered while the confirmation was on screen
    response = oc.post(manage(t, "no-shows/"), {"confirm": "yes", "player": ids})
    assert response.status_code == 302
    assert set(t.players.filter(dropped_after_round=0).values_list("name", flat=True)) == {
        "Ben", "Cleo",
    }  # fmt: skip
    assert not t.players.get(name="Dana").dropped


# --- (d) "Everyone has checked in" -----------------------------------------------------------


def test_everyone_has_checked_in_is_not_said_while_entries_wait_for_approval(
    oc: Client, owner: User
) -> None:
    t = desk(owner, approval=False)
    (ana,) = register(t, "Ana")
    reg.check_in(player=ana)
    reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=True, check_in=True, by=owner
    )
    queue(t, 14)
    for extra in ({}, HX):
        screen = html(oc.get(manage(t), **extra))
        assert "Everyone has checked in" not in screen
        assert "14 entries wait for approval above" in screen


def test_everyone_has_checked_in_is_said_once_it_is_true_and_not_before_anyone_is_in(
    oc: Client, owner: User
) -> None:
    t = desk(owner, approval=False)
    assert "Everyone has checked in" not in html(oc.get(manage(t)))  # nobody yet
    (ana,) = register(t, "Ana")
    reg.check_in(player=ana)
    assert "Everyone has checked in." in html(oc.get(manage(t)))


# --- (e) The organizer's drop asks first -----------------------------------------------------


@pytest.fixture
def playing(playing_event: Tournament, owner: User) -> Tournament:
    """Round 3 being played, the owner's."""
    Tournament.objects.filter(pk=playing_event.pk).update(owner=owner)
    return Tournament.objects.get(pk=playing_event.pk)


def drop_url(t: Tournament, p: Player, query: str = "") -> str:
    return f"/t/{t.slug}/manage/players/{p.pk}/drop/{query}"


def test_the_organizers_drop_button_opens_a_confirmation_page_naming_the_player(
    oc: Client, playing: Tournament
) -> None:
    t = playing
    player = t.players.get(external_id="p4")
    board = html(oc.get(f"/t/{t.slug}/manage/"))
    # The Drop button asks (a GET), never drops at once.
    assert re.search(rf'<form method="get" action="{drop_url(t, player)}"', board)
    assert f'<form method="post" action="{drop_url(t, player)}"' not in board
    page = html(oc.get(drop_url(t, player)))
    assert f"Drop {player.name} after round 3?" in page
    assert "their results so far stay in the standings" in page
    assert f'<form method="post" action="{drop_url(t, player)}"' in page
    assert f"Yes, drop {player.name}" in page
    assert not Player.objects.get(pk=player.pk).dropped
    stranger = Client()
    stranger.force_login(User.objects.create_user("mallory"))
    assert stranger.get(drop_url(t, player)).status_code == 403
    assert oc.post(drop_url(t, player)).status_code == 302
    assert Player.objects.get(pk=player.pk).dropped


def test_with_htmx_the_drop_confirmation_replaces_the_players_row_in_place(
    oc: Client, playing: Tournament
) -> None:
    t = playing
    player = t.players.get(external_id="p4")
    query = "?on=players&q=" + player.name.split()[0]
    row = html(oc.get(drop_url(t, player, query), **HX))
    assert row.lstrip().startswith(f'<tr id="player-{player.pk}"')
    # Its button comes back to the players screen's search, into the list's panel.
    sent = drop_url(t, player, query).replace("&", "&amp;")
    assert f'hx-post="{sent}" hx-target="#players-panel"' in row
    back = f"/t/{t.slug}/manage/players/?q={player.name.split()[0]}#players-panel"
    assert f'href="{back}">Cancel</a>' in row
    assert not Player.objects.get(pk=player.pk).dropped
    done = html(oc.post(drop_url(t, player, query), **HX))
    assert f"{player.name} dropped." in done
    assert Player.objects.get(pk=player.pk).dropped


def test_the_drop_confirmation_says_when_there_is_nothing_to_confirm(
    oc: Client, playing: Tournament
) -> None:
    t = playing
    player = t.players.get(external_id="p4")
    services.drop_player(player=player, by=None)
    page = html(oc.get(drop_url(t, player)))
    assert f"{player.name} has already dropped after round 3." in page and "Yes, drop" not in page
