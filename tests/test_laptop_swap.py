"""The laptop swap (issue 26 item 7): a backup taken in the middle of a round holds what
the organizer needs to go on from another installation (the private links as their
hashes, contacts, check-ins, registration, owner and staff by username, the players' own
reports and drops, the top cut's decision, the clock), never a raw token; after a
restore the players' links open their pages again."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from tournaments import services
from tournaments.interchange import DocumentError, export_document, parse_document
from tournaments.models import Match, Player, Report, Round, Tournament
from tournaments.pages.corrections import cut_state
from tournaments.services import registration as reg
from tournaments.services.imports import restore_document
from tournaments.services.reports import report, self_drop

pytestmark = pytest.mark.django_db

# The keys a backup written before the laptop swap did not have.
NEW_KEYS = ("owner", "registration", "links", "checked_in", "dropped_by_player", "reports")


def fresh(t: Tournament) -> Tournament:
    return Tournament.objects.get(pk=t.pk)


def play_round(t: Tournament) -> None:
    for m in Match.objects.filter(round__tournament=t, kind="played", reported=False):
        services.record_result(match=m, wins=(2, 1))


def decide_the_cut(t: Tournament, owner: User) -> None:
    """Correct a last Swiss round's result so that the cut's seeds change, then keep the
    cut as seeded: the organizer's decision, stored in the cut's columns."""
    for m in Match.objects.filter(round__tournament=t, round__number=3, kind="played"):
        services.record_result(match=m, wins=(1, 2), by=owner)
        state = cut_state(fresh(t))
        if state and state["changes"]:
            services.keep_top_cut(tournament=t, seen=state["seen"], by=owner)
            return
        services.record_result(match=m, wins=(2, 1), by=owner)
    raise AssertionError("no correction changes the cut")


@pytest.fixture
def swap(owner: User, django_user_model: type[User]) -> dict[str, Any]:
    """A semifinal being played: registration with approval and check-in, two entries
    left pending and one rejected, contacts, every self-registered player's link, a
    walk-in without one, a player's own drop, staff, a kept cut, a running clock and a
    report waiting for the opponent."""
    for name in ("judge", "scorekeeper"):
        django_user_model.objects.create_user(name)
    t = services.create_tournament(name="Laptop Swap Open", owner=owner, seed=7, top_cut=4)
    reg.set_registration(tournament=t, registration_open=True, cap=40, approval=True,
                         check_in=True, by=owner)  # fmt: skip
    tokens: dict[str, str] = {}
    for i in range(1, 10):
        player, tokens[f"Player {i:02}"] = reg.register_self(
            tournament=t, name=f"Player {i:02}", contact=f"p{i}@mail.example"
        )
        reg.accept_entry(player=player, by=owner)
        reg.check_in(player=player)
    (walk_in,) = services.register_players(tournament=t, names=["Walk In"], by=owner)
    reg.check_in(player=walk_in, by=owner)
    _pat, tokens["Pending Pat"] = reg.register_self(
        tournament=t, name="Pending Pat", contact="pat@mail.example"
    )
    _pia, tokens["Pending Pia"] = reg.register_self(tournament=t, name="Pending Pia")
    rob, tokens["Rejected Rob"] = reg.register_self(tournament=t, name="Rejected Rob")
    reg.reject_entry(player=rob, by=owner)
    for name, role in (("judge", "head_judge"), ("scorekeeper", "scorekeeper")):
        services.add_staff(tournament=t, username=name, role=role, by=owner)
    for number in (1, 2, 3):
        services.pair_next_round(tournament=t, by=owner)
        if number == 2:
            self_drop(player=Player.objects.get(tournament=t, name="Player 09"))
        play_round(t)
    services.start_top_cut(tournament=t, size=4, by=owner)
    decide_the_cut(t, owner)
    semifinal = Round.objects.get(tournament=t, playoff=True)
    services.start_clock(round=semifinal, minutes=40, by=owner)
    match = Match.objects.filter(round=semifinal).order_by("table").first()
    assert match is not None
    reporter = match.seats.order_by("position").first().player  # type: ignore[union-attr]
    report(player=reporter, match=match, wins_mine=2, wins_theirs=1)
    return {"t": fresh(t), "tokens": tokens, "reporter": reporter.name}


def state(t: Tournament) -> dict[str, Any]:
    """Everything the laptop swap carries, by names and ids (not the rows' keys)."""
    t = fresh(t)
    return {
        "event": Tournament.objects.filter(pk=t.pk)
        .values(
            "status",
            "phase",
            "top_cut",
            "registration_open",
            "registration_cap",
            "registration_approval",
            "check_in",
            "cut_started_at",
            "cut_decision",
            "cut_decided_at",
            "cut_decision_changes",
            "cut_correction_round",
            "cut_correction_table",
            "cut_correction_at",
        )
        .get(),
        "owner": t.owner.username if t.owner else None,
        "staff": sorted(t.staff.values_list("username", flat=True)),
        "staff_roles": sorted(t.staffmember_set.values_list("user__username", "role")),
        "players": list(
            t.players.order_by("external_id").values_list(
                "external_id",
                "name",
                "entry",
                "contact",
                "token_hash",
                "checked_in_at",
                "dropped_after_round",
                "dropped_by_player",
            )
        ),
        "clocks": list(
            t.rounds.order_by("number").values_list(
                "number", "clock_ends_at", "clock_paused_remaining"
            )
        ),
        "reports": list(
            Report.objects.filter(match__round__tournament=t)
            .order_by("match__round__number", "match__table")
            .values_list(
                "match__round__number",
                "match__table",
                "reporter__external_id",
                "wins_a",
                "wins_b",
                "draws",
                "state",
                "answered_by__external_id",
                "counter_wins_a",
                "created_at",
                "updated_at",
            )
        ),
    }


def test_a_restore_after_the_event_is_gone_gives_back_every_piece_and_the_links_work(
    swap: dict[str, Any], owner: User, client: Client
) -> None:
    t, tokens = swap["t"], swap["tokens"]
    before = state(t)
    assert before["event"]["cut_decision"] == "keep" and before["reports"]
    assert any(p[2] == "pending" for p in before["players"])
    text = json.dumps(export_document(t, backup=True), ensure_ascii=False)
    t.delete()  # the old laptop is gone
    for token in tokens.values():
        assert client.get(f"/p/{token}/").status_code == 404
    done = restore_document(parse_document(text), owner=owner)
    assert done.notes == []
    assert state(done.tournament) == before
    for name in ("Player 01", "Pending Pat", swap["reporter"]):
        page = client.get(f"/p/{tokens[name]}/")
        assert page.status_code == 200 and name in page.content.decode(), name


def test_a_backup_never_holds_a_raw_token(swap: dict[str, Any], owner: User) -> None:
    client = Client()
    client.force_login(owner)
    body = client.get(f"/t/{swap['t'].slug}/manage/backup.json").content.decode()
    assert len(json.loads(body)["event"]["links"]) == 12  # nine players, three entries
    for token in swap["tokens"].values():
        assert token not in body


def test_the_upload_restores_the_staff_who_have_accounts_and_names_those_who_have_none(
    swap: dict[str, Any], owner: User, oc: Client
) -> None:
    t = swap["t"]
    body = oc.get(f"/t/{t.slug}/manage/backup.json").content
    t.delete()
    User.objects.get(username="scorekeeper").delete()  # not on the new laptop
    upload = SimpleUploadedFile("backup.json", body, "application/json")
    response = oc.post("/manage/restore/", {"document": upload}, follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert "No account called &#x27;scorekeeper&#x27; on this installation" in page
    restored = Tournament.objects.get(name="Laptop Swap Open")
    assert list(restored.staff.values_list("username", flat=True)) == ["judge"]
    assert restored.owner == owner
    assert User.objects.filter(username="scorekeeper").count() == 0  # no account made
    token = swap["tokens"]["Player 02"]
    assert "Player 02" in oc.get(f"/p/{token}/").content.decode()


def test_a_staff_member_who_restores_owns_the_event_and_is_told_whose_it_was(
    swap: dict[str, Any],
) -> None:
    t = swap["t"]
    doc = export_document(t, backup=True)
    t.delete()
    judge = User.objects.get(username="judge")
    done = restore_document(doc, owner=judge)
    assert done.tournament.owner == judge
    assert list(done.tournament.staff.values_list("username", flat=True)) == ["scorekeeper"]
    assert done.notes == [
        "You own the restored event; the backup's owner was 'owner'. Add them to the staff "
        "if they run it too."
    ]


def test_a_copy_restored_beside_its_original_leaves_the_links_to_the_original(
    swap: dict[str, Any], owner: User, client: Client
) -> None:
    t = swap["t"]
    done = restore_document(export_document(t, backup=True), owner=owner)
    assert done.tournament.slug != t.slug
    assert len(done.notes) == 1 and "12 private links already open" in done.notes[0]
    assert not done.tournament.players.exclude(token_hash="").exists()
    page = client.get(f"/p/{swap['tokens']['Player 01']}/")
    assert page.status_code == 200 and f"/t/{t.slug}/" in page.content.decode()


def test_a_backup_written_before_the_laptop_swap_restores_as_it_did(
    swap: dict[str, Any], owner: User, client: Client
) -> None:
    t = swap["t"]
    doc = export_document(t, backup=True)
    before = state(t)
    for key in NEW_KEYS:
        doc["event"].pop(key, None)
    t.delete()
    done = restore_document(doc, owner=owner)
    after = state(done.tournament)
    assert done.notes == []
    assert after["staff"] == before["staff"] and after["clocks"] == before["clocks"]
    assert after["event"]["cut_decision"] == "keep" and after["reports"] == []
    assert not after["event"]["registration_open"] and not after["event"]["check_in"]
    assert [p[:4] for p in after["players"]] == [p[:4] for p in before["players"]]
    assert all(p[4] == "" and p[5] is None for p in after["players"])
    assert client.get(f"/p/{swap['tokens']['Player 01']}/").status_code == 404


def test_the_command_line_restores_the_owner_by_username_and_names_missing_staff(
    swap: dict[str, Any], tmp_path: Any
) -> None:
    t = swap["t"]
    out = StringIO()
    call_command("export_tournament", t.slug, "--backup", stdout=out)
    path = tmp_path / "backup.json"
    path.write_text(out.getvalue())
    t.delete()
    User.objects.get(username="judge").delete()
    out, err = StringIO(), StringIO()
    call_command("import_tournament", str(path), stdout=out, stderr=err)
    restored = Tournament.objects.get(slug=out.getvalue().strip().splitlines()[-1])
    assert restored.owner is not None and restored.owner.username == "owner"
    assert list(restored.staff.values_list("username", flat=True)) == ["scorekeeper"]
    assert "No account called 'judge'" in err.getvalue()
    assert restored.players.exclude(token_hash="").count() == 12


@pytest.mark.parametrize(
    ("change", "place"),
    [
        (lambda e, tok: e["links"].update({next(iter(e["links"])): tok}), "event.links."),
        (
            lambda e, _t: e["links"].update(dict.fromkeys(e["links"], "a" * 64)),
            "event.links.",
        ),
        (lambda e, _t: e["registration"].update(cap=0), "event.registration.cap"),
        (lambda e, _t: e["registration"].update(open="yes"), "event.registration.open"),
        (
            lambda e, _t: e["checked_in"].update({"nobody": "2025-06-14T10:00:00+00:00"}),
            "event.checked_in.nobody",
        ),
        (lambda e, _t: e["reports"][0].update(round=99), "event.reports[0].reporter"),
        (lambda e, _t: e["reports"].append(dict(e["reports"][0])), "event.reports[1]"),
        (lambda e, _t: e["reports"][0].update(state="lost"), "event.reports[0].state"),
        (lambda e, _t: e.update(owner=["owner"]), "event.owner"),
    ],
    ids=[
        "a raw token",
        "a hash twice",
        "cap 0",
        "open not a boolean",
        "unknown player",
        "no match that round",
        "two reports for a match",
        "unknown state",
        "owner a list",
    ],
)
def test_a_damaged_laptop_swap_key_is_refused_naming_its_place_and_nothing_is_written(
    swap: dict[str, Any], owner: User, change: Any, place: str
) -> None:
    doc = export_document(swap["t"], backup=True)
    change(doc["event"], swap["tokens"]["Player 01"])
    with pytest.raises(DocumentError) as refused:
        restore_document(doc, owner=owner)
    assert any(p.startswith(place) for p in refused.value.problems), refused.value.problems
    assert Tournament.objects.count() == 1
