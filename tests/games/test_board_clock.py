"""The clocks on the board page: what is left at a given moment, and the state JSON."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from games import services
from games.clocks import running_clocks
from games.models import ClockMode, Match, Turn, TurnKind
from tests.factories import MatchFactory
from tests.games.helpers import recorded_ago, user_of

T0 = datetime.datetime(2025, 3, 1, 12, 0, tzinfo=datetime.UTC)


def at(seconds: float) -> datetime.datetime:
    return T0 + datetime.timedelta(seconds=seconds)


# --- What is left at ``now`` (pure)


def test_increment_charges_every_second_of_the_move_to_the_running_side() -> None:
    clocks = running_clocks(
        mode=ClockMode.INCREMENT,
        move_seconds=8,
        stored_ms=(590_000, 600_000),
        running=2,
        since=T0,
        now=at(12.5),
    )
    assert clocks == {
        "mode": "increment",
        "remaining_ms": [590_000, 587_500],
        "running": 2,
        "delay_ms": 0,
        "flag": [False, False],
    }


def test_delay_leaves_the_first_seconds_of_a_move_free() -> None:
    def left(seconds: float) -> dict[str, object]:
        return running_clocks(
            mode=ClockMode.DELAY,
            move_seconds=12,
            stored_ms=(600_000, 480_000),
            running=1,
            since=T0,
            now=at(seconds),
        )

    within = left(5)
    assert within["remaining_ms"] == [600_000, 480_000]
    assert within["delay_ms"] == 7_000
    past = left(20)
    assert past["remaining_ms"] == [592_000, 480_000]
    assert past["delay_ms"] == 0
    assert left(12)["remaining_ms"] == [600_000, 480_000]


def test_the_flag_falls_at_zero_and_the_clock_stops_there() -> None:
    for mode in (ClockMode.DELAY, ClockMode.INCREMENT):
        clocks = running_clocks(
            mode=mode,
            move_seconds=10,
            stored_ms=(5_000, 300_000),
            running=1,
            since=T0,
            now=at(60),
        )
        assert clocks["remaining_ms"] == [0, 300_000]
        assert clocks["flag"] == [True, False]


def test_no_clock_runs_without_a_side_to_act_or_a_start() -> None:
    idle = running_clocks(
        mode=ClockMode.DELAY,
        move_seconds=12,
        stored_ms=(100_000, 200_000),
        running=None,
        since=T0,
        now=at(600),
    )
    assert (idle["remaining_ms"], idle["running"], idle["delay_ms"]) == (
        [100_000, 200_000],
        None,
        0,
    )
    unstarted = running_clocks(
        mode=ClockMode.INCREMENT,
        move_seconds=0,
        stored_ms=(100_000, 200_000),
        running=2,
        since=None,
        now=at(600),
    )
    assert (unstarted["remaining_ms"], unstarted["running"]) == ([100_000, 200_000], None)


def test_a_server_clock_behind_the_turns_time_charges_nothing() -> None:
    clocks = running_clocks(
        mode=ClockMode.INCREMENT,
        move_seconds=8,
        stored_ms=(60_000, 60_000),
        running=1,
        since=at(10),
        now=T0,
    )
    assert clocks["remaining_ms"] == [60_000, 60_000]


# --- The state JSON


def state_of(client, match: Match) -> dict[str, object]:  # type: ignore[no-untyped-def]
    response = client.get(reverse("games:state", args=[match.pk]))
    assert response.status_code == 200
    return response.json()


def opening_and_play(match: Match, stored: tuple[int | None, int | None] = (None, None)) -> None:
    """White's opening roll and play; ``stored`` replaces what the server charged for
    the play, so that the figures below are exact (the charging itself is pinned by
    test_the_server_charges_each_turn_to_the_side_that_made_it)."""
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    if stored != (None, None):
        Turn.objects.filter(game__match=match, number=2).update(
            clock1_ms=stored[0], clock2_ms=stored[1]
        )


@pytest.mark.django_db
def test_a_match_without_a_clock_shows_none(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    opening_and_play(match)
    assert state_of(client, match)["clock"] is None
    assert Turn.objects.filter(game__match=match, clock1_ms__isnull=False).count() == 0
    page = client.get(reverse("games:board", args=[match.pk])).content.decode()
    assert 'id="clock-1"' not in page and 'id="flag-1"' not in page


@pytest.mark.django_db
def test_before_the_first_turn_both_clocks_show_the_whole_reserve(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(
        clock_mode=ClockMode.DELAY,
        clock_reserve_seconds=60,
        clock_per_point_seconds=120,
        clock_move_seconds=12,
        length=3,
    )
    clock = state_of(client, match)["clock"]
    assert clock == {
        "mode": "delay",
        "remaining_ms": [420_000, 420_000],
        "running": None,
        "delay_ms": 0,
        "flag": [False, False],
    }
    page = client.get(reverse("games:board", args=[match.pk])).content.decode()
    assert 'id="clock-1"' in page and 'id="clock-2"' in page


@pytest.mark.django_db
def test_the_side_to_act_runs_from_its_stored_figure(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(clock_mode=ClockMode.INCREMENT, clock_reserve_seconds=600)
    opening_and_play(match, (590_000, 600_000))
    recorded_ago(match, 30)
    clock = state_of(client, match)["clock"]
    assert clock["running"] == 2 and clock["delay_ms"] == 0
    assert clock["remaining_ms"][0] == 590_000
    assert 0 < clock["remaining_ms"][1] <= 570_000
    assert clock["flag"] == [False, False]


@pytest.mark.django_db
def test_a_delay_not_used_up_leaves_the_clock_as_stored(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(
        clock_mode=ClockMode.DELAY, clock_reserve_seconds=600, clock_move_seconds=600
    )
    opening_and_play(match, (590_000, 600_000))
    recorded_ago(match, 5)
    clock = state_of(client, match)["clock"]
    assert clock["running"] == 2
    assert clock["remaining_ms"] == [590_000, 600_000]
    assert 0 < clock["delay_ms"] <= 595_000


@pytest.mark.django_db
def test_turns_without_a_reading_keep_the_last_known_one(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(clock_mode=ClockMode.INCREMENT, clock_reserve_seconds=600)
    opening_and_play(match, (590_000, None))
    services.record_turn(match, by=user_of(match, 1), number=3, kind=TurnKind.DOUBLE)
    # A turn kept with a reading for one side only (recorded before the server
    # charged every turn): the other side keeps its last one.
    Turn.objects.filter(game__match=match, number=3).update(clock1_ms=None, clock2_ms=580_000)
    recorded_ago(match, 30)
    clock = state_of(client, match)["clock"]
    # Player 1 must answer the double: their clock runs from 590 s.
    assert clock["running"] == 1
    assert clock["remaining_ms"][1] == 580_000
    assert clock["remaining_ms"][0] <= 560_000


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("mode", "move_seconds", "charged"),
    [
        # 40 s on the move: all of it, plus the 5 s increment; or all but the 12 s delay.
        (ClockMode.INCREMENT, 5, 40_000 - 5_000),
        (ClockMode.DELAY, 12, 40_000 - 12_000),
    ],
)
def test_the_server_charges_each_turn_to_the_side_that_made_it(
    mode: str, move_seconds: int, charged: int
) -> None:
    match = MatchFactory(
        clock_mode=mode, clock_reserve_seconds=600, clock_move_seconds=move_seconds
    )
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    opening = Turn.objects.get(game__match=match, number=1)
    assert (opening.clock1_ms, opening.clock2_ms) == (600_000, 600_000)  # nobody charged
    recorded_ago(match, 40)
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    play = Turn.objects.get(game__match=match, number=2)
    # A few milliseconds pass between moving the turn back and recording the next one.
    assert 600_000 - charged - 1_000 < play.clock1_ms <= 600_000 - charged
    assert play.clock2_ms == 600_000


@pytest.mark.django_db
def test_a_fallen_flag_is_shown_but_records_nothing(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(clock_mode=ClockMode.INCREMENT, clock_reserve_seconds=600)
    opening_and_play(match, (590_000, 10_000))
    recorded_ago(match, 60)
    clock = state_of(client, match)["clock"]
    assert clock["remaining_ms"] == [590_000, 0]
    assert clock["flag"] == [False, True]
    assert not Turn.objects.filter(kind=TurnKind.TIMEOUT).exists()
    match.refresh_from_db()
    assert match.state == "playing" and not match.lost_on_time


@pytest.mark.django_db
def test_after_a_loss_on_time_no_clock_runs_and_the_losers_flag_is_down(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(clock_mode=ClockMode.INCREMENT, clock_reserve_seconds=600)
    opening_and_play(match, (590_000, 1_500))
    recorded_ago(match, 60)  # Black's 1.5 s ran out: the server's reading shows the flag
    services.record_timeout(match, by=user_of(match, 0), loser=2)
    # The game lost on time scores nothing itself: the pages still read the match.
    for name in ("games:board", "games:match", "games:match_mat"):
        assert client.get(reverse(name, args=[match.pk])).status_code == 200, name
    state = state_of(client, match)
    assert state["match"]["state"] == "finished"
    clock = state["clock"]
    assert clock["running"] is None
    # The claim kept the server's reading it stood on: Black's clock at zero.
    assert clock["remaining_ms"] == [590_000, 0]
    assert clock["flag"] == [False, True]
