from __future__ import annotations

import copy

import pytest
from django.test import Client

from tournaments.interchange import import_document

pytestmark = pytest.mark.django_db


def test_standings_page_shows_rank_name_points_record_and_percentages(
    client: Client, small_doc: dict
) -> None:
    t = import_document(copy.deepcopy(small_doc))
    response = client.get(f"/t/{t.slug}/standings/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and "Ana Souza" in html and "OMW%" in html
    assert "2-0-0" in html and "After round 2" in html


def test_standings_partial_for_htmx_is_only_the_table(client: Client, small_doc: dict) -> None:
    t = import_document(copy.deepcopy(small_doc))
    response = client.get(f"/t/{t.slug}/standings/", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and 'id="standings"' in html and "Ana Souza" in html


def test_an_unknown_tournament_is_a_404(client: Client) -> None:
    assert client.get("/t/nope/standings/").status_code == 404


def test_home_lists_tournaments(client: Client, small_doc: dict) -> None:
    import_document(copy.deepcopy(small_doc))
    assert "Friday Night Modern" in client.get("/").content.decode()
