"""Importing Backgammon Galaxy's dialects of ``.mat`` (issue 16): the engine's
values are stored, what the file writes otherwise is kept as warnings and shown
on the match page; a refused file saves nothing."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from base.engine_messages import warning_message
from engine.records.matfile import replay_mat
from games import exports, services
from games.models import Game, Match, MatchState, ReportSource, Turn, TurnKind
from tests.factories import DisciplineFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

# Bob's account is gone (no name), he doubled, Alice took, then he left the
# 7-point match: Galaxy writes "Losses 7" and Alice's "Wins 7 ... and the match"
# in Bob's column.  A resignation with the cube at 2 gives at most 6 (koks).
GALAXY = """\
; [Site "BackgammonGalaxy"]

 7 point match

 Game 1
 alice : 0                        : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2) 64: 24/18 13/9               Doubles => 2
  3)  Takes                       Losses 7 point
                                  Wins 7 point and the match
"""

# A game whose Wins value is not the dropped double's 1 point, mid-match.
WRONG_VALUE = """\
 3 point match

 Game 1
 Anna : 0                  Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 2 point

 Game 2
 Anna : 2                  Bob : 0
  1)                             64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point
"""


def players() -> tuple:
    uploader = PlayerFactory(user=UserFactory())
    return uploader, PlayerFactory(federation=uploader.federation)


def import_text(text: str, player1, player2, discipline=None) -> Match:
    return services.import_mat(
        text,
        by=player1.user,
        player1=player1,
        player2=player2,
        discipline=discipline or DisciplineFactory(),
    )


def test_a_resigned_match_stores_the_engines_values_and_its_warnings() -> None:
    alice, bob = players()
    match = import_text(GALAXY, alice, bob)
    game = match.games.get()
    # The engine's game: Bob's resignation at its highest level with the cube at 2.
    assert (game.winner, game.end, game.result, game.cube, game.points) == (
        1,
        "resign",
        "koks",
        2,
        6,
    )
    kinds = list(game.turns.order_by("number").values_list("kind", flat=True))
    assert kinds == [
        TurnKind.OPENING,
        TurnKind.PLAY,
        TurnKind.PLAY,
        TurnKind.PLAY,
        TurnKind.DOUBLE,
        TurnKind.TAKE,
        TurnKind.RESIGN,
        TurnKind.ACCEPT,
    ]
    # The match goes to Alice at the match length.
    assert match.state == MatchState.FINISHED
    report = match.reports.get(source=ReportSource.RECORD)
    assert (report.score1, report.score2) == (7, 0)
    assert [(w["code"], w["line"], w["data"]) for w in match.import_warnings] == [
        ("empty_name", 6, {"player": 2}),
        ("wins_column", 10, {"resigner": 2, "resign_line": 9}),
        ("wrong_points", 10, {"written": 7, "expected": 6}),
        ("match_resigned", 10, {"resigner": 2, "game": 1}),
    ]
    stored = Match.objects.get(pk=match.pk)
    assert stored.import_warnings == match.import_warnings


def test_a_written_value_that_disagrees_stores_the_engines() -> None:
    anna, bob = players()
    match = import_text(WRONG_VALUE.replace("Anna : 2", "Anna : 1"), anna, bob)
    first = match.games.get(number=1)
    assert (first.winner, first.end, first.points) == (1, "pass", 1)
    assert [(w["code"], w["line"], w["data"]) for w in match.import_warnings] == [
        ("wrong_points", 7, {"written": 2, "expected": 1}),
    ]
    # The score line of game 2 repeats the file's own count: a warning too.
    match = import_text(WRONG_VALUE, *players())
    assert [w["code"] for w in match.import_warnings] == ["wrong_points", "score_mismatch"]
    assert match.games.get(number=2).score1_before == 1
    assert (match.games.get(number=2).points, match.state) == (1, MatchState.PLAYING)


def test_warnings_are_rendered_in_the_viewers_language() -> None:
    warning = {"line": 11, "code": "match_resigned", "data": {"resigner": 2, "game": 1}}
    with translation.override("en"):
        english = warning_message(warning)
    assert english == (
        "line 11: Player 2 resigned the match in game 1: the match goes to the opponent."
    )


def test_the_match_page_shows_the_import_warnings(client) -> None:
    alice, bob = players()
    match = import_text(GALAXY, alice, bob)
    client.force_login(alice.user)
    with translation.override("en"):
        page = client.get(reverse("games:match", args=[match.pk]), HTTP_ACCEPT_LANGUAGE="en")
    content = page.content.decode()
    assert page.status_code == 200
    assert 'id="import-warnings"' in content
    assert "Imported with 4 warnings" in content
    assert "line 6: Player 2 has no name in the file." in content
    assert "line 10: Player 2 resigned the match in game 1" in content


def test_a_match_without_warnings_shows_no_box(client) -> None:
    anna, bob = players()
    text = WRONG_VALUE.replace("Wins 2 point", "Wins 1 point").replace("Anna : 2", "Anna : 1")
    match = import_text(text, anna, bob)
    assert match.import_warnings == []
    client.force_login(anna.user)
    page = client.get(reverse("games:match", args=[match.pk]))
    assert page.status_code == 200 and b'id="import-warnings"' not in page.content


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        # "and the match" in Bob's column after a bear-off-free drop won by Anna.
        ("      Wins 2 point", "                                 Wins 2 point and the match", 7),
        # An illegal play (a 6 where a 2 was rolled) in the lenient file.
        ("42: 8/4 6/4", "42: 8/4 8/2", 5),
    ],
)
def test_a_refused_file_leaves_no_rows(old: str, new: str, line: int) -> None:
    anna, bob = players()
    discipline = DisciplineFactory()
    before = (Match.objects.count(), Game.objects.count(), Turn.objects.count())
    assert old in WRONG_VALUE
    with pytest.raises(ValidationError) as refused:
        import_text(WRONG_VALUE.replace(old, new), anna, bob, discipline)
    assert f"line {line}" in " ".join(refused.value.messages)
    assert (Match.objects.count(), Game.objects.count(), Turn.objects.count()) == before


def test_a_resigned_match_exports_as_resigned_and_imports_again_alike() -> None:
    alice, bob = players()
    match = import_text(GALAXY, alice, bob)
    text = exports.mat_text(match)
    assert "Losses 6 points" in text and "Wins 6 points and the match" in text
    record = replay_mat(text)
    assert (record["winner"], record["resigned"], record["final_score"]) == (1, 2, [7, 0])
    copy = import_text(text, *players())
    assert [(g.winner, g.end, g.points) for g in copy.games.all()] == [(1, "resign", 6)]
    assert [w["code"] for w in copy.import_warnings] == ["match_resigned"]
    assert (copy.reports.get().score1, copy.reports.get().score2) == (7, 0)


def test_a_capped_last_game_stores_the_games_value() -> None:
    from tests.engine.test_mat_dialects import capped_record

    text, value, _needed = capped_record()
    match = import_text(text, *players())
    last = match.games.order_by("number").last()
    assert last is not None and last.points == value > 3
    assert match.import_warnings == [] and match.state == MatchState.FINISHED
    report = match.reports.get(source=ReportSource.RECORD)
    assert 3 in (report.score1, report.score2)
