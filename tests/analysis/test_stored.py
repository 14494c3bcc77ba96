"""A recorded match's analysis as the product keeps it (analysis.services): owed
when its result becomes official, stored per decision and per player, done once
per record, and a backlog analysed by the management command."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from celery import current_app as celery_app
from django.core.management import call_command

from analysis import receivers, services
from analysis.analysers import get_analyser
from analysis.core import analyse_match
from analysis.models import AnalysedDecision, AnalysisState, MatchAnalysis
from engine.records.matfile import parse_mat
from games import exports
from games.models import Match, MatchState, ResultStatus
from games.services.matfiles import import_mat
from tests.factories import DisciplineFactory
from tests.games.test_archive_import import World, mat, run_import, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager() -> Iterator[None]:
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = conf.task_eager_propagates = True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


@pytest.fixture(autouse=True)
def archive_root(settings: Any, tmp_path: Path) -> None:
    settings.ARCHIVE_ROOT = tmp_path / "archives"


@pytest.fixture
def world() -> World:
    return World()


def imported(world: World, seed: int, length: int = 1) -> Match:
    """A match file imported by the federation's admin: official at once."""
    return import_mat(
        mat(seed, ("Bob", "Mamedov Elchin"), length=length).decode(),
        by=world.admin,
        player1=world.bob,
        player2=world.elchin,
        discipline=world.discipline,
        federation=world.federation,
    )


def test_a_result_made_official_owes_the_analysis_stored_per_decision_and_player(
    world: World, eager: None, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ANALYSIS_ON_RESULT = True
    with django_capture_on_commit_callbacks(execute=True):
        match = imported(world, seed=2)
    assert (match.state, match.result_status) == (MatchState.FINISHED, ResultStatus.CONFIRMED)

    analysis = MatchAnalysis.objects.get(match=match)
    assert (analysis.state, analysis.analyser, analysis.depth) == (AnalysisState.DONE, "bgsage", 1)
    # What the core gives for the same record, stored as it gave it.
    expected = analyse_match(exports.mat_match(match), get_analyser())
    assert analysis.decisions == len(expected.decisions) == analysis.decision_rows.count() > 0
    assert analysis.evaluations == expected.evaluations
    for number, side in ((1, expected.players[0]), (2, expected.players[1])):
        assert getattr(analysis, f"pr{number}") == pytest.approx(side.pr)
        assert getattr(analysis, f"decisions{number}") == side.decisions
        assert getattr(analysis, f"errors{number}") == side.errors
    rows = list(analysis.decision_rows.order_by("game", "action", "kind"))
    first = min(expected.decisions, key=lambda d: (d.game, d.action, d.kind))
    assert (rows[0].game, rows[0].action, rows[0].kind, rows[0].side) == (
        first.game,
        first.action,
        first.kind,
        first.side + 1,
    )
    counted = [row.error for row in rows if row.counted and row.side == 1]
    assert analysis.pr1 == pytest.approx(500 * sum(counted) / len(counted))


def test_the_analysis_is_done_once_per_record_analyser_and_depth(
    world: World, settings: Any
) -> None:
    match = imported(world, seed=3)
    assert services.analyse(match.pk).startswith("analysed: ")
    rows = set(AnalysedDecision.objects.values_list("pk", flat=True))
    assert services.analyse(match.pk) == services.UP_TO_DATE
    assert set(AnalysedDecision.objects.values_list("pk", flat=True)) == rows

    # Another depth is another analysis: it replaces the rows, not adds to them.
    settings.ANALYSIS_MAX_DECISIONS = 5
    settings.ANALYSIS_DEPTH = 2
    assert services.analyse(match.pk) == "not analysed: too_many_decisions"
    analysis = MatchAnalysis.objects.get(match=match)
    assert (analysis.state, analysis.refusal, analysis.depth) == (
        AnalysisState.REFUSED,
        "too_many_decisions",
        2,
    )
    assert not analysis.decision_rows.exists() and analysis.pr1 is None


def test_only_finished_recorded_matches_in_an_analysable_game_are_analysed(
    world: World,
) -> None:
    match = imported(world, seed=4)
    Match.objects.filter(pk=match.pk).update(result_status=ResultStatus.PENDING)
    assert services.analyse(match.pk).startswith("not analysed")
    assert not MatchAnalysis.objects.exists()
    assert services.analyse(10**9).startswith("not analysed")

    # A game the formats and the network do not know: refused, with its reason kept.
    Match.objects.filter(pk=match.pk).update(
        result_status=ResultStatus.CONFIRMED,
        discipline=DisciplineFactory(code="long-x", variant="long", scoring_preset=""),
    )
    assert services.analyse(match.pk) == "not analysed: not_analysable"
    assert MatchAnalysis.objects.get(match=match).refusal == "not_analysable"


def test_an_archive_owes_no_analysis_its_backlog_is_analysed_by_the_command(
    world: World,
    eager: None,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: Any,
) -> None:
    settings.ANALYSIS_ON_RESULT = True
    owed: list[int] = []
    monkeypatch.setattr(receivers, "owe", lambda task, match_id: owed.append(match_id))
    members = [(f"{n}.mat", mat(n, ("Mamedov Elchin", "Bob"), length=1)) for n in (5, 6)]
    archive = run_import(
        world,
        upload(world, members, django_capture_on_commit_callbacks),
        django_capture_on_commit_callbacks,
    )
    assert archive.imported == 2 and owed == []
    assert set(services.backlog(archive_id=archive.pk).values_list("pk", flat=True)) == set(
        archive.files.values_list("match_id", flat=True)
    )

    out = StringIO()
    call_command("analyse_matches", "--archive", str(archive.pk), stdout=out)
    assert "2/2 matches" in out.getvalue() and "2 analysed" in out.getvalue()
    assert MatchAnalysis.objects.filter(state=AnalysisState.DONE).count() == 2
    assert not services.backlog(archive_id=archive.pk).exists()

    # Once the import is over, a result made official again owes its analysis.
    match_id = archive.files.values_list("match_id", flat=True).first()
    assert match_id is not None
    receivers.on_result_confirmed(match_id)
    assert owed == [match_id]
    settings.ANALYSIS_ON_RESULT = False
    receivers.on_result_confirmed(match_id)
    assert owed == [match_id]


def test_the_record_analysed_is_the_files(world: World) -> None:
    """The stored match's record (games.exports) replays to the file's match: the
    analysis of an imported match is the analysis of its file."""
    match = imported(world, seed=7)
    text = mat(7, ("Bob", "Mamedov Elchin"), length=1).decode()

    def plays(record: Any) -> list[list[Any]]:
        return [
            [(a.kind, a.side, a.dice, a.play.position if a.play else None) for a in g.actions]
            for g in record.games
        ]

    stored, written = exports.mat_match(match), parse_mat(text)
    assert plays(stored) == plays(written) and any(plays(written))
    assert [g.result for g in stored.games] == [g.result for g in written.games]


def test_each_games_pr_is_kept_and_shown_on_the_match_page(world: World, client: Any) -> None:
    match = imported(world, seed=11, length=3)
    assert services.analyse(match.pk).startswith("analysed: ")
    analysis = MatchAnalysis.objects.get(match=match)
    expected = analyse_match(exports.mat_match(match), get_analyser())
    assert len(expected.games) > 1
    assert analysis.per_game == [
        {
            "game": game.number,
            "pr": [side.pr for side in game.sides],
            "decisions": [side.decisions for side in game.sides],
        }
        for game in expected.games
    ]
    # The games' decisions add up to the match's.
    assert sum(g["decisions"][0] for g in analysis.per_game) == analysis.decisions1

    client.force_login(world.admin)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "PR per game" in page
    assert page.count('<tr data-game="') == len(expected.games)
