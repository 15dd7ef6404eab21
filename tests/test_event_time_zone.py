"""The event's time zone (issue 26 item 8): the audit log's times are the venue's, not
UTC; the server's default zone is the machine's."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tournaments import services, venue
from tournaments.interchange import export_document
from tournaments.models import AuditEntry, Tournament
from tournaments.services import ServiceError, import_document


def test_the_machines_zone_is_the_default_read_from_tz_or_the_system() -> None:
    assert venue.local_zone_name({"TZ": "Europe/Paris"}) == "Europe/Paris"
    assert venue.local_zone_name({"TZ": ":America/Chicago"}) == "America/Chicago"
    assert venue.local_zone_name({"TZ": "Not/AZone"}) in {"UTC", *_system_zone()}


def _system_zone() -> set[str]:
    try:
        return {Path("/etc/timezone").read_text().strip()}
    except OSError:
        return set()


@pytest.mark.django_db
def test_the_audit_log_shows_times_in_the_events_zone(oc: Client, owner: Any) -> None:
    t = services.create_tournament(name="Tokyo Open", owner=owner, time_zone="Asia/Tokyo")
    services.register_players(tournament=t, names=["Ana", "Ben"], by=owner)
    AuditEntry.objects.filter(tournament=t).update(at=datetime(2026, 6, 13, 1, 5, tzinfo=UTC))
    page = oc.get(f"/t/{t.slug}/manage/audit/").content.decode()
    assert "at 10:05" in page and "at 01:05" not in page  # 01:05 UTC is 10:05 in Tokyo


@pytest.mark.django_db
@pytest.mark.parametrize("extra", [{}, {"HTTP_HX_REQUEST": "true"}])
def test_the_create_form_offers_the_zone_and_keeps_it(oc: Client, extra: dict[str, str]) -> None:
    form = oc.get("/manage/").content.decode()
    assert 'name="time_zone"' in form and 'value="Europe/Lisbon"' in form
    data = {"name": "Lisbon Cup", "system": "mtr", "best_of": "3", "top_cut": "0"}
    response = oc.post("/manage/create/", {**data, "time_zone": "Europe/Lisbon"}, **extra)
    assert response.status_code in (200, 302)
    assert Tournament.objects.get(name="Lisbon Cup").time_zone == "Europe/Lisbon"
    refused = oc.post("/manage/create/", {**data, "name": "X", "time_zone": "Mars/Base"}, **extra)
    assert refused.status_code == 422 and "time_zone" in refused.content.decode()


@pytest.mark.django_db
def test_an_unknown_zone_is_refused_by_the_service() -> None:
    with pytest.raises(ServiceError, match="Unknown time zone 'Mars/Base'"):
        services.create_tournament(name="X", time_zone="Mars/Base")


@pytest.mark.django_db
def test_a_backup_carries_the_zone() -> None:
    t = services.create_tournament(name="Sydney Open", time_zone="Australia/Sydney")
    services.register_players(tournament=t, names=["Ana", "Ben"])
    doc = export_document(t, backup=True)
    t.delete()
    assert import_document(doc).time_zone == "Australia/Sydney"
