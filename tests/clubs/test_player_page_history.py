"""A player's page lists their events and matches (issue 15, "find everything").

The clubs app knows neither: the tournaments and games apps add their sections
through ``clubs.player_page`` (registered in their ``AppConfig.ready``).  Only public
tournaments are listed, with the player's place in the latest published standings
and a link to their own page in the tournament; their matches come newest first
with opponent, score and a link to the match page, and a silent round's result
stays hidden from visitors as it does everywhere else.  Both sections come a page
at a time and cost the same queries whatever the player's history."""

from __future__ import annotations

import datetime
import re
from itertools import count
from typing import Any

import pytest
from django.db.models import Q
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from clubs import player_page
from clubs.models import Federation, Player
from games.models import Match, MatchState, ResultStatus
from games.views import player_matches
from tests.factories import DisciplineFactory, FederationFactory, MatchFactory, PlayerFactory
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Entry, StandingsSnapshot, Tournament, TournamentState
from tournaments.views import player_events

pytestmark = pytest.mark.django_db

HIDDEN_TEXT = "not published yet"

_numbers = count(1)


def page(client: Client, player: Player, **params: Any) -> str:
    response = client.get(reverse("clubs:player", args=[player.pk]), params)
    assert response.status_code == 200, response.status_code
    return str(response.content.decode())


def section(html: str, name: str) -> str:
    start = html.index(f'<section id="{name}">')
    return html[start : html.index("</section>", start)]


def match_row(html: str, match: Match) -> str:
    found = re.search(rf'<tr class="player-match" data-match="{match.pk}">(.*?)</tr>', html, re.S)
    assert found is not None, f"match {match.pk} is not listed"
    return found.group(1)


def test_both_apps_register_their_section() -> None:
    assert [s.name for s in player_page.sections()] == ["events", "pr", "matches"]


def test_a_silent_rounds_result_stays_hidden_on_the_players_page(client: Client) -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        4,
        "swiss",
        federation=federation,
        by=admin,
        rounds_planned=3,
        starts_on=datetime.date(2025, 3, 8),
    )
    first = builders.play_round(services.pair_next_round(t, by=admin), admin)
    snapshot = services.compute_standings(t)
    assert snapshot is not None and snapshot.published_at is not None
    silent = builders.play_round(services.pair_next_round(t, by=admin, silent=True), admin)
    services.compute_standings(t)
    player = first.pairings.order_by("table").first().entry1.player  # type: ignore[union-attr]
    entry = Entry.objects.get(tournament=t, player=player)
    public_match = Match.objects.get(pairing__round=first, pk__in=_matches_of(player))
    silent_match = Match.objects.get(pairing__round=silent, pk__in=_matches_of(player))
    assert silent_match.result_status == ResultStatus.CONFIRMED

    html = page(client, player)

    events = section(html, "events")
    assert reverse("tournaments:public_player", args=[federation.slug, t.slug, entry.pk]) in events
    assert t.name in events
    assert "03/08/2025" in events
    place = next(row["place"] for row in snapshot.rows if row["entry"] == entry.pk)
    assert f'<span class="place">{place}</span>' in events
    matches = section(html, "matches")
    # Newest first: the silent round's match, then the first round's.
    assert re.findall(r'data-match="(\d+)"', matches) == [
        str(silent_match.pk),
        str(public_match.pk),
    ]
    shown = match_row(matches, public_match)
    assert 'class="score"' in shown
    assert reverse("games:match", args=[public_match.pk]) in shown
    opponent = (
        public_match.player2 if public_match.player1_id == player.pk else public_match.player1
    )
    assert reverse("clubs:player", args=[opponent.pk]) in shown
    hidden = match_row(matches, silent_match)
    assert HIDDEN_TEXT in hidden
    assert 'class="score"' not in hidden and "won" not in hidden
    assert f"{silent_match.score1}–{silent_match.score2}" not in hidden
    assert f"{silent_match.score2}–{silent_match.score1}" not in hidden

    # Once the organizer publishes the standings that cover it, the result is public.
    latest = StandingsSnapshot.objects.filter(tournament=t).order_by("-after_round").first()
    assert latest is not None and latest.published_at is None
    services.publish_standings(latest, by=admin)
    shown = match_row(section(page(client, player), "matches"), silent_match)
    assert HIDDEN_TEXT not in shown and 'class="score"' in shown


def _matches_of(player: Player) -> Any:
    return Match.objects.filter(Q(player1=player) | Q(player2=player)).values("pk")


def tournament_entered(
    player: Player, federation: Federation, state: str = TournamentState.FINISHED, **fields: Any
) -> Entry:
    number = next(_numbers)
    t = Tournament.objects.create(
        federation=federation,
        discipline=DisciplineFactory(),
        name=f"Open {number}",
        slug=f"open-{number}",
        format="swiss",
        state=state,
        starts_on=datetime.date(2024, 1, 1) + datetime.timedelta(days=number),
        **fields,
    )
    return Entry.objects.create(tournament=t, player=player)


def test_only_public_tournaments_are_listed_newest_first(client: Client) -> None:
    federation = FederationFactory()
    player = PlayerFactory(federation=federation)
    older = tournament_entered(player, federation)
    newer = tournament_entered(player, federation, state=TournamentState.RUNNING)
    tournament_entered(player, federation, state=TournamentState.DRAFT)
    tournament_entered(player, federation, is_public=False)
    tournament_entered(player, FederationFactory(is_public=False))
    events = section(page(client, player), "events")
    assert re.findall(r'data-tournament="(\d+)"', events) == [
        str(newer.tournament_id),
        str(older.tournament_id),
    ]
    # No standings published: no place.
    assert 'class="place"' not in events


def test_a_place_shows_only_from_published_standings(client: Client) -> None:
    federation = FederationFactory()
    player = PlayerFactory(federation=federation)
    entry = tournament_entered(player, federation)
    StandingsSnapshot.objects.create(
        tournament=entry.tournament,
        after_round=1,
        rows=[{"entry": entry.pk, "place": "2"}],
        published_at=timezone.now(),
    )
    StandingsSnapshot.objects.create(
        tournament=entry.tournament, after_round=2, rows=[{"entry": entry.pk, "place": "1"}]
    )
    events = section(page(client, player), "events")
    assert '<span class="place">2</span>' in events


def fill(player: Player, federation: Federation, size: int) -> None:
    """``size`` public tournaments with published standings and ``size`` finished matches."""
    for k in range(size):
        entry = tournament_entered(player, federation)
        StandingsSnapshot.objects.create(
            tournament=entry.tournament,
            after_round=1,
            rows=[{"entry": entry.pk, "place": str(k + 1)}],
            published_at=timezone.now(),
        )
        MatchFactory(
            player1=player,
            player2=PlayerFactory(federation=federation),
            federation=federation,
            recorded=False,
            state=MatchState.FINISHED,
            result_status=ResultStatus.CONFIRMED,
            score1=3,
            score2=k % 3,
            winner=1,
            finished_at=timezone.now() - datetime.timedelta(hours=k),
        )


@pytest.mark.parametrize("size", [1, 30])
def test_the_page_costs_the_same_queries_for_any_history(
    client: Client, django_assert_num_queries: Any, size: int
) -> None:
    federation = FederationFactory()
    player = PlayerFactory(federation=federation)
    fill(player, federation, size)
    # The player and their clubs (2), their ratings (the ratings app's part), their
    # events (a count, a page, the places, the PRs per event: 4), their analysed
    # matches' PR (1) and matches (a count, a page: 2).
    with django_assert_num_queries(QUERIES):
        html = page(client, player)
    events, matches = section(html, "events"), section(html, "matches")
    assert len(re.findall(r'data-tournament="', events)) == min(size, player_events.EVENTS_PER_PAGE)
    assert len(re.findall(r'data-match="', matches)) == min(size, player_matches.MATCHES_PER_PAGE)
    assert events.count('class="place"') == min(size, player_events.EVENTS_PER_PAGE)


QUERIES = 10


def test_each_section_pages_on_its_own(client: Client) -> None:
    federation = FederationFactory()
    player = PlayerFactory(federation=federation)
    fill(player, federation, 30)
    second = page(client, player, matches="2")
    assert (
        len(re.findall(r'data-match="', section(second, "matches")))
        == 30 - player_matches.MATCHES_PER_PAGE
    )
    assert (
        len(re.findall(r'data-tournament="', section(second, "events")))
        == player_events.EVENTS_PER_PAGE
    )
    assert "?matches=1#matches" in section(second, "matches")
    assert "?events=2#events" in section(page(client, player), "events")
    url = reverse("clubs:player", args=[player.pk])
    for bad in ({"matches": "3"}, {"events": "3"}, {"matches": "0"}, {"events": "x"}):
        assert client.get(url, bad).status_code == 404, bad


def test_a_player_without_history_says_so(client: Client) -> None:
    html = page(client, PlayerFactory())
    assert "No tournaments yet." in section(html, "events")
    assert "No matches yet." in section(html, "matches")
