"""Cancelling a match: nobody wins it, a result it had stops counting (an event for the
apps above), everything is kept, and an override gives it a result again."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from clubs.models import Role
from games import services
from games.events import result_withdrawn
from games.models import Match, MatchState, ReportStatus, ResultStatus
from tests.factories import MatchFactory, UserFactory, grant
from tests.games.helpers import user_of

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def organizer_of(match: Match):  # type: ignore[no-untyped-def]
    user = UserFactory()
    grant(user, Role.FEDERATION_ADMIN, match.federation)
    return user


@pytest.fixture
def withdrawn_ids():  # type: ignore[no-untyped-def]
    """The match ids announced by ``result_withdrawn`` during the test."""
    seen: list[int] = []

    def listener(match_id: int) -> None:
        seen.append(match_id)

    result_withdrawn.subscribe(listener)
    yield seen
    result_withdrawn.unsubscribe(listener)


def confirmed_5_3(match: Match) -> None:
    report = services.submit_report(match, by=user_of(match, 0), score1=5, score2=3)
    services.confirm_report(report, by=user_of(match, 1))


def test_cancelling_a_confirmed_match_withdraws_its_result(withdrawn_ids) -> None:
    match = MatchFactory(recorded=False, length=5)
    confirmed_5_3(match)
    services.cancel_match(match, by=organizer_of(match), reason="  Played by the wrong pair. ")
    match.refresh_from_db()
    assert match.state == MatchState.CANCELLED
    assert match.result_status == ResultStatus.NONE
    assert (match.score1, match.score2, match.winner, match.forfeit) == (None, None, None, False)
    assert match.cancel_reason == "Played by the wrong pair."
    assert match.cancelled_at is not None
    # The confirmed version is kept, superseded.
    assert list(match.reports.values_list("status", flat=True)) == [ReportStatus.SUPERSEDED]
    assert withdrawn_ids == [match.pk]


def test_cancelling_a_match_without_result_announces_nothing(withdrawn_ids) -> None:
    match = MatchFactory(recorded=False, length=5)
    pending = services.submit_report(match, by=user_of(match, 0), score1=5, score2=1)
    services.cancel_match(match, by=organizer_of(match), reason="Both absent.")
    pending.refresh_from_db()
    assert pending.status == ReportStatus.SUPERSEDED
    assert withdrawn_ids == []


def test_refusals_change_nothing(withdrawn_ids) -> None:
    match = MatchFactory(recorded=False, length=5)
    confirmed_5_3(match)
    with pytest.raises(PermissionDenied):
        services.cancel_match(match, by=user_of(match, 0), reason="I lost.")
    organizer = organizer_of(match)
    with pytest.raises(ValidationError, match="written reason"):
        services.cancel_match(match, by=organizer, reason="   ")
    match.refresh_from_db()
    assert (match.state, match.result_status, match.winner) == (
        MatchState.FINISHED,
        ResultStatus.CONFIRMED,
        1,
    )
    services.cancel_match(match, by=organizer, reason="Both absent.")
    with pytest.raises(ValidationError, match="cancelled already"):
        services.cancel_match(match, by=organizer, reason="Again.")
    assert withdrawn_ids == [match.pk]


def test_an_override_gives_a_cancelled_match_its_result_again() -> None:
    match = MatchFactory(recorded=False, length=5)
    organizer = organizer_of(match)
    services.cancel_match(match, by=organizer, reason="Both absent.")
    services.override_result(match, by=organizer, score1=0, score2=5, reason="Black did come.")
    match.refresh_from_db()
    assert (match.state, match.result_status, match.winner) == (
        MatchState.FINISHED,
        ResultStatus.CONFIRMED,
        2,
    )
    assert match.cancelled_at is None


def test_the_match_page_cancels_with_a_reason(client) -> None:
    match = MatchFactory(recorded=False, length=5)
    confirmed_5_3(match)
    url = reverse("games:match", args=[match.pk])
    cancel = reverse("games:match_cancel", args=[match.pk])
    newest = match.reports.get().pk
    client.force_login(user_of(match, 0))
    assert 'id="cancel-form"' not in client.get(url, **EN).content.decode()
    assert client.post(cancel, {"reason": "x", "version": newest}, **EN).status_code == 403
    client.force_login(organizer_of(match))
    assert 'id="cancel-form"' in client.get(url, **EN).content.decode()
    response = client.post(cancel, {"reason": "", "version": newest}, **EN)
    assert response.status_code == 400
    # A form from before the newest result version is refused as stale.
    response = client.post(cancel, {"reason": "Both absent.", "version": 0}, **EN, follow=True)
    assert "The result changed meanwhile" in response.content.decode()
    match.refresh_from_db()
    assert match.state == MatchState.FINISHED
    response = client.post(cancel, {"reason": "Both absent.", "version": newest}, **EN)
    assert response.status_code == 302
    html = client.get(url, **EN).content.decode()
    assert 'id="cancelled"' in html and "Both absent." in html
    assert 'id="cancel-form"' not in html and 'id="override-form"' in html


def test_the_api_cancels_for_organizers_only(client) -> None:
    match = MatchFactory(recorded=False, length=5)
    url = f"/api/matches/{match.pk}/cancel/"

    def send(body: dict):  # type: ignore[no-untyped-def]
        return client.post(url, json.dumps(body), content_type="application/json")

    client.force_login(user_of(match, 0))
    assert send({"reason": "No."}).status_code == 403
    client.force_login(organizer_of(match))
    assert send({"reason": ""}).status_code == 400
    response = send({"reason": "Both absent."})
    assert response.status_code == 200
    body = response.json()
    assert (body["state"], body["cancel_reason"]) == ("cancelled", "Both absent.")
    response = send({"reason": "Again."})
    assert response.status_code == 400
    assert "cancelled already" in json.dumps(response.json())
