"""Silent rounds stay silent everywhere (issue 12, point 5).

One rule (``games.visibility``, the tournaments app's part registered in
``TournamentsConfig.ready``) decides whether a match's result may be shown;
every surface asks it: the games API (match detail and list, games, turns,
reports), the match page, the board and its JSON, the replay, the .mat and
.sgf files, the tournament page, the pairings and bracket API, the rating
history page and API.  A silent round's result is rated only once the round
is published, and the ratings then equal a recompute from scratch.

Who sees a hidden result: the tournament's organizers and arbiters (and the
admins who run it), and the two players of that match; nobody else until the
round is published.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from clubs.models import Discipline, FederationDiscipline, Role
from games import visibility
from games.models import Match, ResultStatus
from ratings import services as rating_services
from ratings.models import RatingChange, RatingPool
from tests.factories import MatchFactory, PlayerFactory, UserFactory, grant
from tests.games.helpers import play_out
from tests.ratings.test_services import (
    eager,  # noqa: F401 (a fixture)
    history_values,
    rating_values,
)
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Pairing, Round, StandingsSnapshot, Tournament, TournamentState
from tournaments.services import visibility as results_rule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

HIDDEN_TEXT = "The result of this match is not published yet."


@pytest.fixture
def committing(django_capture_on_commit_callbacks: Any) -> Any:
    """Run what is queued on commit (standings, ratings: eager Celery) as a worker would."""

    @contextmanager
    def run() -> Iterator[None]:
        with django_capture_on_commit_callbacks(execute=True):
            yield

    return run


def play_silent_round(rnd: Round, admin: Any) -> Round:
    """Start the round; table 1 is recorded turn by turn to its end (each side entering
    its own turns, so the record is official when the match ends), the other tables
    report and confirm their scores."""
    services.start_round(rnd, by=admin)
    pairings = rnd.pairings.select_related(
        "match__player1__user", "match__player2__user", "entry1", "entry2"
    ).order_by("table")
    for pairing in pairings:
        match = pairing.match
        assert match is not None
        if pairing.table == 1:
            # The tournament reports scores; one recorded match shows the board and files.
            Match.objects.filter(pk=match.pk).update(recorded=True)
            match.refresh_from_db()
            play_out(match, seed=3)
            match.refresh_from_db()
            assert match.result_status == ResultStatus.CONFIRMED, match.result_status
        else:
            builders.confirm_result(pairing, builders.higher_seed(pairing), loser_points=0)
    services.close_round(rnd, by=admin)
    rnd.refresh_from_db()
    return rnd


@pytest.fixture
def event(committing: Any) -> dict[str, Any]:
    """A rated Swiss of 4 with recorded matches to 1: round 1 public, round 2 silent
    (played and closed, not yet published)."""
    federation, admin, _discipline = builders.federation_with_admin()
    # Hypergammon (three checkers each): short games keep the recorded rounds quick,
    # and the .mat and .sgf formats know it.
    hyper, _created = Discipline.objects.get_or_create(
        code="hyper-standard",
        defaults={
            "name": "Hypergammon",
            "variant": "hypergammon",
            "scoring_preset": "short-standard",
            "cube": True,
        },
    )
    t = services.create_tournament(
        by=admin,
        federation=federation,
        name="Silent open",
        discipline=hyper,
        format="swiss",
        rounds_planned=3,
        match_length=1,
    )
    services.set_state(t, TournamentState.REGISTRATION, by=admin)
    for k, player in enumerate(builders.players(federation, 4)):
        services.add_entry(t, player, by=admin, rating=2000.0 - 10 * k)
    services.start_tournament(t, by=admin)
    rated = FederationDiscipline.objects.create(
        federation=federation, discipline=t.discipline, rating_system="fibs"
    )
    with committing():
        first = builders.play_round(services.pair_next_round(t, by=admin), admin)
    pool = RatingPool.objects.get(rated_discipline=rated)
    before_silent = rating_values(pool)
    with committing():
        silent = play_silent_round(services.pair_next_round(t, by=admin, silent=True), admin)
        services.compute_standings(t)
    pairings = list(
        silent.pairings.select_related("match__player1__user", "match__player2__user").order_by(
            "table"
        )
    )
    match = pairings[0].match
    other_table = pairings[1].match
    organizer, arbiter = UserFactory(), UserFactory()
    grant(organizer, Role.ORGANIZER, t)
    grant(arbiter, Role.ARBITER, t)
    return {
        "t": t,
        "admin": admin,
        "pool": pool,
        "first": first,
        "silent": silent,
        "match": match,
        "other_match": other_table,
        "before_silent": before_silent,
        "organizer": organizer,
        "arbiter": arbiter,
        "stranger": UserFactory(),
        "player": match.player1.user,
        "opponent": match.player2.user,
        "other_player": other_table.player1.user,
    }


def as_user(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def api(client: Client, url: str, **params: Any) -> Any:
    return client.get(url, params, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="en")


def surfaces(match: Match) -> dict[str, str]:
    """The pages and endpoints that show a match's record (its games and turns)."""
    urls = {
        "board": reverse("games:board", args=[match.pk]),
        "state": reverse("games:state", args=[match.pk]),
        "api games": f"/api/matches/{match.pk}/games/",
        "api turns": f"/api/matches/{match.pk}/turns/",
    }
    first_game = match.games.order_by("number").first()
    if match.recorded and first_game is not None:
        urls["replay"] = reverse("games:replay", args=[match.pk, first_game.number])
        urls["mat"] = reverse("games:match_mat", args=[match.pk])
        urls["sgf"] = reverse("games:match_sgf", args=[match.pk])
    return urls


def seen_result(client: Client, match: Match, t: Tournament, rnd: Round) -> dict[str, bool]:
    """What each surface tells ``client`` about the result of ``match`` (True: shown)."""
    score = f"{match.score1}–{match.score2}"
    seen: dict[str, bool] = {}
    detail = api(client, f"/api/matches/{match.pk}/").json()
    seen["api detail"] = detail["winner"] == match.winner and detail["score1"] == match.score1
    assert detail["result_hidden"] is not seen["api detail"]
    listed = api(client, "/api/matches/", player=match.player1_id).json()["results"]
    row = next(r for r in listed if r["id"] == match.pk)
    seen["api list"] = row["winner"] is not None
    reports = api(client, "/api/reports/", match=match.pk).json()
    seen["api reports"] = reports["count"] > 0
    page = client.get(reverse("games:match", args=[match.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    seen["match page"] = score in html and ('id="games"' in html or not match.recorded)
    assert (HIDDEN_TEXT in html) is not seen["match page"]
    for name, url in surfaces(match).items():
        status = api(client, url).status_code
        assert status in (200, 403), (name, status)
        seen[name] = status == 200
    pairing = next(
        r
        for r in api(client, "/api/pairings/", round=rnd.pk).json()["results"]
        if r["match"] == match.pk
    )
    seen["api pairings"] = pairing["result"] is not None
    round_url = reverse(
        "tournaments:public_round", args=[t.federation.slug, t.slug, rnd.flight, rnd.number]
    )
    public = client.get(round_url)
    rounds = public.content.decode()
    block = rounds[rounds.index(f'id="round-{rnd.pk}"') :]
    block = block[: block.index("</table>")]
    seen["tournament page"] = score in block and reverse("games:match", args=[match.pk]) in block
    return seen


# --- Hidden from everyone but those who run the tournament and the two players


@pytest.mark.parametrize("who", ["anonymous", "stranger", "other_player"])
def test_a_silent_result_is_hidden_on_every_surface(event: dict[str, Any], who: str) -> None:
    client = as_user(None if who == "anonymous" else event[who])
    seen = seen_result(client, event["match"], event["t"], event["silent"])
    assert seen and not any(seen.values()), seen
    # The match itself stays listed (who plays whom is public), its score does not.
    detail = api(client, f"/api/matches/{event['match'].pk}/").json()
    assert detail["result_hidden"] is True
    assert (detail["score1"], detail["score2"], detail["winner"]) == (None, None, None)
    message = api(client, f"/api/matches/{event['match'].pk}/turns/").json()
    assert message["detail"] == HIDDEN_TEXT


@pytest.mark.parametrize("who", ["organizer", "arbiter", "admin", "player", "opponent"])
def test_organizers_arbiters_and_the_two_players_see_it(event: dict[str, Any], who: str) -> None:
    seen = seen_result(as_user(event[who]), event["match"], event["t"], event["silent"])
    assert seen and all(seen.values()), seen


def test_the_other_table_stays_hidden_from_a_player_of_the_round(event: dict[str, Any]) -> None:
    """A player sees their own result, not the rest of the round."""
    client = as_user(event["player"])
    own = seen_result(client, event["match"], event["t"], event["silent"])
    other = seen_result(client, event["other_match"], event["t"], event["silent"])
    assert all(own.values()), own
    assert not any(other.values()), other


def test_a_match_outside_tournaments_is_visible_to_everyone() -> None:
    match = MatchFactory()
    assert visibility.result_visible(AnonymousUser(), match)
    assert not visibility.hidden_matches(AnonymousUser()).filter(pk=match.pk).exists()
    assert not Match.objects.filter(pk=match.pk).filter(visibility.withheld_q()).exists()


def hidden_ids(user: Any) -> set[int]:
    return set(visibility.hidden_matches(user).values_list("pk", flat=True))


def test_the_rule_reads_the_same_for_one_match_and_for_a_list(event: dict[str, Any]) -> None:
    """``result_visible`` (one match, through the tournaments app's hook) and the filter
    behind lists (``hidden_matches``, ``hide_results``) agree for every user and match."""
    matches = list(Match.objects.filter(pairing__round__tournament=event["t"]))
    users = [AnonymousUser()] + [
        event[k]
        for k in ("stranger", "other_player", "player", "opponent", "organizer", "arbiter", "admin")
    ]
    for user in users:
        hidden = hidden_ids(user)
        annotated = {
            m.pk: visibility.result_visible(user, m)
            for m in visibility.hide_results(
                Match.objects.filter(pk__in=[m.pk for m in matches]), user
            )
        }
        for match in matches:
            fresh = Match.objects.get(pk=match.pk)
            alone = visibility.result_visible(user, fresh)
            assert alone is (match.pk not in hidden), (user, match.pk)
            assert annotated[match.pk] is alone, (user, match.pk)
    # The silent round's matches are hidden from the stranger; the first round's are not.
    stranger_hidden = hidden_ids(event["stranger"])
    assert stranger_hidden == set(
        Match.objects.filter(pairing__round=event["silent"]).values_list("pk", flat=True)
    )


def test_the_tournaments_app_supplies_the_rule_through_the_hook() -> None:
    rule = next(r for r in visibility._RULES if r.hidden is results_rule.match_result_hidden)
    assert rule.hidden_q is results_rule.hidden_results_q
    assert rule.withheld_q is results_rule.withheld_results_q


# --- Ratings wait for the publication


def rated_match_ids(pool: RatingPool) -> set[int]:
    return set(RatingChange.objects.filter(pool=pool).values_list("match_id", flat=True))


def test_ratings_wait_until_the_round_is_published(
    event: dict[str, Any], committing: Any, client: Client
) -> None:
    pool, t, silent = event["pool"], event["t"], event["silent"]
    silent_ids = set(Match.objects.filter(pairing__round=silent).values_list("pk", flat=True))
    first_ids = set(
        Match.objects.filter(pairing__round=event["first"]).values_list("pk", flat=True)
    )
    assert len(silent_ids) == 2 and len(first_ids) == 2
    # Played and confirmed, not rated: the ratings are those after round 1.
    assert rated_match_ids(pool) == first_ids
    assert rating_values(pool) == event["before_silent"]
    # A recompute from scratch agrees while the round is silent.
    rating_services.recompute_pool(pool)
    assert rated_match_ids(pool) == first_ids
    assert rating_values(pool) == event["before_silent"]
    # Nor does a player's rating history page show the silent results.
    player = event["match"].player1
    history = client.get(reverse("ratings:history", args=[player.pk, pool.pk])).content.decode()
    assert reverse("games:match", args=[event["match"].pk]) not in history

    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=2)
    with committing():
        services.publish_standings(snapshot, by=event["admin"])
    assert rated_match_ids(pool) == first_ids | silent_ids
    assert rating_values(pool) != event["before_silent"]
    incremental = rating_values(pool), history_values(pool)
    rating_services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == incremental
    # And now everyone sees the result.
    seen = seen_result(Client(), event["match"], t, silent)
    assert all(seen.values()), seen
    history = client.get(reverse("ratings:history", args=[player.pk, pool.pk])).content.decode()
    assert reverse("games:match", args=[event["match"].pk]) in history


def test_making_a_round_silent_takes_its_results_out_until_it_is_public_again(
    event: dict[str, Any], committing: Any
) -> None:
    pool, t, admin = event["pool"], event["t"], event["admin"]
    with committing():
        services.publish_standings(
            StandingsSnapshot.objects.get(tournament=t, after_round=2), by=admin
        )
    third = services.pair_next_round(t, by=admin)
    with committing():
        services.start_round(third, by=admin)
        pairing = (
            third.pairings.select_related(
                "match__player1__user", "match__player2__user", "entry1", "entry2"
            )
            .order_by("table")
            .first()
        )
        assert pairing is not None and pairing.match is not None
        builders.confirm_result(pairing, builders.higher_seed(pairing), loser_points=0)
    rated = rated_match_ids(pool)
    assert pairing.match_id in rated
    after_third = rating_values(pool), history_values(pool)
    # The organizer makes the running round silent: its result leaves the ratings...
    with committing():
        services.set_silent(third, True, by=admin)
    assert rated_match_ids(pool) == rated - {pairing.match_id}
    assert not visibility.result_visible(AnonymousUser(), Match.objects.get(pk=pairing.match_id))
    silent_state = rating_values(pool), history_values(pool)
    rating_services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == silent_state
    # ...and comes back, as before, when it is public again.
    with committing():
        services.set_silent(third, False, by=admin)
    assert rated_match_ids(pool) == rated
    assert (rating_values(pool), history_values(pool)) == after_third


# --- A tournament that does not publish results


def test_unpublished_results_are_hidden_but_rated(event: dict[str, Any], committing: Any) -> None:
    """Not publishing results is a lasting choice, not a delay: the matches are rated,
    their results hidden from the public on every surface, the rating history keeps the
    change and leaves out the outcome and score."""
    t, admin, pool = event["t"], event["admin"], event["pool"]
    services.update_tournament(t, by=admin, publish_results=False)
    first_match = Match.objects.filter(pairing__round=event["first"]).first()
    assert first_match is not None
    assert first_match.pk in rated_match_ids(pool)
    stranger = as_user(event["stranger"])
    assert not any(seen_result(stranger, first_match, t, event["first"]).values())
    assert all(seen_result(as_user(event["organizer"]), first_match, t, event["first"]).values())
    player = first_match.player1
    history = stranger.get(reverse("ratings:history", args=[player.pk, pool.pk])).content.decode()
    assert reverse("games:match", args=[first_match.pk]) in history  # the rating change
    organizer = as_user(event["organizer"])
    full = organizer.get(reverse("ratings:history", args=[player.pk, pool.pk])).content.decode()
    assert len(re.findall(r"<td>(?:won|lost)\b", full)) == 1
    assert re.findall(r"<td>(?:won|lost)\b", history) == []
    rows = api(stranger, f"/api/players/{player.pk}/rating-history/").json()
    row = next(r for r in rows["results"] if r["match"] == first_match.pk)
    assert row["result"] is None and row["change"] != 0
    own = api(as_user(player.user), f"/api/players/{player.pk}/rating-history/").json()
    assert next(r for r in own["results"] if r["match"] == first_match.pk)["result"] in (
        "won",
        "lost",
    )


# --- The tournament's own API


def test_the_bracket_api_hides_silent_results(committing: Any) -> None:
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(4, "single_elimination", federation=federation, by=admin)
    rnd = services.pair_next_round(t, by=admin, silent=True)
    with committing():
        builders.play_round(rnd, admin)
    url = f"/api/tournaments/{t.pk}/bracket/"
    played = [m for column in api(as_user(admin), url).json() for m in column if m["pairing"]]
    assert played and all(m["winner"] and m["score1"] is not None for m in played)
    hidden = [m for column in api(Client(), url).json() for m in column if m["pairing"]]
    assert hidden and all(m["winner"] is None and m["score1"] is None for m in hidden)
    # A player sees the score of their own match in the tree, not of the other one.
    pairing = Pairing.objects.filter(round=rnd).select_related("match__player1__user").first()
    assert pairing is not None and pairing.match is not None
    rows = api(as_user(pairing.match.player1.user), url).json()
    mine = [m for column in rows for m in column if m["pairing"] == pairing.pk]
    others = [m for column in rows for m in column if m["pairing"] and m["pairing"] != pairing.pk]
    assert mine[0]["score1"] is not None and others and others[0]["score1"] is None


def test_the_api_match_list_costs_the_same_queries_for_any_number(
    event: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    client = as_user(event["stranger"])
    for _ in range(3):
        PlayerFactory()
    # session, user, the user's players, roles, count, page (at most)
    with django_assert_max_num_queries(8):
        payload = api(client, "/api/matches/").json()
    assert payload["count"] == 4
    hidden = {r["id"] for r in payload["results"] if r["result_hidden"]}
    assert hidden == set(
        Match.objects.filter(pairing__round=event["silent"]).values_list("pk", flat=True)
    )
