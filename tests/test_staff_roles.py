"""Staff roles (issue 27): scorekeepers run the event like its owner; head and floor
judges run the floor and enter results, but never pair, cut or finish."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tournaments import services
from tournaments.models import AuditEntry, Match, StaffMember, StaffRole, Tournament
from tournaments.permissions import ORGANIZER, can_judge, can_manage, is_head_judge, role_of
from tournaments.services import ServiceError

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(django_user_model: Any, owner: Any) -> dict[str, Any]:
    t = services.create_tournament(name="Roles Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    people = {"owner": owner}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    return {"t": t, **people}


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_each_role_is_what_the_staff_screen_set(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    assert role_of(team["owner"], t) == ORGANIZER
    assert role_of(team["scorekeeper"], t) == StaffRole.SCOREKEEPER
    assert role_of(team["head_judge"], t) == StaffRole.HEAD_JUDGE
    assert role_of(team["floor_judge"], t) == StaffRole.FLOOR_JUDGE
    assert role_of(team["stranger"], t) is None
    assert [can_manage(team[r], t) for r in ("owner", "scorekeeper", "head_judge")] == [
        True, True, False,
    ]  # fmt: skip
    assert all(can_judge(team[r], t) for r in ("owner", "scorekeeper", "floor_judge"))
    assert not can_judge(team["stranger"], t)
    assert is_head_judge(team["head_judge"], t) and is_head_judge(team["owner"], t)
    assert not is_head_judge(team["floor_judge"], t)
    assert not is_head_judge(team["scorekeeper"], t)


@pytest.mark.parametrize("role", ["head_judge", "floor_judge"])
def test_a_judge_enters_a_result_but_never_pairs_cuts_or_finishes(
    team: dict[str, Any], role: str
) -> None:
    t: Tournament = team["t"]
    client = logged_in(team[role])
    match = Match.objects.filter(round__tournament=t).order_by("table").first()
    assert match is not None
    assert client.get(reverse("manage_round", args=[t.slug, 1])).status_code == 200
    response = client.post(
        reverse("manage_result", args=[t.slug, match.pk]),
        {"result": "2-0"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    match.refresh_from_db()
    assert match.reported
    for name in ("manage_pair", "manage_cut", "manage_top_cut", "manage_finish", "manage_undo"):
        assert client.post(reverse(name, args=[t.slug])).status_code == 403, name
    assert client.get(reverse("manage_event", args=[t.slug])).status_code == 403
    # The round screen a judge sees offers none of the organizer's actions.
    page = client.get(reverse("manage_round", args=[t.slug, 1])).content.decode()
    assert 'id="pair-button"' not in page
    assert reverse("manage_staff", args=[t.slug]) not in page


def test_a_scorekeeper_runs_the_round_like_the_owner(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    client = logged_in(team["scorekeeper"])
    page = client.get(reverse("manage_round", args=[t.slug, 1])).content.decode()
    assert 'id="pair-button"' in page or "Pair round" in page or "round-actions" in page
    assert client.get(reverse("manage_event", args=[t.slug])).status_code == 200


def test_the_owner_changes_a_role_on_the_staff_screen(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    client = logged_in(team["owner"])
    judge = team["floor_judge"]
    url = reverse("manage_staff", args=[t.slug])
    response = client.post(url, {"member": str(judge.pk), "role": "head_judge"})
    assert response.status_code == 302
    assert StaffMember.objects.get(tournament=t, user=judge).role == StaffRole.HEAD_JUDGE
    response = client.post(
        url, {"member": str(judge.pk), "role": "floor_judge"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert "<html" not in response.content.decode()
    assert StaffMember.objects.get(tournament=t, user=judge).role == StaffRole.FLOOR_JUDGE
    assert AuditEntry.objects.filter(tournament=t, after__event="role").count() == 2


def test_an_unknown_role_is_refused_by_name(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    client = logged_in(team["owner"])
    url = reverse("manage_staff", args=[t.slug])
    response = client.post(url, {"member": str(team["floor_judge"].pk), "role": "wizard"})
    assert response.status_code == 422
    assert "&#x27;wizard&#x27; is not a staff role" in response.content.decode()
    with pytest.raises(ServiceError, match="not a staff role"):
        services.add_staff(tournament=t, username="stranger", role="boss")


def test_a_judge_cannot_change_roles(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    client = logged_in(team["head_judge"])
    url = reverse("manage_staff", args=[t.slug])
    response = client.post(url, {"member": str(team["floor_judge"].pk), "role": "head_judge"})
    assert response.status_code == 403
    assert StaffMember.objects.get(tournament=t, user=team["floor_judge"]).role == "floor_judge"


@pytest.mark.django_db(transaction=True)
def test_staff_from_before_roles_are_scorekeepers(migrate: Any, django_user_model: Any) -> None:
    old = migrate("0011_tournament_time_zone")
    user = django_user_model.objects.create_user("veteran")
    t = old.get_model("tournaments", "Tournament").objects.create(
        name="Old", slug="old", seed=1, cut_decision=""
    )
    t.staff.add(user.pk)
    migrate("0012_floor")
    assert StaffMember.objects.get(tournament_id=t.pk, user=user).role == StaffRole.SCOREKEEPER


def test_a_judges_dashboard_leads_to_the_floor_and_a_scorekeepers_to_the_event(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    judge = logged_in(team["floor_judge"]).get(reverse("manage_dashboard")).content.decode()
    assert f'href="{reverse("judge_floor", args=[t.slug])}"' in judge
    assert "(floor judge)" in judge
    keeper = logged_in(team["scorekeeper"]).get(reverse("manage_dashboard")).content.decode()
    assert f'href="{reverse("manage_event", args=[t.slug])}"' in keeper
