"""The round clock: start, pause, resume, add minutes; the phone counts down itself."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tournaments import services
from tournaments.models import Round
from tournaments.pages.common import clock_remaining

pytestmark = pytest.mark.django_db


@pytest.fixture
def round_() -> Round:
    t = services.create_tournament(name="Clock test", system="mtr")
    return Round.objects.create(tournament=t, number=1)


def test_a_started_clock_runs_down_from_the_chosen_minutes(round_: Round) -> None:
    r = services.start_clock(round=round_, minutes=50)
    left = clock_remaining(r)
    assert left is not None and timedelta(minutes=49, seconds=58) < left <= timedelta(minutes=50)


def test_pause_keeps_the_time_left_and_resume_continues_from_it(round_: Round) -> None:
    services.start_clock(round=round_, minutes=30)
    paused = services.pause_clock(round=round_)
    assert paused.clock_ends_at is None
    left = clock_remaining(paused)
    resumed = services.resume_clock(round=round_)
    assert resumed.clock_paused_remaining is None
    assert abs(clock_remaining(resumed) - left) < timedelta(seconds=2)


def test_adding_minutes_moves_the_end_time_running_or_paused(round_: Round) -> None:
    r = services.start_clock(round=round_, minutes=10)
    before = r.clock_ends_at
    r = services.add_clock_minutes(round=round_, minutes=5)
    assert r.clock_ends_at - before == timedelta(minutes=5)
    services.pause_clock(round=round_)
    r = services.add_clock_minutes(round=round_, minutes=-3)
    assert r.clock_paused_remaining < timedelta(minutes=12, seconds=1)


def test_clock_mistakes_get_a_clear_message(round_: Round) -> None:
    with pytest.raises(services.ServiceError, match="not running"):
        services.pause_clock(round=round_)
    with pytest.raises(services.ServiceError, match="Start the clock first"):
        services.add_clock_minutes(round=round_, minutes=5)
    with pytest.raises(services.ServiceError, match="between 1 and 600"):
        services.start_clock(round=round_, minutes=0)
