"""The web admin of matches and result reports: scoped by the policy,
read-only records, writes through the services."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clubs.models import Role
from games import services
from games.models import Match, ReportSource, ReportStatus
from tests.factories import (
    ClubFactory,
    DisciplineFactory,
    MatchFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.games.helpers import play_out, user_of

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def staff(role: str, scope):  # type: ignore[no-untyped-def]
    user = UserFactory(is_staff=True)
    grant(user, role, scope)
    return user


@pytest.fixture
def ours() -> Match:
    match = MatchFactory(length=1)
    play_out(match, seed=3)
    return match


def test_federation_admins_see_their_federations_matches_only(client, ours) -> None:
    theirs = MatchFactory()
    client.force_login(staff(Role.FEDERATION_ADMIN, ours.federation))
    listing = client.get(reverse("admin:games_match_changelist"), **EN)
    assert listing.status_code == 200
    html = listing.content.decode()
    assert reverse("admin:games_match_change", args=[ours.pk]) in html
    assert reverse("admin:games_match_change", args=[theirs.pk]) not in html
    other = client.get(reverse("admin:games_match_change", args=[theirs.pk]), **EN)
    assert other.status_code == 302  # the admin's "does not exist" redirect to the index


def test_club_admins_have_no_match_admin(client, ours) -> None:
    client.force_login(staff(Role.CLUB_ADMIN, ClubFactory(federation=ours.federation)))
    assert client.get(reverse("admin:games_match_changelist")).status_code == 403


def test_a_match_is_read_only_with_its_games_and_turns(client, ours) -> None:
    client.force_login(staff(Role.FEDERATION_ADMIN, ours.federation))
    response = client.get(reverse("admin:games_match_change", args=[ours.pk]), **EN)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="_save"' not in html  # nothing to save here
    first_turn = ours.games.get(number=1).turns.order_by("number")[1]
    assert first_turn.position_id in html  # the read-only turns table
    assert reverse("admin:games_match_override", args=[ours.pk]) in html
    before = Match.objects.values().get(pk=ours.pk)
    client.post(reverse("admin:games_match_change", args=[ours.pk]), {"length": 9}, **EN)
    assert Match.objects.values().get(pk=ours.pk) == before


def test_adding_a_match_goes_through_the_service(client) -> None:
    club = ClubFactory()
    first = PlayerFactory(federation=club.federation)
    second = PlayerFactory(federation=club.federation)
    admin_user = staff(Role.FEDERATION_ADMIN, club.federation)
    client.force_login(admin_user)
    response = client.post(
        reverse("admin:games_match_add"),
        {
            "player1": first.pk,
            "player2": second.pk,
            "discipline": DisciplineFactory().pk,
            "length": 7,
            "recorded": "on",
            "clock_mode": "none",
            "clock_reserve_seconds": 0,
            "clock_per_point_seconds": 0,
            "clock_move_seconds": 0,
            "games-TOTAL_FORMS": 0,
            "games-INITIAL_FORMS": 0,
        },
        **EN,
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    match = Match.objects.get()
    assert (match.player1, match.player2, match.length) == (first, second, 7)
    assert match.created_by == admin_user and match.federation == club.federation


def test_the_override_page_sets_the_result_with_a_reason(client, ours) -> None:
    organizer = staff(Role.FEDERATION_ADMIN, ours.federation)
    client.force_login(organizer)
    url = reverse("admin:games_match_override", args=[ours.pk])
    newest = ours.reports.get()
    assert client.get(url, **EN).status_code == 200
    response = client.post(
        url, {"score1": 0, "score2": 1, "reason": "", "version": newest.pk}, **EN
    )
    assert response.status_code == 200  # the reason is required
    response = client.post(
        url, {"score1": 0, "score2": 1, "reason": "Score corrected", "version": newest.pk}, **EN
    )
    assert response.status_code == 302
    ours.refresh_from_db()
    assert (ours.score1, ours.score2, ours.winner) == (0, 1, 2)
    override = ours.reports.get(source=ReportSource.OVERRIDE)
    assert override.reason == "Score corrected" and override.status == ReportStatus.CONFIRMED
    newest.refresh_from_db()
    assert newest.status == ReportStatus.SUPERSEDED


def test_a_stale_override_is_refused(client, ours) -> None:
    organizer = staff(Role.FEDERATION_ADMIN, ours.federation)
    client.force_login(organizer)
    report = ours.reports.get()  # the record's result, official when the match ended
    services.override_result(ours, by=organizer, score1=1, score2=0, reason="first")
    response = client.post(
        reverse("admin:games_match_override", args=[ours.pk]),
        {"score1": 0, "score2": 1, "reason": "second", "version": report.pk},
        follow=True,
        **EN,
    )
    assert "The result changed meanwhile" in response.content.decode()
    ours.refresh_from_db()
    assert (ours.score1, ours.score2) == (1, 0)


def test_another_federations_admin_cannot_override(client, ours) -> None:
    client.force_login(staff(Role.FEDERATION_ADMIN, MatchFactory().federation))
    response = client.get(reverse("admin:games_match_override", args=[ours.pk]), **EN)
    assert response.status_code == 404


def test_reports_are_read_only_history(client, ours) -> None:
    # A reported (not recorded) match of the same federation, confirmed by the opponent.
    reported = MatchFactory(recorded=False, length=1, player1__federation=ours.federation)
    report = services.submit_report(reported, by=user_of(reported, 0), score1=1, score2=0)
    services.confirm_report(report, by=user_of(reported, 1))
    client.force_login(staff(Role.FEDERATION_ADMIN, ours.federation))
    listing = client.get(reverse("admin:games_resultreport_changelist"), **EN).content.decode()
    assert reverse("admin:games_resultreport_change", args=[report.pk]) in listing
    assert reverse("admin:games_resultreport_add") not in listing
    detail = client.get(reverse("admin:games_resultreport_change", args=[report.pk]), **EN)
    html = detail.content.decode()
    assert detail.status_code == 200 and 'name="_save"' not in html
    assert "confirmed" in html  # the player's response, inline
    assert client.get(reverse("admin:games_resultreport_add")).status_code == 403
