"""Self check-in: the organizer sets a window, players open the link (or its QR
code), sign in and check their own entry in while the window is open."""

from __future__ import annotations

import datetime

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from tests.factories import PlayerFactory, UserFactory
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Entry, EntryStatus, Tournament, TournamentState

pytestmark = pytest.mark.django_db


@pytest.fixture
def checking_in(world) -> Tournament:  # type: ignore[no-untyped-def]
    """Two registered players with accounts, check-in open, self check-in window now."""
    t = builders.tournament(
        2, "swiss", federation=world.federation, by=world.fed_admin, rounds_planned=1, start=False
    )
    services.set_state(t, TournamentState.CHECK_IN, by=world.fed_admin)
    now = timezone.now()
    return services.entries.open_self_check_in(
        t,
        by=world.fed_admin,
        opens_at=now - datetime.timedelta(minutes=5),
        closes_at=now + datetime.timedelta(hours=1),
    )


def link(t: Tournament) -> str:
    return reverse("tournaments:self_check_in", args=[t.self_check_in_token])


def entries(t: Tournament) -> list[Entry]:
    return list(Entry.objects.filter(tournament=t).select_related("player__user").order_by("pk"))


def test_a_player_checks_in_inside_the_window(client, checking_in) -> None:  # type: ignore[no-untyped-def]
    mine, other = entries(checking_in)
    client.force_login(mine.player.user)
    page = client.get(link(checking_in))
    assert page.status_code == 200 and 'id="self-check-in-form"' in page.content.decode()
    done = client.post(link(checking_in))
    assert done.status_code == 200 and 'id="checked-in"' in done.content.decode()
    mine.refresh_from_db()
    other.refresh_from_db()
    assert mine.status == EntryStatus.CHECKED_IN and other.status == EntryStatus.REGISTERED


def test_outside_the_window_is_refused(client, world, checking_in) -> None:  # type: ignore[no-untyped-def]
    mine, _other = entries(checking_in)
    later = timezone.now() + datetime.timedelta(days=1)
    services.entries.open_self_check_in(
        checking_in,
        by=world.fed_admin,
        opens_at=later,
        closes_at=later + datetime.timedelta(hours=1),
    )
    client.force_login(mine.player.user)
    page = client.get(link(checking_in))
    assert 'id="window-closed"' in page.content.decode()
    refused = client.post(link(checking_in))
    assert refused.status_code == 400
    assert "not open" in " ".join(str(m) for m in refused.context["messages"])
    mine.refresh_from_db()
    assert mine.status == EntryStatus.REGISTERED


def test_a_closed_window_is_refused(world, checking_in) -> None:  # type: ignore[no-untyped-def]
    mine, _other = entries(checking_in)
    services.entries.close_self_check_in(checking_in, by=world.fed_admin)
    with pytest.raises(ValidationError, match="not open"):
        services.entries.self_check_in(checking_in, by=mine.player.user)


def test_someone_not_entered_checks_in_nobody(client, world, checking_in) -> None:  # type: ignore[no-untyped-def]
    stranger = PlayerFactory(federation=world.federation, user=UserFactory()).user
    client.force_login(stranger)
    assert 'id="not-entered"' in client.get(link(checking_in)).content.decode()
    refused = client.post(link(checking_in))
    assert refused.status_code == 400
    assert "not entered" in " ".join(str(m) for m in refused.context["messages"])
    assert {e.status for e in entries(checking_in)} == {EntryStatus.REGISTERED}


def test_someone_elses_entry_cannot_be_checked_in(world, checking_in) -> None:  # type: ignore[no-untyped-def]
    mine, other = entries(checking_in)
    with pytest.raises(PermissionDenied):
        services.check_in(other, by=mine.player.user)
    other.refresh_from_db()
    assert other.status == EntryStatus.REGISTERED


def test_the_link_needs_signing_in_and_a_real_token(client, checking_in) -> None:  # type: ignore[no-untyped-def]
    response = client.get(link(checking_in))
    assert response.status_code == 302 and "login" in response["Location"]
    mine, _other = entries(checking_in)
    client.force_login(mine.player.user)
    wrong = reverse("tournaments:self_check_in", args=["not-a-token"])
    assert client.get(wrong).status_code == 404


def test_the_organizer_sees_the_link_and_its_qr_code(client, world, checking_in) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.fed_admin)
    page = client.get(reverse("tournaments:entries_bulk", args=[checking_in.pk])).content.decode()
    assert checking_in.self_check_in_token in page and 'id="self-check-in-qr"' in page
    qr = client.get(reverse("tournaments:self_check_in_qr", args=[checking_in.pk]))
    assert qr.status_code == 200 and qr["Content-Type"] == "image/svg+xml"
    assert qr.content.startswith(b"<svg")
    console = client.get(reverse("tournaments:console", args=[checking_in.pk])).content.decode()
    assert 'id="registration-tools"' in console
    client.force_login(UserFactory())
    assert (
        client.get(reverse("tournaments:self_check_in_qr", args=[checking_in.pk])).status_code
        == 403
    )


def test_the_window_form_refuses_a_backward_window(client, world, checking_in) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.fed_admin)
    url = reverse("tournaments:self_check_in_window", args=[checking_in.pk])
    response = client.post(
        url, {"opens_at": "2030-01-02T10:00", "closes_at": "2030-01-01T10:00"}, follow=True
    )
    assert "must close after it opens" in " ".join(str(m) for m in response.context["messages"])
    token = checking_in.self_check_in_token
    client.post(url, {"close": "1"})
    checking_in.refresh_from_db()
    assert checking_in.self_check_in_closes_at is None and checking_in.self_check_in_token == token
