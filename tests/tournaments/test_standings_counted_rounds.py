"""Standings count only the rounds that count (issue 19, part 2): a round counts
once it is closed or every one of its results is official, and only after every
round started before it.  The round in play never makes nor changes a table; the
public page and the console say how far it is ("Round 3 in progress: 1 of 4
results"), without the count on the public page while its results are hidden."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from tests.tournaments import builders
from tests.tournaments.builders import higher_seed, play_round
from tournaments import queries, services
from tournaments.models import Pairing, Round, RoundState, StandingsSnapshot, Tournament

pytestmark = pytest.mark.django_db

PLAYERS = 8
TABLES = PLAYERS // 2


def swiss(**settings: Any) -> tuple[Tournament, Any]:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        PLAYERS, "swiss", federation=federation, by=admin, rounds_planned=5, **settings
    )
    return t, admin


def page(client: Any, t: Tournament) -> str:
    response = client.get(reverse("tournaments:public", args=[t.federation.slug, t.slug]))
    assert response.status_code == 200
    html: str = response.content.decode()
    start = html.index('<section class="part" id="standings">')
    return html[start : html.index("</section>", start)]


def console_standings(client: Any, t: Tournament, admin: Any) -> str:
    client.force_login(admin)
    html: str = client.get(reverse("tournaments:console", args=[t.pk])).content.decode()
    client.logout()
    start = html.index('<section class="part" id="standings">')
    return html[start : html.index("</section>", start)]


def snapshots(t: Tournament) -> list[int]:
    return sorted(
        StandingsSnapshot.objects.filter(tournament=t).values_list("after_round", flat=True)
    )


def tables(rnd: Round) -> list[Pairing]:
    return list(
        rnd.pairings.select_related("match__player1__user", "match__player2__user").order_by(
            "table"
        )
    )


@pytest.fixture
def third_round_started() -> tuple[Tournament, Any, Round]:
    """Rounds 1 and 2 official (closed), round 3 started with no result."""
    t, admin = swiss()
    for _ in range(2):
        play_round(services.pair_next_round(t, by=admin), admin)
    third = services.pair_next_round(t, by=admin)
    services.start_round(third, by=admin)
    return t, admin, third


def test_a_started_round_without_results_does_not_count(client: Any, third_round_started) -> None:  # type: ignore[no-untyped-def]
    t, _admin, _third = third_round_started
    snapshot = services.compute_standings(t)
    assert snapshot is not None and snapshot.after_round == 2
    assert snapshots(t) == [1, 2]
    standings = page(client, t)
    assert "After round 2" in standings and "After round 3" not in standings
    assert f"Round 3 in progress: 0 of {TABLES} results" in standings


def test_a_result_of_the_round_in_play_changes_no_table(client: Any, third_round_started) -> None:  # type: ignore[no-untyped-def]
    t, admin, third = third_round_started
    before = services.compute_standings(t)
    assert before is not None
    first = tables(third)[0]
    builders.confirm_result(first, higher_seed(first))
    after = services.compute_standings(t)
    assert after is not None and after.pk == before.pk and after.after_round == 2
    assert (after.rows, after.results_digest) == (before.rows, before.results_digest)
    assert snapshots(t) == [1, 2]
    standings = page(client, t)
    assert "After round 2" in standings
    assert f"Round 3 in progress: 1 of {TABLES} results" in standings
    assert f"Round 3 in progress: 1 of {TABLES} results" in console_standings(client, t, admin)


def test_a_correction_in_a_counted_round_still_corrects_its_table(third_round_started) -> None:  # type: ignore[no-untyped-def]
    t, admin, third = third_round_started
    before = services.compute_standings(t)
    assert before is not None
    in_play = tables(third)[0]
    builders.confirm_result(in_play, higher_seed(in_play))
    corrected = t.rounds.get(number=1).pairings.get(table=1)
    underdog = (
        corrected.entry2_id
        if higher_seed(corrected) == corrected.entry1_id
        else corrected.entry1_id
    )
    builders.override_result(corrected, underdog, admin)
    after = services.compute_standings(t)
    assert after is not None and after.after_round == 2
    wins = {row["entry"]: row["wins"] for row in after.rows}
    wins_before = {row["entry"]: row["wins"] for row in before.rows}
    assert wins[underdog] == wins_before[underdog] + 1
    # The round in play's result is still not in the table: one win per table of
    # rounds 1 and 2.
    assert sum(wins.values()) == 2 * TABLES
    assert snapshots(t) == [1, 2]


def test_a_round_with_every_result_official_counts_before_it_is_closed(
    client: Any, third_round_started
) -> None:  # type: ignore[no-untyped-def]
    t, admin, third = third_round_started
    for p in tables(third):
        builders.confirm_result(p, higher_seed(p))
    third.refresh_from_db()
    assert third.state == RoundState.STARTED
    snapshot = services.compute_standings(t)
    assert snapshot is not None and snapshot.after_round == 3
    assert sum(row["wins"] for row in snapshot.rows) == 3 * TABLES
    # Published when the round closes, not before (issue 15): the public still sees
    # the table after round 2.
    assert snapshot.published_at is None
    assert "After round 3" not in page(client, t)
    services.close_round(third, by=admin)
    services.compute_standings(t)
    standings = page(client, t)
    assert "After round 3" in standings and "in progress" not in standings


def test_a_closed_round_counts(third_round_started) -> None:  # type: ignore[no-untyped-def]
    t, admin, third = third_round_started
    for p in tables(third):
        builders.confirm_result(p, higher_seed(p))
    services.close_round(third, by=admin)
    snapshot = services.compute_standings(t)
    assert snapshot is not None and snapshot.after_round == 3
    assert queries.latest_standings(t) == snapshot
    rounds = queries.standings_rounds(
        Pairing.objects.filter(round__tournament=t).select_related("round", "match")
    )
    assert [r.number for r in rounds.counted] == [1, 2, 3] and rounds.in_play == []


def test_no_table_before_the_first_round_counts(client: Any) -> None:
    t, admin = swiss()
    first = services.pair_next_round(t, by=admin)
    services.start_round(first, by=admin)
    p = tables(first)[0]
    builders.confirm_result(p, higher_seed(p))
    assert services.compute_standings(t) is None
    assert snapshots(t) == []
    standings = page(client, t)
    assert "No standings are published yet." in standings
    assert f"Round 1 in progress: 1 of {TABLES} results" in standings


def test_a_silent_round_in_play_shows_no_count_to_the_public(client: Any) -> None:
    t, admin = swiss()
    play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)  # published: no round is silent yet
    silent = services.pair_next_round(t, by=admin, silent=True)
    services.start_round(silent, by=admin)
    p = tables(silent)[0]
    builders.confirm_result(p, higher_seed(p))
    standings = page(client, t)
    assert "After round 1" in standings
    assert "Round 2 in progress" in standings and "Round 2 in progress:" not in standings
    # The organizer sees how far the round is.
    assert f"Round 2 in progress: 1 of {TABLES} results" in console_standings(client, t, admin)


def test_publishing_releases_only_the_rounds_the_standings_count() -> None:
    t, admin = swiss(publish_standings=False)
    first = play_round(services.pair_next_round(t, by=admin, silent=True), admin)
    snapshot = services.compute_standings(t)
    assert snapshot is not None and snapshot.after_round == 1
    second = services.pair_next_round(t, by=admin, silent=True)
    services.start_round(second, by=admin)
    services.publish_standings(snapshot, by=admin)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.silent, second.silent) == (False, True)


def test_in_several_flights_a_round_counts_only_behind_the_rounds_started_before_it(
    client: Any,
) -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(8, "main_consolation", federation=federation, by=admin)
    play_round(services.pair_next_round(t, by=admin), admin)  # main round 1: counts
    main = services.pair_next_round(t, by=admin)
    services.start_round(main, by=admin)  # main round 2 started first ...
    consolation = services.pair_next_round(t, by=admin, flight="consolation")
    services.start_round(consolation, by=admin)  # ... then consolation round 1
    for p in tables(consolation):
        builders.confirm_result(p, higher_seed(p))
    # Consolation round 1 is complete, but main round 2 started before it is not.
    snapshot = services.compute_standings(t)
    assert snapshot is not None and snapshot.after_round == 1
    in_play = page(client, t)
    # Knock-out rounds by what they are (issue 15): main round 2 of 8 players is the
    # semi-final, and the consolation of round 1's four losers starts with one too.
    assert "Semi-final · Main flight in progress: 0 of 2 results" in in_play
    assert "Semi-final · Consolation in progress: 2 of 2 results" in in_play
    for p in tables(main):
        builders.confirm_result(p, higher_seed(p))
    snapshot = services.compute_standings(t)
    assert snapshot is not None and snapshot.after_round == 3
    assert "in progress" not in page(client, t)
