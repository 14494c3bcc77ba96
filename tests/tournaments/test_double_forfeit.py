"""Both players forfeit ("both absent"): a loss for each outside brackets, the match
cancelled, correctable to a one-sided forfeit; refused in a knock-out bracket."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from games import services as games_services
from games.models import MatchState, ResultStatus
from tests.tournaments import builders
from tests.tournaments.builders import higher_seed
from tournaments import adapters, services, tasks
from tournaments.models import (
    BOTH_FORFEITED,
    Entry,
    Pairing,
    Round,
    StandingsSnapshot,
    Tournament,
)

pytestmark = pytest.mark.django_db


def swiss(n: int = 4, **settings):  # type: ignore[no-untyped-def]
    federation, admin, _discipline = builders.federation_with_admin()
    settings.setdefault("rounds_planned", 3)
    t = builders.tournament(n, "swiss", federation=federation, by=admin, **settings)
    return t, admin


def row_of(t: Tournament, entry_id: int) -> dict:
    snapshot = services.compute_standings(t)
    assert snapshot is not None, "no round counts yet"
    return next(r for r in snapshot.rows if r["entry"] == entry_id)


def finish_round(rnd: Round) -> None:
    """The round's other results confirmed: the standings count it (all official)."""
    for p in rnd.pairings.select_related("match", "entry1", "entry2"):
        if p.entry2_id is not None and not adapters.is_decided(p):
            builders.confirm_result(p, higher_seed(p))


def test_both_forfeit_a_swiss_match() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    absent, played = rnd.pairings.order_by("table")
    # A report was already sent for the match: it is superseded, not lost.
    match = absent.match
    games_services.submit_report(match, by=match.player1.user, score1=3, score2=0)
    services.forfeit(absent, by=admin, winner=None, reason="Neither player came.")
    absent.refresh_from_db()
    match.refresh_from_db()
    assert absent.forfeit_winner == BOTH_FORFEITED
    assert (match.state, match.result_status) == (MatchState.CANCELLED, ResultStatus.NONE)
    assert match.cancel_reason == "Neither player came."
    assert list(match.reports.values_list("status", flat=True)) == ["superseded"]
    builders.confirm_result(played, higher_seed(played))
    services.close_round(rnd, by=admin)
    for entry_id in (absent.entry1_id, absent.entry2_id):
        row = row_of(t, entry_id)
        assert (row["wins"], row["losses"], row["forfeits"], row["score"]) == (0, 1, 1, 0)
    winner = row_of(t, higher_seed(played))
    assert (winner["wins"], winner["forfeits"]) == (1, 0)


def test_until_one_loss_both_are_out_after_a_double_forfeit() -> None:
    t, admin = swiss(4, rounds_planned=None, max_losses=1)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    absent, played = rnd.pairings.order_by("table")
    services.forfeit(absent, by=admin, winner=None, reason="Both late.")
    builders.confirm_result(played, higher_seed(played))
    services.close_round(rnd, by=admin)
    # Only the one player without a loss is left: the event is over.
    with pytest.raises(ValidationError) as refused:
        services.pair_next_round(t, by=admin)
    assert refused.value.code == "event_finished"


def test_a_double_forfeit_is_corrected_to_a_one_sided_one() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    pairing = rnd.pairings.get(table=1)
    services.forfeit(pairing, by=admin, winner=None, reason="Both absent.")
    services.forfeit(pairing, by=admin, winner=pairing.entry2_id, reason="Black was there.")
    pairing.refresh_from_db()
    assert pairing.forfeit_winner == 2
    match = pairing.match
    assert (match.state, match.winner, match.forfeit) == (MatchState.FINISHED, 2, True)
    finish_round(rnd)
    assert row_of(t, pairing.entry2_id)["wins"] == 1


def test_an_override_on_the_match_takes_over_from_the_double_forfeit() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    pairing = rnd.pairings.get(table=1)
    services.forfeit(pairing, by=admin, winner=None, reason="Both absent.")
    builders.override_result(pairing, pairing.entry1_id, admin)
    finish_round(rnd)
    assert row_of(t, pairing.entry1_id)["wins"] == 1
    assert row_of(t, pairing.entry2_id)["losses"] == 1


def test_a_knockout_match_needs_someone_to_go_through() -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "single_elimination", federation=federation, by=admin)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    pairing = rnd.pairings.get(table=1)
    with pytest.raises(ValidationError, match="knock-out match"):
        services.forfeit(pairing, by=admin, winner=None, reason="Both absent.")
    pairing.refresh_from_db()
    assert pairing.forfeit_winner is None
    assert pairing.match.state == MatchState.SCHEDULED


def test_two_withdrawn_players_meeting_in_a_round_robin_both_forfeit() -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "round_robin", federation=federation, by=admin)
    first = builders.play_round(services.pair_next_round(t, by=admin), admin)
    met = {frozenset((p.entry1_id, p.entry2_id)) for p in first.pairings.all()}
    entries = builders.entry_ids_by_seed(t)
    quitters = next(
        (a, b) for a in entries for b in entries if a < b and frozenset((a, b)) not in met
    )
    for entry_id in quitters:
        services.withdraw(Entry.objects.get(pk=entry_id), by=admin)
    rounds = builders.run_flight_rounds(t, admin)
    assert len(rounds) == 2  # every round closed, the double forfeit included
    both = Pairing.objects.get(round__in=rounds, forfeit_winner=BOTH_FORFEITED)
    assert {both.entry1_id, both.entry2_id} == set(quitters)
    assert both.match_id is None
    for entry_id in quitters:
        assert row_of(t, entry_id)["forfeits"] == 2


def test_cancelling_a_pairings_match_asks_for_the_standings_again() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    pairing = rnd.pairings.get(table=1)
    builders.confirm_result(pairing, higher_seed(pairing))
    finish_round(rnd)
    assert row_of(t, higher_seed(pairing))["wins"] == 1
    Tournament.objects.filter(pk=t.pk).update(standings_requested_at=None)
    games_services.cancel_match(pairing.match, by=admin, reason="Wrong players sat down.")
    # The tournament's share, queued for the commit (these tests never commit).
    tasks.result_withdrawn_task(pairing.match_id)
    t.refresh_from_db()
    assert t.standings_requested_at is not None
    # The round has a result less: it counts no more, and the table that counted it goes.
    assert services.compute_standings(t) is None
    assert not StandingsSnapshot.objects.filter(tournament=t).exists()


def both_absent_by_api(client, pairing: Pairing):  # type: ignore[no-untyped-def]
    return client.post(
        f"/api/pairings/{pairing.pk}/forfeit/",
        json.dumps({"winner": None, "reason": "No-shows"}),
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
    )


def test_the_console_and_the_api_offer_both_forfeit_outside_brackets(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    first, second = rnd.pairings.order_by("table")
    client.force_login(admin)
    console = reverse("tournaments:console", args=[t.pk])
    html = client.get(console, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Neither: both forfeit" in html
    response = builders.inline_result(client, t, rnd, first.table, action="both", reason="No-shows")
    followed = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en")
    assert "both players forfeit" in followed.content.decode()
    first.refresh_from_db()
    assert first.forfeit_winner == BOTH_FORFEITED
    html = client.get(console, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "double forfeit" in html
    response = both_absent_by_api(client, second)
    assert response.status_code == 200
    result = response.json()["result"]
    assert (result["winner"], result["forfeit"]) == (None, True)

    knockout = builders.tournament(4, "single_elimination", federation=t.federation, by=admin)
    ko_round = services.pair_next_round(knockout, by=admin)
    services.start_round(ko_round, by=admin)
    html = client.get(
        reverse("tournaments:console", args=[knockout.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "Neither: both forfeit" not in html
    pairing = ko_round.pairings.get(table=1)
    response = both_absent_by_api(client, pairing)
    assert response.status_code == 400
    assert "knock-out match" in json.dumps(response.json())
