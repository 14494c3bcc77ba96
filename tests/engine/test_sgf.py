from __future__ import annotations

import pytest

from engine.records import sgf
from engine.records.matfile import MatError, parse_mat
from engine.records.sgf import SgfError, export_sgf, parse_sgf
from engine.rules.board import BAR, OFF
from engine.rules.variants import NACKGAMMON
from tests.engine.test_corpus import CORPUS
from tests.engine.test_matfile import DIALECTS, random_match, write_mat

# The .mat record SHORT below, as GNU Backgammon writes it in SGF.
SHORT = """\
 3 point match

 Game 1
 A : 0                           B : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point
"""
SHORT_SGF = """\
(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.08.003]MI[length:3][game:0][ws:0][bs:0]
PW[A]PB[B]RU[Crawford]RE[W+1]
;W[31hefe]
;B[42qusu]
;W[double]
;B[drop])
"""


def test_points_are_letters_in_whites_numbering_for_both_sides() -> None:
    # Black's 8/4 6/4 is White's 17/21 19/21: q->u s->u.
    assert parse_sgf(SHORT_SGF).fingerprint() == parse_mat(SHORT).fingerprint()
    # Black entering on its 18 (White's 7, "g") from the bar ("y"); White bearing off ("z").
    moves = parse_sgf(SHORT_SGF)
    assert moves.games[0].actions[1].moves[0].origin == 8
    from engine.records.sgf import _letter, _point

    assert [_point(c, 0) for c in "axyz"] == [1, 24, BAR, OFF]
    assert [_point(c, 1) for c in "axyz"] == [24, 1, BAR, OFF]
    assert all(_letter(_point(c, side), side) == c for c in "abcxyz" for side in (0, 1))


def test_export_is_gnu_backgammons_layout() -> None:
    text = export_sgf(parse_mat(SHORT))
    root, *nodes = text.strip().split("\n")
    assert root.startswith("(;FF[4]GM[6]CA[UTF-8]AP[Zary]MI[length:3][game:0][ws:0][bs:0]")
    assert "PW[A]PB[B]" in root and "RU[Crawford]" in root and "RE[W+1]" in root
    assert nodes == [";W[31hefe]", ";B[42qusu]", ";W[double]", ";B[drop])"]


@pytest.mark.parametrize("seed", range(5))
def test_random_matches_round_trip_through_sgf(seed: int) -> None:
    for gen in (
        random_match(seed, length=7, resign_rate=0.02),
        random_match(seed, length=0, jacoby=True, beaver=True, resign_rate=0.02),
        random_match(seed, length=3, variant=NACKGAMMON),
    ):
        match = parse_mat(write_mat(gen, DIALECTS[0]))
        again = parse_sgf(export_sgf(match))
        assert again.fingerprint() == match.fingerprint()
        assert again.settings.jacoby == match.settings.jacoby
        assert export_sgf(again) == export_sgf(match)


def test_first_variation_is_the_game() -> None:
    text = SHORT_SGF.replace(";W[double]\n;B[drop])", "(;W[double];B[drop])(;W[11]))")
    assert parse_sgf(text).fingerprint() == parse_sgf(SHORT_SGF).fingerprint()


def test_names_with_escaped_brackets() -> None:
    text = SHORT_SGF.replace("PW[A]", r"PW[A\]x\\y]")
    match = parse_sgf(text)
    assert match.players == ("A]x\\y", "B")
    assert parse_sgf(export_sgf(match)).players == match.players


@pytest.mark.parametrize(
    ("old", "new", "code", "line"),
    [
        ("RE[W+1]", "", "game_not_finished", 6),
        ("RU[Crawford]", "RU[Crawford:CrawfordGame]", "crawford_mismatch", 1),
        (";B[42qusu]", ";B[42qust]", "dice_mismatch", 4),
        (";B[42qusu]", ";B[42zu]", "bad_move", 4),
        (";W[double]", ";W[double]AB[a]", "sgf_setup", 5),
        ("GM[6]", "GM[1]", "not_backgammon", 1),
        (";B[drop])", ";B[drop]", "sgf_syntax", 7),
        (";W[31hefe]", ";W[31hefe]]", "sgf_syntax", 3),
    ],
)
def test_discrepancy_reported_at_its_line(old: str, new: str, code: str, line: int) -> None:
    assert old in SHORT_SGF
    with pytest.raises(MatError) as caught:
        parse_sgf(SHORT_SGF.replace(old, new))
    assert (caught.value.code, caught.value.line) == (code, line)


@pytest.mark.parametrize(
    ("old", "new", "code", "line"),
    [
        ("RE[W+1]", "RE[W+2]", "wrong_points", 2),
        ("RE[W+1]", "RE[B+1]", "wrong_winner", 2),
        ("MI[length:3][game:0][ws:0]", "MI[length:3][game:0][ws:1]", "score_mismatch", 1),
    ],
)
def test_a_written_result_the_games_contradict_is_a_warning(
    old: str, new: str, code: str, line: int
) -> None:
    """The result and score an SGF writes repeat what the plays give: where they
    disagree (and the match winner is not in question) the engine's are kept."""
    match = parse_sgf(SHORT_SGF.replace(old, new))
    assert [(w.code, w.line) for w in match.warnings] == [(code, line)]
    assert match.fingerprint() == parse_sgf(SHORT_SGF).fingerprint()


def test_sgf_errors_are_match_errors() -> None:
    with pytest.raises(SgfError) as caught:
        parse_sgf("no tree here")
    assert isinstance(caught.value, MatError) and caught.value.line == 1


def test_read_players_reads_the_first_node_only() -> None:
    """An archive's scan names a file's players from its first node: what follows
    is not read (a file broken later is the import's to refuse, with its line)."""
    root = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[Anna \\] A.]PB[Bob]RU[Crawford]"
    assert sgf.read_players(root + ";W[31hegf]") == ("Anna ] A.", "Bob")
    assert sgf.read_players(root + ";W[31hegf] ) ( ;B[99zz") == ("Anna ] A.", "Bob")
    with pytest.raises(sgf.SgfError) as broken:
        sgf.parse_sgf(root + ";W[31hegf] ) ( ;B[99zz")
    assert broken.value.line == 1
    written = sorted(CORPUS.rglob("*.sgf"))
    assert written  # GNU Backgammon's own match, as SGF
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert sgf.read_players(text) == sgf.parse_sgf(text).players
    with pytest.raises(sgf.SgfError):
        sgf.read_players("no tree here")
