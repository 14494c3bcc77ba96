"""Backgammon Galaxy's dialects of ``.mat`` (issue 16), on records written here.

Lenient where the file only repeats what the plays give (a capped or wrong
``Wins n``, an empty name, a ``Wins`` in the wrong column after ``Losses``):
the match imports with the engine's values and a warning.  Strict where it
matters: an illegal play, or a ``Wins ... and the match`` that names another
match winner than the games give, is refused at its line.
"""

from __future__ import annotations

import re

import pytest

from engine.records.matfile import MatError, MatMatch, export_mat, parse_mat, replay_mat
from engine.rules import game as g
from tests.engine.test_matfile import DIALECTS, SHORT_MATCH, random_match, write_mat

GNUBG = DIALECTS[0]


def warnings_of(match: MatMatch) -> list[tuple[str, int, dict[str, object]]]:
    return [(w.code, w.line, w.data) for w in match.warnings]


def refused(text: str) -> tuple[str, int]:
    with pytest.raises(MatError) as caught:
        parse_mat(text)
    return caught.value.code, caught.value.line


# --- Wins capped on the match's last game --------------------------------------------


def capped_record() -> tuple[str, int, int]:
    """A 3-point match whose last game, won by bear-off, is worth more than the
    match length while its winner needed less: written ``Wins 3`` as Galaxy does.
    Returns the text, the game's value and the points its winner needed."""
    for seed in range(100):
        gen = random_match(seed, length=3, resign_rate=0.0)
        last = gen.games[-1]
        result = last.result
        needed = 3 - last.score_before[result.winner]
        if result.end == g.END_BEAROFF and result.points > 3 and needed < 3:
            text = write_mat(gen, GNUBG)
            written = f"Wins {result.points} points and the match"
            assert text.count(written) == 1
            return text.replace(written, "Wins 3 points and the match"), result.points, needed
    pytest.fail("no seed ends a 3-point match with a game worth more than 3")


def test_wins_capped_at_the_match_length_on_the_last_game() -> None:
    text, value, needed = capped_record()
    match = parse_mat(text)
    last = match.games[-1]
    assert (last.stated_points, last.result.points, last.capped) == (3, value, True)
    assert needed < 3 < value
    assert match.warnings == ()  # a cap Galaxy is known to write, not a disagreement
    assert match.winner == last.result.winner and max(match.final_score) == 3


def test_wins_below_what_the_winner_needed_on_the_last_game_is_a_warning() -> None:
    text, value, needed = capped_record()
    match = parse_mat(text.replace("Wins 3 points and the match", "Wins 1 point and the match"))
    last = match.games[-1]
    assert needed > 1
    assert last.result.points == value  # the engine's value is kept
    assert warnings_of(match) == [
        (
            "wrong_points",
            text.count("\n", 0, text.index("Wins 3 points")) + 1,
            {"written": 1, "expected": value},
        )
    ]
    assert match.winner == last.result.winner


# --- A player without a name -----------------------------------------------------------


@pytest.mark.parametrize(("name", "player"), [("bob_1,1500", 2), ("Anna Smith", 1)])
def test_empty_name_imports_with_a_warning(name: str, player: int) -> None:
    match = parse_mat(SHORT_MATCH.replace(name, ""))
    assert match.players[player - 1] == ""
    assert warnings_of(match) == [("empty_name", 7, {"player": player})]
    assert match.fingerprint()[3:] == parse_mat(SHORT_MATCH).fingerprint()[3:]


def test_empty_name_read_from_galaxys_layout() -> None:
    text = (
        " 1 point match\n\n Game 1\n alice : 0                        : 0\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
        "  2)                             Losses 1 point\n"
        "      Wins 1 point and the match\n"
    )
    match = parse_mat(text)
    assert match.players == ("alice", "")
    assert (match.winner, match.final_score) == (0, (1, 0))
    assert warnings_of(match) == [("empty_name", 4, {"player": 2})]


# --- A player who resigns the whole match ---------------------------------------------

SEVEN = SHORT_MATCH.replace(" 3 point match", " 7 point match").split("\n Game 2")[0]
GAME_1_END = "  2)  Doubles => 2                Drops\n      Wins 1 point"


def resigned(lines: str) -> str:
    assert GAME_1_END in SEVEN
    return SEVEN.replace(GAME_1_END, lines)


def test_losses_then_wins_in_the_winners_column() -> None:
    # Bob leaves at 0-0 in a 7-point match, cube at 1: Galaxy writes 7 points.
    match = parse_mat(
        resigned(
            "  2)                             Losses 7 point\n      Wins 7 point and the match"
        )
    )
    last = match.games[-1]
    assert (match.winner, match.resigned, match.final_score) == (0, 1, (7, 0))
    # The game: a resignation at its highest level with the cube at 1.
    assert (last.end, last.result_name, last.result.points, last.stated_points) == (
        "resign",
        "koks",
        3,
        7,
    )
    assert warnings_of(match) == [
        ("wrong_points", 10, {"written": 7, "expected": 3}),
        ("match_resigned", 10, {"resigner": 2, "game": 1}),
    ]


def test_losses_then_wins_in_the_resigners_column() -> None:
    match = parse_mat(
        resigned(
            "  2)                             Losses 7 point\n"
            "                                 Wins 7 point and the match"
        )
    )
    assert (match.winner, match.resigned, match.final_score) == (0, 1, (7, 0))
    assert [code for code, _, _ in warnings_of(match)] == [
        "wins_column",
        "wrong_points",
        "match_resigned",
    ]
    assert warnings_of(match)[0] == ("wins_column", 10, {"resigner": 2, "resign_line": 9})


def test_losses_then_wins_far_to_the_right_on_the_same_line() -> None:
    match = parse_mat(
        resigned(
            "  2)  Losses 7 point" + " " * 47 + "Wins 7 point and the match",
        )
    )
    assert (match.winner, match.resigned, match.final_score) == (1, 0, (0, 7))
    assert warnings_of(match)[-1] == ("match_resigned", 9, {"resigner": 1, "game": 1})


def test_losses_with_a_value_the_resignation_gives() -> None:
    match = parse_mat(
        resigned(
            "  2)                             Losses 1 point\n      Wins 1 point and the match"
        )
    )
    assert (match.games[-1].result.points, match.winner, match.final_score) == (1, 0, (7, 0))
    assert warnings_of(match) == [("match_resigned", 10, {"resigner": 2, "game": 1})]
    data = replay_mat(
        resigned(
            "  2)                             Losses 1 point\n      Wins 1 point and the match"
        )
    )
    assert (data["winner"], data["resigned"], data["final_score"]) == (1, 2, [7, 0])
    assert data["warnings"][0]["data"] == {"resigner": 2, "game": 1}


def test_a_resigned_match_exports_and_reads_back_the_same() -> None:
    match = parse_mat(
        resigned(
            "  2)                             Losses 7 point\n      Wins 7 point and the match"
        )
    )
    again = parse_mat(export_mat(match))
    assert again.fingerprint() == match.fingerprint()
    assert again.resigned == 1


# --- Still refused ---------------------------------------------------------------------


def test_wins_and_the_match_naming_the_other_side_is_refused() -> None:
    # Bob dropped; a Wins ... and the match in Bob's column names the wrong match winner.
    text = SHORT_MATCH.replace(
        "      Wins 2 points and the match",
        "                                 Wins 2 points and the match",
    )
    assert refused(text) == ("wrong_winner", 18)


def test_and_the_match_on_a_game_without_resignation_is_refused() -> None:
    assert refused(resigned("      Wins 1 point and the match")) == ("not_match_won", 9)


def test_a_game_after_the_match_was_resigned_is_refused() -> None:
    text = resigned(
        "  2)                             Losses 1 point\n      Wins 1 point and the match"
    )
    text += "\n Game 2\n Anna Smith : 1                  bob_1,1500 : 0\n"
    assert refused(text) == ("match_over", 12)


def test_play_after_losses_is_refused() -> None:
    text = resigned(
        "  2)                             Losses 7 point\n  3) 62: 24/18 13/11\n"
        "      Wins 7 point and the match"
    )
    assert refused(text)[1] == 10


@pytest.mark.parametrize(
    "variant",
    [
        "  2)                             Losses 7 point\n      Wins 7 point and the match",
        "  2)  Losses 7 point" + " " * 47 + "Wins 7 point and the match",
    ],
)
def test_an_illegal_play_in_a_lenient_record_is_refused_at_its_line(variant: str) -> None:
    text = resigned(variant).replace("bob_1,1500 : 0", ": 0", 1)
    assert parse_mat(text).players[1] == ""
    broken = re.sub(r"42: 8/4 6/4", "42: 8/4 6/3", text)
    assert refused(broken) == ("dice_mismatch", 8)
    wrong_die = text.replace("31: 8/5 6/5", "32: 8/5 6/5")
    assert refused(wrong_die)[1] == 8


def test_losses_in_the_right_column_then_wins_further_right_on_the_same_line() -> None:
    match = parse_mat(
        resigned(
            "  2)                             Losses 7 point"
            + " " * 16
            + "Wins 7 point and the match"
        )
    )
    assert (match.winner, match.resigned, match.final_score) == (0, 1, (7, 0))
    assert [code for code, _, _ in warnings_of(match)] == [
        "wins_column",
        "wrong_points",
        "match_resigned",
    ]
    # Two other actions with the left column blank are still refused.
    text = resigned("  2)                             Doubles => 2" + " " * 8 + "Takes")
    assert refused(text) == ("bad_columns", 9)
