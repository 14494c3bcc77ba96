from __future__ import annotations

import datetime

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from clubs.models import Role
from games import services
from games.events import result_confirmed
from games.models import ReportStatus, ResultReport, ResultStatus
from tests.factories import MatchFactory, UserFactory, grant
from tests.games.helpers import play_out, user_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    seen: list[int] = []
    receiver = result_confirmed.subscribe(lambda match_id: seen.append(match_id))
    yield seen
    result_confirmed.unsubscribe(receiver)


def test_report_confirmed_by_the_opponent_becomes_official(heard) -> None:
    match = MatchFactory(recorded=False, length=5)
    p1, p2 = user_of(match, 0), user_of(match, 1)
    report = services.submit_report(match, by=p1, score1=5, score2=3)
    with pytest.raises(ValidationError, match="You reported this result"):
        services.confirm_report(report, by=p1)
    services.confirm_report(report, by=p2)
    match.refresh_from_db()
    assert (match.score1, match.score2, match.winner) == (5, 3, 1)
    assert match.result_status == ResultStatus.CONFIRMED
    assert heard == [match.pk]


def test_impossible_scores_are_refused_with_the_reason() -> None:
    match = MatchFactory(recorded=False, length=5)
    p1 = user_of(match, 0)
    with pytest.raises(ValidationError, match="must reach 5"):
        services.submit_report(match, by=p1, score1=4, score2=3)
    games = [{"winner": 1, "points": 4}, {"winner": 2, "points": 4}, {"winner": 1, "points": 1}]
    with pytest.raises(ValidationError, match="Crawford"):
        services.submit_report(match, by=p1, score1=5, score2=4, games=games)
    assert not ResultReport.objects.exists()


def test_dispute_then_arbiter_sets_the_score_and_every_version_is_kept(heard) -> None:
    match = MatchFactory(recorded=False, length=5)
    p1, p2 = user_of(match, 0), user_of(match, 1)
    arbiter = UserFactory()
    grant(arbiter, Role.FEDERATION_ADMIN, match.federation)
    report = services.submit_report(match, by=p1, score1=5, score2=3)
    with pytest.raises(ValidationError, match="what is wrong"):
        services.dispute_report(report, by=p2, reason=" ")
    services.dispute_report(report, by=p2, reason="The last game was a single, not a mars")
    match.refresh_from_db()
    assert match.result_status == ResultStatus.DISPUTED
    with pytest.raises(PermissionDenied):
        services.decide_dispute(report, by=p1, uphold=True, reason="mine")
    decision = services.decide_dispute(
        report, by=arbiter, uphold=False, reason="Scoresheet shows 5-2", score1=5, score2=2
    )
    match.refresh_from_db()
    assert (match.score1, match.score2) == (5, 2)
    statuses = dict(ResultReport.objects.filter(match=match).values_list("pk", "status"))
    assert statuses == {report.pk: ReportStatus.REJECTED, decision.pk: ReportStatus.CONFIRMED}
    assert heard == [match.pk]


def test_organizer_override_needs_a_reason_and_supersedes_the_confirmed_result() -> None:
    match = MatchFactory(recorded=False, length=3)
    p1, p2 = user_of(match, 0), user_of(match, 1)
    organizer = UserFactory()
    grant(organizer, Role.FEDERATION_ADMIN, match.federation)
    services.confirm_report(services.submit_report(match, by=p1, score1=3, score2=0), by=p2)
    with pytest.raises(ValidationError, match="written reason"):
        services.override_result(match, by=organizer, score1=0, score2=3, reason="")
    services.override_result(
        match, by=organizer, score1=0, score2=3, reason="Player 1 used a phone", forfeit=True
    )
    match.refresh_from_db()
    assert (match.winner, match.forfeit) == (2, True)
    assert ResultReport.objects.filter(match=match).count() == 2
    assert (
        ResultReport.objects.get(match=match, status=ReportStatus.CONFIRMED).reason
        == "Player 1 used a phone"
    )


def test_unanswered_reports_become_official_after_the_deadline_once(heard) -> None:
    match = MatchFactory(recorded=False, length=3)
    report = services.submit_report(match, by=user_of(match, 0), score1=3, score2=1)
    assert services.confirm_overdue_reports() == 0
    later = timezone.now() + datetime.timedelta(days=30)
    assert services.confirm_overdue_reports(now=later) == 1
    assert services.confirm_overdue_reports(now=later) == 0  # idempotent
    report.refresh_from_db()
    assert report.status == ReportStatus.CONFIRMED and heard == [match.pk]


def test_a_recorded_match_is_official_when_it_ends(heard) -> None:
    """Each side entered its own turns and the engine checked them: nobody confirms
    (tests/games/test_official_results.py has the cases that need one confirmation)."""
    match = MatchFactory(length=1)
    play_out(match, seed=3)
    report = match.reports.get()
    match.refresh_from_db()
    assert report.status == ReportStatus.CONFIRMED and not report.responses.exists()
    assert match.result_status == ResultStatus.CONFIRMED
    assert sorted((match.score1, match.score2)) == [0, 1]  # capped at the length
    assert heard == [match.pk]
