"""The analysis on the games pages (issue 17, "where it shows"): the match page gives
both players' PR and marks, the replay marks each analysed decision on the turn it
was made at, both through ``games.match_extras`` (games does not import analysis),
and a result hidden from the viewer (a silent round) hides its analysis too.

Where a decision is shown rests on ``games.exports.action_turn_ids``: the stored
turn of each action of the record the analysis read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse
from django.utils.formats import number_format

from analysis import services
from analysis.models import AnalysedDecision, AnalysisState, MatchAnalysis
from engine.records import matfile
from games import exports, visibility
from games import services as game_services
from games.models import Game, Match, Turn, TurnKind
from games.services.matfiles import import_mat
from tests.factories import MatchFactory
from tests.games.helpers import play_out, user_of
from tests.games.test_archive_import import World, mat
from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments.test_silent_rounds import (
    committing,  # noqa: F401 (a fixture)
    event,  # noqa: F401 (a fixture)
)

CUBE_CHOICES = {
    "no_double": "no double",
    "double": "double",
    "double_take": "double, take",
    "double_pass": "double, pass",
    "take": "take",
    "pass": "pass",
}
# The match page of an analysed match, signed in as the federation's admin.
QUERIES = 12
# Its replay of game 1: the analysis adds its decisions and the game's turns.
REPLAY_QUERIES = 11

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def archive_root(settings: Any, tmp_path: Path) -> None:
    settings.ARCHIVE_ROOT = tmp_path / "archives"


@pytest.fixture
def world() -> World:
    return World()


def analysed(world: World, seed: int, length: int = 3) -> Match:
    match = import_mat(
        mat(seed, ("Bob", "Mamedov Elchin"), length=length).decode(),
        by=world.admin,
        player1=world.bob,
        player2=world.elchin,
        discipline=world.discipline,
        federation=world.federation,
    )
    services.analyse(match.pk)
    assert MatchAnalysis.objects.get(match=match).state == AnalysisState.DONE
    return match


def signed_in(user: Any) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def analysis_rows(html: str) -> dict[int, dict[str, str]]:
    """The match page's analysis table: per side, each figure's cell as shown."""
    rows = {}
    for side, body in re.findall(r'<tr data-side="(\d)">(.*?)</tr>', html, re.S):
        cells = re.findall(r'<td class="num analysis-(\w+)">([^<]*)</td>', body)
        rows[int(side)] = dict(cells)
    return rows


def turn_items(html: str) -> dict[int, str]:
    """The replay's turn list: each turn's item by its number."""
    items = re.findall(r'<li data-frame="\d+" value="(\d+)">(.*?)</li>', html, re.S)
    return {int(number): body for number, body in items}


# --- Where a record's action is stored


def test_the_record_actions_are_the_stored_turns_in_order() -> None:
    """Each action of a played game's record (plays, doubles, takes, passes) is the
    live turn at the same index of ``action_turn_ids``, with its side and dice; the
    opening roll and the resignations are none."""
    match = MatchFactory(length=5)
    play_out(match, seed=7)
    record = exports.mat_match(match)
    cube_kinds = {
        TurnKind.DOUBLE: matfile.DOUBLE,
        TurnKind.TAKE: matfile.TAKE,
        TurnKind.PASS: matfile.DROP,
    }
    seen_cube = False
    games = {g.number: g for g in match.games.all()}
    for recorded in record.games:
        ids = exports.action_turn_ids(games[recorded.number])
        turns = Turn.objects.in_bulk(ids)
        assert len(ids) == len(recorded.actions)
        for turn_id, action in zip(ids, recorded.actions, strict=True):
            turn = turns[turn_id]
            assert (turn.side - 1, turn.undone_at) == (action.side, None)
            if turn.kind == TurnKind.PLAY:
                assert action.kind in (matfile.PLAY, matfile.ROLL)
                assert tuple(turn.dice) == action.dice
            else:
                assert action.kind == cube_kinds[turn.kind]
                seen_cube = True
    assert seen_cube  # the seed's match has cube actions to locate


def test_undone_turns_and_the_opening_roll_locate_no_action() -> None:
    match = MatchFactory(length=1)
    white, black = user_of(match, 0), user_of(match, 1)
    game_services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    game_services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="24/21 6/5"
    )
    game_services.agree_undo(game_services.request_undo(match, by=white), by=black)
    game_services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    game_services.record_turn(match, by=black, number=3, kind=TurnKind.RESIGN, level="single")
    game_services.record_turn(match, by=white, number=4, kind=TurnKind.ACCEPT)
    game = Game.objects.get(match=match, number=1)
    live_play = game.turns.get(kind=TurnKind.PLAY, undone_at__isnull=True)
    assert exports.action_turn_ids(game) == [live_play.pk]
    assert [a.kind for a in exports.mat_match(match).games[0].actions] == [matfile.PLAY]


# --- The match page


def test_the_match_page_shows_both_players_pr_and_marks(world: World) -> None:
    match = analysed(world, seed=2)
    analysis = MatchAnalysis.objects.get(match=match)
    html = signed_in(world.admin).get(reverse("games:match", args=[match.pk])).content.decode()
    rows = analysis_rows(html)
    for side in (1, 2):
        pr = getattr(analysis, f"pr{side}")
        assert pr is not None
        assert rows[side] == {
            "pr": number_format(pr, 1),
            "decisions": str(getattr(analysis, f"decisions{side}")),
            "doubtful": str(getattr(analysis, f"doubtful{side}")),
            "errors": str(getattr(analysis, f"errors{side}")),
            "blunders": str(getattr(analysis, f"blunders{side}")),
        }
    # The counts are those of the stored decisions.
    counted = AnalysedDecision.objects.filter(analysis=analysis, counted=True)
    assert int(rows[1]["decisions"]) + int(rows[2]["decisions"]) == counted.count() > 0
    assert int(rows[1]["errors"]) == counted.filter(side=1, mark="error").count()
    assert "Analysed by bgsage at 1-ply." in html
    assert 'href="/static/analysis/analysis.css"' in html


def test_a_match_not_analysed_shows_no_analysis_and_a_refusal_says_why(world: World) -> None:
    match = import_mat(
        mat(4, ("Bob", "Mamedov Elchin"), length=1).decode(),
        by=world.admin,
        player1=world.bob,
        player2=world.elchin,
        discipline=world.discipline,
        federation=world.federation,
    )
    assert not MatchAnalysis.objects.filter(match=match).exists()
    client = signed_in(world.admin)
    url = reverse("games:match", args=[match.pk])
    html = client.get(url).content.decode()
    assert 'id="games"' in html  # the page itself is there
    assert "match-analysis" not in html and "analysis.css" not in html.split("<body")[1]
    replay = client.get(reverse("games:replay", args=[match.pk, 1])).content.decode()
    assert "analysis-note" not in replay

    MatchAnalysis.objects.create(
        match=match,
        state=AnalysisState.REFUSED,
        refusal="too_many_decisions",
        analyser="bgsage",
        depth=1,
        record_hash="",
    )
    html = client.get(url).content.decode()
    assert "Not analysed: The match is longer than one analysis may take." in html
    assert "analysis-pr" not in html


@pytest.mark.parametrize("seed, length", [(2, 3), (5, 7)])
def test_the_match_page_with_its_analysis_takes_one_query_for_it(
    world: World, django_assert_num_queries: Any, seed: int, length: int
) -> None:
    """The same number of queries whatever the match's length: the analysis block is
    one, its decisions are not read."""
    match = analysed(world, seed=seed, length=length)
    client = signed_in(world.admin)
    url = reverse("games:match", args=[match.pk])
    client.get(url)  # the first request of a session caches what later ones reuse
    with django_assert_num_queries(QUERIES) as captured:
        assert "analysis-pr" in client.get(url).content.decode()
    read = [q["sql"] for q in captured.captured_queries if '"analysis_' in q["sql"]]
    assert len(read) == 1 and "analysis_matchanalysis" in read[0]


@pytest.mark.parametrize("seed, length", [(2, 3), (5, 7)])
def test_the_replay_reads_the_games_decisions_and_turns_once(
    world: World, django_assert_num_queries: Any, seed: int, length: int
) -> None:
    match = analysed(world, seed=seed, length=length)
    client = signed_in(world.admin)
    url = reverse("games:replay", args=[match.pk, 1])
    client.get(url)
    with django_assert_num_queries(REPLAY_QUERIES) as captured:
        assert "analysis-note" in client.get(url).content.decode()
    read = [q["sql"] for q in captured.captured_queries if '"analysis_' in q["sql"]]
    assert len(read) == 1 and "analysis_analyseddecision" in read[0]


# --- The replay


def test_the_replay_marks_each_analysed_decision_at_its_turn(world: World) -> None:
    match = analysed(world, seed=2)
    analysis = MatchAnalysis.objects.get(match=match)
    client = signed_in(world.admin)
    checked = marked = cube_checked = 0
    for game in match.games.order_by("number"):
        html = client.get(reverse("games:replay", args=[match.pk, game.number])).content.decode()
        items = turn_items(html)
        ids = exports.action_turn_ids(game)
        numbers = dict(Turn.objects.filter(pk__in=ids).values_list("pk", "number"))
        decisions = AnalysedDecision.objects.filter(
            analysis=analysis, game=game.number, counted=True
        )
        shown = sum(item.count('class="analysis-note') for item in items.values())
        assert shown == decisions.count()
        for decision in decisions:
            item = items[numbers[ids[decision.action]]]
            note = f'data-mark="{decision.mark}" data-kind="{decision.kind}"'
            assert note in item
            if decision.kind == "checker" and decision.played != decision.best:
                lost = f"lost {number_format(decision.error, 3)}; best: {decision.best} ("
                assert lost in item
                sign = "+" if decision.best_equity >= 0 else "−"
                assert f"({sign}{number_format(abs(decision.best_equity), 3)})</span>" in item
            elif decision.kind != "checker":
                played = CUBE_CHOICES[decision.played]
                if decision.played == decision.best:
                    assert f"{played}, best (" in item
                else:
                    assert f"best: {CUBE_CHOICES[decision.best]} (" in item
                    assert f"played: {played} (" in item
                cube_checked += 1
            checked += 1
            if decision.mark:
                symbol = {"doubtful": "?!", "error": "?", "blunder": "??"}[decision.mark]
                assert f'<span class="mark-symbol">{symbol}</span> {decision.mark}' in item
                marked += 1
    # The seed's match has marks and cube decisions to show.
    assert checked > 0 and marked > 0 and cube_checked > 0


# --- A silent round


def analysis_of(match: Match) -> MatchAnalysis:
    """Stored rows as the analysis keeps them: the pages read nothing else."""
    analysis = MatchAnalysis.objects.create(
        match=match,
        state=AnalysisState.DONE,
        analyser="bgsage",
        depth=1,
        record_hash="",
        decisions=1,
        pr1=24.5,
        pr2=None,
        decisions1=1,
        errors1=1,
    )
    AnalysedDecision.objects.create(
        analysis=analysis,
        game=1,
        action=0,
        side=1,
        kind="checker",
        error=0.098,
        mark="error",
        best="8/5 6/5",
        best_equity=0.15,
        played="24/21",
        played_equity=0.052,
    )
    return analysis


@pytest.mark.usefixtures("eager")
@pytest.mark.parametrize(
    "who, sees",
    [("anonymous", False), ("other_player", False), ("organizer", True), ("player", True)],
)
def test_a_silent_rounds_analysis_is_hidden_as_its_result_is(
    event: dict[str, Any],  # noqa: F811 (the fixture imported above)
    who: str,
    sees: bool,
) -> None:
    """A silent round, played and closed, not published: its match's analysis shows to
    whoever sees its result (its organizers, its players) and to nobody else."""
    match = event["match"]
    analysis_of(match)
    viewer = event.get(who)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    if viewer is not None:
        client.force_login(viewer)
    page = client.get(reverse("games:match", args=[match.pk])).content.decode()
    replay = client.get(reverse("games:replay", args=[match.pk, 1]))
    assert visibility.result_visible(viewer or AnonymousUser(), match) is sees
    if sees:
        assert analysis_rows(page)[1]["pr"] == "24.5" and analysis_rows(page)[2]["pr"] == "—"
        first_play = exports.action_turn_ids(match.games.get(number=1))[0]
        number = Turn.objects.get(pk=first_play).number
        item = turn_items(replay.content.decode())[number]
        assert 'data-mark="error"' in item and "lost 0.098; best: 8/5 6/5 (+0.150)" in item
    else:
        assert "match-analysis" not in page and "24.5" not in page
        assert "not published yet" in page
        assert replay.status_code == 403 and b"analysis-note" not in replay.content
