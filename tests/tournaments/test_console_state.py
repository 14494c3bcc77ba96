"""The console knows the event's state (issue 15): it offers only the steps that can
be taken, asks before a final or destructive one, names knock-out rounds by what
they are, shows each bracket, says when the standings are being recomputed, and
"publish standings" waits for the round to close."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from tests.tournaments import builders
from tournaments import adapters, queries, services
from tournaments.formats import registry
from tournaments.formats.base import knockout_stage_name
from tournaments.models import (
    Entry,
    EntryStatus,
    RoundState,
    StandingsSnapshot,
    Tournament,
    TournamentState,
)
from tournaments.tasks import compute_standings_task

pytestmark = pytest.mark.django_db


def console(client: Client, t: Tournament) -> str:
    response = client.get(reverse("tournaments:console", args=[t.pk]))
    assert response.status_code == 200
    return response.content.decode()


def next_step(html: str) -> str:
    start = html.index('id="next-step"')
    return html[start : html.index("</div>\n</div>", start)]


def step_labels(html: str) -> list[str]:
    """The next-step box's buttons and confirmation openers, in order."""
    found = re.findall(r"<(?:button|summary)[^>]*>([^<]+)</(?:button|summary)>", next_step(html))
    return [label.strip() for label in found if not label.startswith("Yes")]


def event(fmt: str, n: int, **settings: Any) -> tuple[Tournament, Any]:
    federation, admin, _d = builders.federation_with_admin()
    return builders.tournament(n, fmt, federation=federation, by=admin, **settings), admin


def test_a_swiss_offers_finish_not_a_round_past_the_planned_ones(client: Client) -> None:
    t, admin = event("swiss", 6, rounds_planned=2)
    client.force_login(admin)
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    labels = step_labels(console(client, t))
    assert labels[0] == "Pair round 2" and "Finish the tournament…" in labels
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    labels = step_labels(console(client, t))
    # The format's rule ("no more rounds") is asked before the button is offered.
    assert not any(label.startswith("Pair") for label in labels)
    assert labels[0] == "Finish the tournament…"
    fmt = registry.for_tournament(t)
    entries, pairings = adapters.entry_rows(t), list(adapters.pairing_rows(t))
    assert not fmt.can_pair_next(t, "main", entries, pairings)
    # ... the same answer pairing gives.
    with pytest.raises(ValidationError):
        services.pair_next_round(t, by=admin)


def test_finishing_asks_first_and_acts_only_when_confirmed(client: Client) -> None:
    t, admin = event("swiss", 4, rounds_planned=1)
    client.force_login(admin)
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    url = reverse("tournaments:state", args=[t.pk])
    fields = {"state": TournamentState.FINISHED, "from_state": TournamentState.RUNNING}
    asked = client.post(url, fields)
    page = asked.content.decode()
    assert asked.status_code == 200 and "cannot be undone" in page
    assert 'name="confirm" value="1"' in page and 'name="from_state" value="running"' in page
    t.refresh_from_db()
    assert t.state == TournamentState.RUNNING
    done = client.post(url, {**fields, "confirm": "1"})
    assert done.status_code == 302
    t.refresh_from_db()
    assert t.state == TournamentState.FINISHED


def test_withdrawing_a_player_asks_first(client: Client) -> None:
    t, admin = event("swiss", 4, rounds_planned=3)
    client.force_login(admin)
    entry = Entry.objects.filter(tournament=t).select_related("player").first()
    assert entry is not None
    html = console(client, t)
    assert f"Yes, withdraw {entry.player}" in html  # the inline confirmation
    url = reverse("tournaments:entry_withdraw", args=[t.pk, entry.pk])
    asked = client.post(url, {"status": entry.status})
    assert asked.status_code == 200 and f"Withdraw {entry.player}?" in asked.content.decode()
    entry.refresh_from_db()
    assert entry.status != EntryStatus.WITHDRAWN
    client.post(url, {"status": entry.status, "confirm": "1"})
    entry.refresh_from_db()
    assert entry.status == EntryStatus.WITHDRAWN


def test_knockout_rounds_are_named_by_what_they_are(client: Client) -> None:
    t, admin = event("single_elimination", 8)
    client.force_login(admin)
    rounds = builders.run_flight_rounds(t, admin)
    assert len(rounds) == 3
    fmt = registry.for_tournament(t)
    titles = [fmt.round_title(t, "main", r.number) for r in rounds]
    assert titles == ["Quarter-final", "Semi-final", "Final"]
    html = console(client, t)
    for title in titles:
        assert f"<h3>{title} <span" in html
    # The final is decided: no "pair the next round", finishing comes first.
    labels = step_labels(html)
    assert not any(label.startswith("Pair") for label in labels)
    assert labels[0] == "Finish the tournament…"
    # The public round page and the printed pairings use the same names.
    public = reverse(
        "tournaments:public_round", args=[t.federation.slug, t.slug, "main", rounds[1].number]
    )
    assert "Semi-final" in client.get(public).content.decode()
    printed = reverse("tournaments:print_pairings", args=[t.pk, rounds[2].pk])
    assert "<strong>Final</strong>" in client.get(printed).content.decode()


def test_a_field_of_sixteen_starts_with_the_eighth_finals() -> None:
    t, admin = event("single_elimination", 16)
    first = services.pair_next_round(t, by=admin)
    assert registry.for_tournament(t).round_title(t, "main", first.number) == "1/8 final"
    assert [knockout_stage_name(k) for k in (0, 1, 2, 3, 4)] == [
        "Final",
        "Semi-final",
        "Quarter-final",
        "1/8 final",
        "1/16 final",
    ]


def test_swiss_rounds_keep_their_numbers() -> None:
    t, admin = event("swiss", 4, rounds_planned=2)
    rnd = services.pair_next_round(t, by=admin)
    assert registry.for_tournament(t).round_title(t, "main", rnd.number) == "Round 1"


def test_the_console_draws_each_bracket_flight(client: Client) -> None:
    t, admin = event("main_consolation", 8, last_chance=True)
    client.force_login(admin)
    services.pair_next_round(t, by=admin, flight="main")
    html = console(client, t)
    assert 'id="brackets"' in html
    for flight in ("main", "consolation", "last_chance"):
        assert f'<div class="flight" data-flight="{flight}">' in html
    assert html.count('<figure class="bracket"') >= 3

    swiss, swiss_admin = event("swiss", 4, rounds_planned=2)
    client.force_login(swiss_admin)
    assert 'id="brackets"' not in console(client, swiss)


def test_standings_recomputing_shows_until_the_snapshot_lands(client: Client) -> None:
    t, admin = event("swiss", 4, rounds_planned=2, publish_standings=False)
    client.force_login(admin)
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    # Closing the round asked for the standings; the task has not run yet.
    t.refresh_from_db()
    assert t.standings_requested_at is not None
    assert 'id="standings-recomputing"' in console(client, t)
    compute_standings_task(t.pk)
    t.refresh_from_db()
    assert t.standings_requested_at is None
    html = console(client, t)
    assert 'id="standings-recomputing"' not in html
    assert StandingsSnapshot.objects.filter(tournament=t, after_round=1).exists()


def test_round_one_standings_stay_private_until_the_round_closes(client: Client) -> None:
    t, admin = event("swiss", 4, rounds_planned=2, publish_standings=True)
    rnd = builders.play_round(services.pair_next_round(t, by=admin), admin, close=False)
    assert rnd.state == RoundState.STARTED
    # Every result of round 1 is official while the round is still being played:
    # the table counts it, but "publish standings" waits for the close.
    snapshot = services.compute_standings(t)
    assert snapshot is not None and snapshot.after_round == 1
    assert snapshot.published_at is None
    assert queries.latest_standings(t, True) is None
    services.close_round(rnd, by=admin)
    compute_standings_task(t.pk)
    snapshot.refresh_from_db()
    assert snapshot.published_at is not None
    assert queries.latest_standings(t, True) == snapshot
