"""A result against a player who has no account (issue 12, point 10, first bullet).

Such a player cannot confirm or dispute, so the 48-hour rule would make any
claim against them official and rated.  The report waits instead for a club
or federation official who manages that player (or an arbiter of the match):
it has no deadline, the periodic task skips it, the match page and the API say
so, and the official confirms it (or disputes it) on the page or in the API.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from clubs.models import Role
from games import services
from games.models import Match, ReportStatus, ResponseKind, ResultReport, ResultStatus
from tests.factories import (
    ClubFactory,
    FederationFactory,
    MatchFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
LATER = datetime.timedelta(days=30)


@dataclass
class Friendly:
    match: Match
    reporter: Any  # player 1's account
    club_admin: Any  # manages player 2 (a member of their club)


@pytest.fixture
def friendly() -> Friendly:
    """A friendly 7-point match (no tournament): player 2 has no account."""
    federation = FederationFactory()
    club = ClubFactory(federation=federation)
    absent = PlayerFactory(federation=federation, user=None)
    MembershipFactory(player=absent, club=club)
    match = MatchFactory(
        player1=PlayerFactory(federation=federation, user=UserFactory()),
        player2=absent,
        recorded=False,
        length=7,
    )
    club_admin = UserFactory()
    grant(club_admin, Role.CLUB_ADMIN, club)
    return Friendly(match, match.player1.user, club_admin)


def claim(friendly: Friendly) -> ResultReport:
    return services.submit_report(friendly.match, by=friendly.reporter, score1=7, score2=0)


def test_a_claim_against_a_player_without_an_account_never_counts_by_itself(
    friendly, heard
) -> None:  # type: ignore[no-untyped-def]
    report = claim(friendly)
    assert report.deadline is None and services.awaits_official(report)
    assert [p.pk for p in services.absent_players(report)] == [friendly.match.player2_id]
    assert services.confirm_overdue_reports(now=timezone.now() + LATER) == 0
    report.refresh_from_db()
    friendly.match.refresh_from_db()
    assert report.status == ReportStatus.PENDING
    assert friendly.match.result_status == ResultStatus.PENDING
    assert heard == []  # neither standings nor ratings heard of it


def test_old_claims_with_a_deadline_are_skipped_too(friendly, heard) -> None:  # type: ignore[no-untyped-def]
    """Reports made before this rule carry a deadline: the task still skips them,
    whichever side has no account; an ordinary overdue report is still confirmed."""
    report = claim(friendly)
    reversed_match = MatchFactory(
        player1=PlayerFactory(federation=friendly.match.federation, user=None), recorded=False
    )
    reversed_report = services.submit_report(
        reversed_match, by=reversed_match.player2.user, score1=0, score2=3
    )
    assert reversed_report.reporter_side == 2 and reversed_report.deadline is None
    ordinary = MatchFactory(recorded=False)
    answerable = services.submit_report(ordinary, by=ordinary.player1.user, score1=3, score2=0)
    past = timezone.now() - datetime.timedelta(days=3)
    ResultReport.objects.filter(pk__in=[report.pk, reversed_report.pk]).update(deadline=past)
    assert services.confirm_overdue_reports(now=timezone.now() + LATER) == 1
    statuses = dict(
        ResultReport.objects.filter(
            pk__in=[report.pk, reversed_report.pk, answerable.pk]
        ).values_list("pk", "status")
    )
    assert statuses == {
        report.pk: ReportStatus.PENDING,
        reversed_report.pk: ReportStatus.PENDING,
        answerable.pk: ReportStatus.CONFIRMED,
    }
    assert heard == [ordinary.pk]


def test_the_match_page_shows_the_wait_and_the_official_confirms_there(
    client, friendly, heard
) -> None:  # type: ignore[no-untyped-def]
    match = friendly.match
    report = claim(friendly)
    client.force_login(friendly.reporter)
    page = client.get(reverse("games:match", args=[match.pk]), **EN).content.decode()
    assert 'id="awaits-official"' in page and page.count("awaiting an official's confirmation") == 2
    assert "Confirm or dispute by" not in page and 'id="confirm-form"' not in page
    response = client.post(
        reverse("games:report_confirm", args=[report.pk]),
        {"report": report.pk, "status": "pending"},
        follow=True,
        **EN,
    )
    assert "You reported this result" in response.content.decode()
    client.force_login(friendly.club_admin)
    page = client.get(reverse("games:match", args=[match.pk]), **EN).content.decode()
    assert 'id="confirm-form"' in page and 'id="dispute-form"' in page
    client.post(
        reverse("games:report_confirm", args=[report.pk]),
        {"report": report.pk, "status": "pending"},
        **EN,
    )
    match.refresh_from_db()
    assert (match.result_status, match.score1, match.score2) == (ResultStatus.CONFIRMED, 7, 0)
    response = report.responses.get()
    assert (response.kind, response.by) == (ResponseKind.OFFICIAL, friendly.club_admin)
    assert heard == [match.pk]
    page = client.get(reverse("games:match", args=[match.pk]), **EN).content.decode()
    assert "confirmed by an official" in page


def test_only_an_official_who_manages_the_player_confirms(friendly, heard) -> None:  # type: ignore[no-untyped-def]
    report = claim(friendly)
    other_club_admin = UserFactory()
    grant(other_club_admin, Role.CLUB_ADMIN, ClubFactory(federation=friendly.match.federation))
    grant(friendly.reporter, Role.CLUB_ADMIN, friendly.match.player2.memberships.get().club)
    for outsider in (other_club_admin, UserFactory()):
        with pytest.raises(ValidationError, match="official who manages"):
            services.confirm_report(report, by=outsider)
    with pytest.raises(ValidationError, match="You reported this result"):
        services.confirm_report(report, by=friendly.reporter)
    # The reporter manages the absent player, yet does not confirm their own claim.
    assert not services.answers_for_absent(friendly.reporter, report)
    assert heard == []


def test_a_federation_official_confirms_through_the_api(client, friendly, heard) -> None:  # type: ignore[no-untyped-def]
    report = claim(friendly)
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, friendly.match.federation)
    client.force_login(friendly.reporter)
    shown = client.get(f"/api/reports/{report.pk}/", HTTP_ACCEPT="application/json").json()
    assert shown["awaits_official"] is True and shown["deadline"] is None
    headers = {"content_type": "application/json", "HTTP_ACCEPT": "application/json", **EN}
    response = client.post(f"/api/reports/{report.pk}/confirm/", json.dumps({}), **headers)
    assert response.status_code == 400
    client.force_login(admin)
    response = client.post(f"/api/reports/{report.pk}/confirm/", json.dumps({}), **headers)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "confirmed" and body["awaits_official"] is False
    assert [r["kind"] for r in body["responses"]] == ["official"]
    assert heard == [friendly.match.pk]


def test_the_official_may_dispute_it_for_the_player(friendly, heard) -> None:  # type: ignore[no-untyped-def]
    report = claim(friendly)
    services.dispute_report(report, by=friendly.club_admin, reason="He lost 3-7, says the sheet")
    friendly.match.refresh_from_db()
    assert friendly.match.result_status == ResultStatus.DISPUTED and heard == []


def test_a_player_who_links_an_account_later_answers_themself(friendly, heard) -> None:  # type: ignore[no-untyped-def]
    report = claim(friendly)
    player = friendly.match.player2
    player.user = UserFactory()
    player.save(update_fields=["user"])
    assert not services.awaits_official(ResultReport.objects.get(pk=report.pk))
    services.confirm_report(report, by=player.user)
    friendly.match.refresh_from_db()
    assert friendly.match.result_status == ResultStatus.CONFIRMED
    assert heard == [friendly.match.pk]


def test_the_staff_page_lists_what_the_official_may_confirm(client, friendly, heard) -> None:  # type: ignore[no-untyped-def]
    report = claim(friendly)
    other_club_admin = UserFactory()
    grant(other_club_admin, Role.CLUB_ADMIN, ClubFactory(federation=friendly.match.federation))
    client.force_login(other_club_admin)
    page = client.get(reverse("games:disputes"), **EN).content.decode()
    assert f'id="awaiting-{report.pk}"' not in page
    client.force_login(friendly.club_admin)
    page = client.get(reverse("games:disputes"), **EN).content.decode()
    assert f'id="awaiting-{report.pk}"' in page
    client.post(
        reverse("games:report_confirm", args=[report.pk]),
        {"report": report.pk, "status": "pending"},
        **EN,
    )
    assert heard == [friendly.match.pk]
    page = client.get(reverse("games:disputes"), **EN).content.decode()
    assert f'id="awaiting-{report.pk}"' not in page
