"""Results an arbiter or organizer enters are official at once (issue 12, point 3);
a recorded match is decided by its record.

An official entry goes through the same doors as a player's report (the match
page's form, the tournament console, the API) and is recorded as theirs
(``ReportSource.OFFICIAL``); an organizer who plays at the table reports as a
player.  A record whose actions each side entered itself (or an official, or a
scorer in scorer mode) is official when the match ends; a side whose actions
another player entered confirms once.  ``result_confirmed`` (ratings,
standings) is heard exactly once per official result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from clubs.models import Role
from games import exports, services
from games.models import (
    ClockMode,
    Match,
    ReportSource,
    ReportStatus,
    ResultReport,
    ResultStatus,
    TurnKind,
)
from tests.factories import MatchFactory, UserFactory, grant
from tests.games import helpers
from tests.games.helpers import play_out, recorded_ago, user_of
from tests.tournaments import builders
from tournaments import services as tournament_services
from tournaments.models import Pairing, Round, RoundState, Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@dataclass
class Event:
    tournament: Tournament
    round: Round
    pairings: list[Pairing]
    admin: Any
    organizer: Any
    arbiter: Any


@pytest.fixture
def event() -> Event:
    """A running 4-player Swiss with its first round started; its organizer and
    arbiter hold only their tournament roles (no federation role)."""
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=2)
    rnd = tournament_services.pair_next_round(t, by=admin)
    tournament_services.start_round(rnd, by=admin)
    organizer, arbiter = UserFactory(), UserFactory()
    grant(organizer, Role.ORGANIZER, t)
    grant(arbiter, Role.ARBITER, t)
    pairings = list(rnd.pairings.select_related("match").order_by("table"))
    assert len(pairings) == 2 and all(p.match is not None for p in pairings)
    return Event(t, rnd, pairings, admin, organizer, arbiter)


def assert_official_entry(match: Match, by, score: tuple[int, int]) -> ResultReport:  # type: ignore[no-untyped-def]
    match.refresh_from_db()
    assert match.result_status == ResultStatus.CONFIRMED
    assert (match.score1, match.score2) == score
    report = match.reports.get(status=ReportStatus.CONFIRMED)
    assert report.source == ReportSource.OFFICIAL
    assert report.reported_by == by and report.reporter_side is None
    assert report.deadline is None and not report.responses.exists()
    return report


def winning(match: Match) -> tuple[int, int]:
    return (match.length, 1)


# --- Organizer and arbiter entries


def test_the_organizer_enters_the_result_on_the_match_page(client, event, heard) -> None:  # type: ignore[no-untyped-def]
    organizer, match = event.organizer, event.pairings[0].match
    client.force_login(organizer)
    page = client.get(reverse("games:match", args=[match.pk]), **EN).content.decode()
    assert 'id="enters-officially"' in page and "Enter the official result" in page
    response = client.post(
        reverse("games:match_report", args=[match.pk]),
        {"score1": match.length, "score2": 1, "current": ""},
        follow=True,
        **EN,
    )
    assert "it is official" in response.content.decode()
    assert_official_entry(match, organizer, winning(match))
    assert heard == [match.pk]
    page = client.get(reverse("games:match", args=[match.pk]), **EN).content.decode()
    assert "entered by the arbiter or organizer" in page  # the history says whose it is
    assert 'id="confirm-form"' not in page  # nothing is left to confirm


def test_arbiter_entries_let_the_round_close(client, event, heard) -> None:  # type: ignore[no-untyped-def]
    rnd, pairings, arbiter = event.round, event.pairings, event.arbiter
    with pytest.raises(ValidationError, match="no confirmed result"):
        tournament_services.close_round(rnd, by=event.admin)
    for pairing in pairings:
        services.submit_report(pairing.match, by=arbiter, score1=0, score2=pairing.match.length)
        assert_official_entry(pairing.match, arbiter, (0, pairing.match.length))
    assert sorted(heard) == sorted(p.match_id for p in pairings)
    tournament_services.close_round(rnd, by=event.admin)
    rnd.refresh_from_db()
    assert rnd.state == RoundState.CLOSED


def test_the_console_result_entry_is_official_and_closes_the_round(client, event, heard) -> None:  # type: ignore[no-untyped-def]
    t, rnd, pairings, organizer = event.tournament, event.round, event.pairings, event.organizer
    client.force_login(organizer)
    console = client.get(reverse("tournaments:console", args=[t.pk]), **EN).content.decode()
    for pairing in pairings:  # each table takes its score inline
        inline = reverse("tournaments:table_result", args=[t.pk, rnd.pk, pairing.table])
        assert f'action="{inline}"' in console
    for pairing in pairings:
        response = builders.inline_result(
            client, t, rnd, pairing.table, score1=pairing.match.length, score2=0
        )
        text = client.get(response["Location"], **EN).content.decode()
        assert f"Table {pairing.table}: {pairing.match.length}–0 is official." in text
        assert_official_entry(pairing.match, organizer, (pairing.match.length, 0))
    assert sorted(heard) == sorted(p.match_id for p in pairings)
    # An impossible score is refused with the reason, and nothing changes.
    # The table is decided: a score without a reason is a correction it refuses.
    response = builders.inline_result(client, t, rnd, pairings[0].table, score1=1, score2=1)
    refused = client.get(response["Location"], **EN).content.decode()
    assert "Correcting an official result needs a reason." in refused
    assert ResultReport.objects.filter(match=pairings[0].match).count() == 1
    response = client.post(
        reverse("tournaments:round_close", args=[t.pk, rnd.pk]),
        {"round_state": "started"},
        follow=True,
    )
    rnd.refresh_from_db()
    assert rnd.state == RoundState.CLOSED
    assert len(heard) == len(pairings)  # closing the round confirms nothing again


def test_the_api_report_of_an_arbiter_is_official(client, event, heard) -> None:  # type: ignore[no-untyped-def]
    arbiter, match = event.arbiter, event.pairings[0].match
    client.force_login(arbiter)
    response = client.post(
        "/api/reports/",
        json.dumps({"match": match.pk, "score1": 1, "score2": match.length}),
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        **EN,
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "confirmed" and body["source"] == "official"
    assert body["reported_by"] == arbiter.get_username() and body["deadline"] is None
    assert_official_entry(match, arbiter, (1, match.length))
    assert heard == [match.pk]


def test_an_official_entry_replaces_a_pending_report_but_not_a_disputed_one(event, heard) -> None:  # type: ignore[no-untyped-def]
    pairings, organizer, arbiter = event.pairings, event.organizer, event.arbiter
    first, second = pairings[0].match, pairings[1].match
    claimed = services.submit_report(first, by=first.player1.user, score1=first.length, score2=0)
    entered = services.submit_report(first, by=arbiter, score1=0, score2=first.length)
    claimed.refresh_from_db()
    assert claimed.status == ReportStatus.SUPERSEDED and entered.status == ReportStatus.CONFIRMED
    assert heard == [first.pk]
    disputed = services.submit_report(
        second, by=second.player1.user, score1=second.length, score2=0
    )
    services.dispute_report(disputed, by=second.player2.user, reason="I won")
    with pytest.raises(ValidationError, match="decide the dispute"):
        services.submit_report(second, by=organizer, score1=0, score2=second.length)
    disputed.refresh_from_db()
    assert disputed.status == ReportStatus.DISPUTED and heard == [first.pk]


def test_an_organizer_who_plays_at_the_table_reports_as_a_player(client, event, heard) -> None:  # type: ignore[no-untyped-def]
    t, pairings = event.tournament, event.pairings
    pairing = pairings[0]
    match = pairing.match
    playing = match.player1.user
    grant(playing, Role.ORGANIZER, t)
    assert not services.enters_officially(playing, match)
    assert services.enters_officially(event.organizer, match)
    client.force_login(playing)
    page = client.get(reverse("games:match", args=[match.pk]), **EN).content.decode()
    assert 'id="enters-officially"' not in page and 'id="report-form"' in page
    # Through the console too: their own table waits for the opponent.
    response = builders.inline_result(
        client, t, pairing.round, pairing.table, score1=match.length, score2=0
    )
    assert "your opponent confirms it" in client.get(response["Location"], **EN).content.decode()
    report = match.reports.get(status=ReportStatus.PENDING)
    assert (report.source, report.reporter_side) == (ReportSource.PLAYER, 1)
    with pytest.raises(ValidationError, match="You reported this result"):
        services.confirm_report(report, by=playing)
    assert heard == []
    services.confirm_report(report, by=match.player2.user)
    match.refresh_from_db()
    assert match.result_status == ResultStatus.CONFIRMED and heard == [match.pk]


# --- Recorded matches: the record decides


def test_a_record_each_side_entered_itself_is_official_when_the_match_ends(heard) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=1)
    play_out(match, seed=3)
    match.refresh_from_db()
    report = match.reports.get()
    assert report.source == ReportSource.RECORD and report.status == ReportStatus.CONFIRMED
    assert report.deadline is None and not report.responses.exists()
    assert match.result_status == ResultStatus.CONFIRMED
    assert sorted((match.score1, match.score2)) == [0, 1]
    assert heard == [match.pk]
    with pytest.raises(ValidationError, match="no longer be confirmed"):
        services.confirm_report(report, by=user_of(match, 1))
    assert heard == [match.pk]


def test_a_record_the_arbiter_scored_is_official_when_the_match_ends(monkeypatch, heard) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=1)
    arbiter = UserFactory()
    grant(arbiter, Role.FEDERATION_ADMIN, match.federation)
    services.set_scorer_mode(match, by=arbiter, on=True)
    monkeypatch.setattr(helpers, "user_of", lambda _match, _side: arbiter)
    play_out(match, seed=3)
    match.refresh_from_db()
    assert set(match.games.get().turns.values_list("recorded_by", flat=True)) == {arbiter.pk}
    assert match.result_status == ResultStatus.CONFIRMED and heard == [match.pk]


def test_a_record_one_player_scored_by_agreement_is_official(monkeypatch, heard) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=1)
    white, black = user_of(match, 0), user_of(match, 1)
    services.set_scorer_mode(match, by=black, on=True)
    services.set_scorer_mode(match, by=white, on=True)  # both agreed
    monkeypatch.setattr(helpers, "user_of", lambda _match, _side: white)
    play_out(match, seed=3)
    match.refresh_from_db()
    assert set(match.games.get().turns.values_list("recorded_by", flat=True)) == {white.pk}
    assert match.result_status == ResultStatus.CONFIRMED and heard == [match.pk]


def test_a_record_with_turns_another_player_entered_needs_one_confirmation(heard) -> None:  # type: ignore[no-untyped-def]
    """Scorer mode switched off before the end (or a record from before each side
    had to enter its own turns): the side whose turns the other entered confirms."""
    match = MatchFactory(length=1)
    white, black = user_of(match, 0), user_of(match, 1)
    services.set_scorer_mode(match, by=black, on=True)
    services.set_scorer_mode(match, by=white, on=True)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[1, 3])
    # Black starts (3 against 1): White enters Black's play in scorer mode.
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[1, 3], moves="8/5 6/5"
    )
    services.set_scorer_mode(match, by=black, on=False)
    services.record_turn(match, by=white, number=3, kind=TurnKind.RESIGN, level="single")
    services.record_turn(match, by=black, number=4, kind=TurnKind.ACCEPT)
    match.refresh_from_db()
    report = match.reports.get()
    assert (report.status, report.reporter_side) == (ReportStatus.PENDING, 1)
    assert heard == []
    with pytest.raises(ValidationError, match="opponent"):
        services.confirm_report(report, by=white)
    services.confirm_report(report, by=black)
    match.refresh_from_db()
    assert match.result_status == ResultStatus.CONFIRMED and heard == [match.pk]


def test_a_loss_on_time_claimed_by_the_opponent_needs_the_losers_confirmation(heard) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=3, clock_mode=ClockMode.DELAY, clock_reserve_seconds=60)
    white, black = user_of(match, 0), user_of(match, 1)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    recorded_ago(match, 61)  # White's 60 s ran out by the server's clock
    services.record_timeout(match, by=black, loser=1)
    report = match.reports.get()
    assert (report.score1, report.score2) == (0, 3)
    assert (report.status, report.reporter_side) == (ReportStatus.PENDING, 2)
    assert report.deadline is not None and heard == []
    with pytest.raises(ValidationError, match="opponent"):
        services.confirm_report(report, by=black)  # the claimant does not confirm their claim
    services.confirm_report(report, by=white)  # one confirmation: the loser's
    match.refresh_from_db()
    assert match.result_status == ResultStatus.CONFIRMED and match.lost_on_time
    assert heard == [match.pk]


def test_a_loss_on_time_recorded_by_the_arbiter_is_official(heard) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=3, clock_mode=ClockMode.DELAY, clock_reserve_seconds=60)
    arbiter = UserFactory()
    grant(arbiter, Role.FEDERATION_ADMIN, match.federation)
    services.record_turn(match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_timeout(match, by=arbiter, loser=2)
    match.refresh_from_db()
    assert (match.result_status, match.score1, match.score2) == (ResultStatus.CONFIRMED, 3, 0)
    assert heard == [match.pk]


def test_a_match_file_one_player_uploaded_waits_for_the_other(heard) -> None:  # type: ignore[no-untyped-def]
    original = MatchFactory(length=1)
    play_out(original, seed=3)
    copy = services.import_mat(
        exports.mat_text(original),
        by=original.player1.user,
        player1=original.player1,
        player2=original.player2,
        discipline=original.discipline,
    )
    report = copy.reports.get()
    assert (report.status, report.reporter_side) == (ReportStatus.PENDING, 1)
    services.confirm_report(report, by=copy.player2.user)
    copy.refresh_from_db()
    assert copy.result_status == ResultStatus.CONFIRMED
    assert heard == [original.pk, copy.pk]


def test_a_money_session_one_player_closes_waits_for_the_other(heard) -> None:  # type: ignore[no-untyped-def]
    session = MatchFactory(length=0)
    white, black = user_of(session, 0), user_of(session, 1)
    services.record_turn(session, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(session, by=white, number=2, kind=TurnKind.RESIGN, level="single")
    services.record_turn(session, by=black, number=3, kind=TurnKind.ACCEPT)
    services.end_session(session, by=white)  # closing is White's word: Black confirms it
    report = session.reports.get()
    assert (report.score1, report.score2, report.reporter_side) == (0, 1, 1)
    assert report.status == ReportStatus.PENDING and heard == []
    services.confirm_report(report, by=black)
    session.refresh_from_db()
    assert session.result_status == ResultStatus.CONFIRMED and heard == [session.pk]
