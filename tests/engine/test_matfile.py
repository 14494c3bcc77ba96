"""The .mat importer, checker and exporter (engine.records.matfile)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from engine import movegen
from engine.errors import EngineError
from engine.records.match_builder import written_play
from engine.records.matfile import (
    BEAVER,
    DOUBLE,
    DROP,
    PLAY,
    ROLL,
    TAKE,
    MatError,
    MatMatch,
    export_mat,
    parse_mat,
    replay_mat,
)
from engine.records.notation import format_play, parse_moves
from engine.rules import game as g
from engine.rules.board import BAR, OFF, Position
from engine.rules.dice import SeededDice
from engine.rules.plays import Move, Play
from engine.rules.variants import HYPERGAMMON, NACKGAMMON, SHORT, Variant
from tests.engine.differential import sample_positions

# --- Random legal matches written in each dialect -------------------------------------
# Independent of export_mat: each program's quirks (Galaxy's each-die-separately plays
# with 25/0 and Losses, Studio's right column at 40 and Cannot Move, full chains, CRLF and
# trailing spaces), so the importer is tested on text it did not write itself.


@dataclass
class GenAction:
    side: int
    kind: str
    dice: tuple[int, int] | None = None
    play: Play | None = None
    value: int | None = None


@dataclass
class GenGame:
    score_before: tuple[int, int]
    crawford: bool
    actions: list[GenAction]
    result: g.GameResult
    resigner_rolled: bool = False  # the resignation came after a roll


@dataclass
class GenMatch:
    length: int
    variant: Variant
    crawford_rule: bool
    jacoby: bool
    beaver: bool
    players: tuple[str, str]
    games: list[GenGame] = field(default_factory=list)

    @property
    def score(self) -> tuple[int, int]:
        score = [0, 0]
        for game in self.games:
            score[game.result.winner] += game.result.points
        return score[0], score[1]


def random_match(
    seed: int,
    *,
    length: int = 5,
    variant: Variant = SHORT,
    crawford_rule: bool = True,
    jacoby: bool = False,
    beaver: bool = False,
    max_games: int = 5,
    players: tuple[str, str] = ("Anna Smith", "bob_1,1500"),
    resign_rate: float = 0.01,
) -> GenMatch:
    """A match of random legal games, with random doubles, takes, drops,
    beavers (money play only) and resignations (some after a roll)."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    money = length == 0
    rules = g.GameRules(variant, jacoby=money and jacoby, beaver=money and beaver)
    match = GenMatch(length, variant, crawford_rule, jacoby, beaver, players)
    crawford_played = False
    while len(match.games) < max_games and (money or max(match.score) < length):
        score = match.score
        crawford = bool(crawford_rule and length and not crawford_played and length - 1 in score)
        crawford_played = crawford_played or crawford
        context = g.MatchContext(length, score) if length else None
        state = g.opening_roll(g.new_game(rules, crawford=crawford, match_context=context), dice)
        actions: list[GenAction] = []
        rolled = False
        while not state.finished:
            side = state.turn
            assert side is not None
            if state.phase is g.Phase.ROLL:
                if g.can_double(state) and rng.random() < 0.07:
                    state = g.double(state)
                    assert state.offer is not None
                    actions.append(GenAction(side, DOUBLE, value=state.offer.value))
                    if beaver and money and rng.random() < 0.3:
                        state = g.beaver(state)
                        assert state.offer is not None
                        actions.append(GenAction(1 - side, BEAVER, value=state.offer.value))
                    assert state.offer is not None
                    responder = state.offer.responder
                    if rng.random() < 0.75:
                        state = g.take(state)
                        actions.append(GenAction(responder, TAKE, value=state.cube))
                    else:
                        state = g.pass_(state)
                        actions.append(GenAction(responder, DROP))
                    continue
                if state.turn_number > 6 and rng.random() < resign_rate:
                    state = _resign(rng, state)
                    continue
                state = g.roll(state, dice)
            plays = g.legal_plays(state)
            roll = (state.dice[0], state.dice[1])
            if state.turn_number > 6 and plays[0].steps and rng.random() < resign_rate:
                actions.append(GenAction(side, ROLL, roll))
                state = _resign(rng, state)
                rolled = True
                continue
            play = rng.choice(plays)
            state = g.choose_play(state, play)
            actions.append(GenAction(side, PLAY, roll, play))
        assert state.result is not None
        match.games.append(GenGame(score, crawford, actions, state.result, rolled))
    return match


def _resign(rng: random.Random, state: g.GameState) -> g.GameState:
    level = rng.choice(["single", "single", "mars", "koks"])
    return g.accept_resignation(g.resign(state, level))


@dataclass(frozen=True)
class Dialect:
    name: str
    right: int = 33  # column of the right player's actions
    plays: str = "gnubg"  # gnubg | galaxy (each die, 25/0) | studio | chains
    wins_numbered: bool = False  # "n)  Wins 1 point" (Studio)
    losses: bool = False  # the resigner writes "Losses n point" (Galaxy)
    cap: bool = False  # Wins capped at the points needed in the match's last game
    unknown_roll: bool = False  # a roll before resigning written "????"
    newline: str = "\n"
    trailing: str = ""
    studio_numbers: bool = False  # "  10)" instead of " 10)"
    plural: bool = True  # "points" (GNU) or always "point" (Galaxy)


DIALECTS = (
    Dialect("gnubg"),
    Dialect("galaxy", plays="galaxy", losses=True, cap=True, plural=False),
    Dialect(
        "studio",
        right=40,
        plays="studio",
        wins_numbered=True,
        studio_numbers=True,
        plural=False,
        newline="\r\n",
    ),
    Dialect("chains", plays="chains", unknown_roll=True, trailing="   "),
)


def _point(q: int, numbers: bool) -> str:
    if q == BAR:
        return "25" if numbers else "bar"
    if q == OFF:
        return "0" if numbers else "off"
    return str(q)


def play_text(play: Play, style: str) -> str:
    if not play.steps:
        return "Cannot Move" if style == "studio" else ""
    if style == "galaxy":
        return " ".join(f"{_point(s.origin, True)}/{_point(s.dest, True)}" for s in play.steps)
    if style == "chains":
        # Each checker's steps as one journey naming every landing, hits starred.
        chains: list[list[tuple[int, bool]]] = []
        for step in play.steps:
            for chain in chains:
                if chain[-1][0] == step.origin and chain[-1][0] != OFF:
                    chain.append((step.dest, step.hit))
                    break
            else:
                chains.append([(step.origin, False), (step.dest, step.hit)])
        return " ".join(
            "/".join(_point(q, False) + ("*" if hit else "") for q, hit in chain)
            for chain in chains
        )
    return format_play(play)


def _cell(action: GenAction, d: Dialect) -> str:
    if action.kind == PLAY:
        assert action.play is not None and action.dice is not None
        moves = play_text(action.play, d.plays)
        return f"{action.dice[0]}{action.dice[1]}:" + (f" {moves}" if moves else "")
    if action.kind == ROLL:
        assert action.dice is not None
        return "????" if d.unknown_roll else f"{action.dice[0]}{action.dice[1]}:"
    if action.kind == DOUBLE:
        return f" Doubles => {action.value}"
    if action.kind == BEAVER:
        return f" Beavers => {action.value}"
    return {TAKE: " Takes", DROP: " Drops"}[action.kind]


def _points(n: int, d: Dialect) -> str:
    return f"{n} point{'s' if d.plural and n != 1 else ''}"


def stated_points(match: GenMatch, index: int, d: Dialect) -> int:
    game = match.games[index]
    points = game.result.points
    if d.cap and match.length:
        needed = match.length - game.score_before[game.result.winner]
        return min(points, needed)
    return points


def _put(rows: list[list[str]], side: int, text: str) -> None:
    """Fill the next cell: a left action always opens a new turn line."""
    if side == 0 or not rows or rows[-1][1]:
        rows.append(["", ""])
    rows[-1][side] = text


def write_mat(match: GenMatch, d: Dialect, *, headers: bool = True) -> str:
    lines: list[str] = []
    if headers:
        lines.append('; [Site "test"]')
        lines.append(f'; [Player 1 "{match.players[0]}"]')
        lines.append(f'; [Player 2 "{match.players[1]}"]')
        lines.append(
            f'; [Variation "{match.variant.name.capitalize()}"]'.replace("Short", "Backgammon")
        )
        lines.append(f'; [Crawford "{"On" if match.crawford_rule else "Off"}"]')
        if match.jacoby:
            lines.append('; [Jacoby "On"]')
        if match.beaver:
            lines.append('; [Beaver "On"]')
        lines.append("")
    lines += [f"{match.length} point match", ""]
    for index, game in enumerate(match.games):
        lines.append(f" Game {index + 1}")
        left = f" {match.players[0]} : {game.score_before[0]}"
        lines.append(f"{left:<{d.right}}{match.players[1]} : {game.score_before[1]}")
        rows: list[list[str]] = []
        for action in game.actions:
            _put(rows, action.side, _cell(action, d))
        result = game.result
        stated = stated_points(match, index, d)
        won = (
            bool(match.length) and game.score_before[result.winner] + result.points >= match.length
        )
        wins = f" Wins {_points(stated, d)}{' and the match' if won else ''}"
        own_line = True
        if result.end == g.END_RESIGN and d.losses:
            _put(rows, 1 - result.winner, f" Losses {_points(stated, d)}")
            if result.winner == 1:
                _put(rows, 1, wins)
                own_line = False
        if own_line and d.wins_numbered:
            _put(rows, result.winner, wins)
            own_line = False
        for k, (first, second) in enumerate(rows, start=1):
            number = f"  {k})" if d.studio_numbers else f"{k:3d})"
            text = f"{number} {first}"
            if second:
                text = f"{text:<{d.right}}" if len(text) < d.right else text + " "
                text += second
            lines.append(text)
        if own_line:
            column = 5 if result.winner == 0 else d.right
            lines.append(" " * column + wins)
        lines.append("")
    return d.newline.join(line + d.trailing if line else line for line in lines) + d.newline


def expected_actions(
    match: GenMatch, index: int, d: Dialect
) -> list[tuple[int, str, tuple[int, int] | None, object, int | None]]:
    """The checked actions an import of ``write_mat(match, d)`` should give for a game."""
    out = []
    for a in match.games[index].actions:
        if a.kind == ROLL and d.unknown_roll:
            continue
        position = a.play.position if a.play is not None else None
        out.append((a.side, a.kind, a.dice, position, a.value if a.kind != DROP else None))
    return out


def checked_actions(match: MatMatch, index: int) -> list[tuple[object, ...]]:
    return [
        (a.side, a.kind, a.dice, None if a.play is None else a.play.position, a.value)
        for a in match.games[index].actions
    ]


def assert_reads_back(gen: GenMatch, d: Dialect) -> MatMatch:
    text = write_mat(gen, d)
    match = parse_mat(text)
    assert match.players == gen.players
    assert len(match.games) == len(gen.games)
    for index, (ours, theirs) in enumerate(zip(match.games, gen.games, strict=True)):
        assert ours.score_before == theirs.score_before
        assert ours.crawford == theirs.crawford
        assert checked_actions(match, index) == expected_actions(gen, index, d)
        assert ours.result.winner == theirs.result.winner
        assert ours.result.end == theirs.result.end
        stated = stated_points(gen, index, d)
        assert ours.stated_points == stated
        if stated < theirs.result.points:  # capped: a resignation's level is then a guess
            assert ours.result.points >= stated
        else:
            assert ours.result.points == theirs.result.points
            assert ours.result.cube == theirs.result.cube
            if not theirs.result.jacoby:
                assert ours.result.result_name == theirs.result.result_name
    assert match.warnings == ()
    return match


# --- Dialects, on random legal matches ---------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@pytest.mark.parametrize("seed", range(6))
def test_random_match_in_each_dialect_reads_back(dialect: Dialect, seed: int) -> None:
    gen = random_match(seed, length=7, resign_rate=0.02)
    match = assert_reads_back(gen, dialect)
    assert match.final_score == tuple(min(s, 7) for s in gen.score)


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_money_session_with_jacoby_and_beavers(dialect: Dialect) -> None:
    gen = random_match(11, length=0, jacoby=True, beaver=True, max_games=6, resign_rate=0.02)
    kinds = {a.kind for game in gen.games for a in game.actions}
    assert "beaver" in kinds  # the seed exercises beavers
    match = assert_reads_back(gen, dialect)
    assert match.winner is None
    assert match.final_score == gen.score
    assert replay_mat(write_mat(gen, dialect))["winner"] is None


def test_jacoby_scores_an_uncubed_mars_as_one() -> None:
    gens = [random_match(seed, length=0, jacoby=True, max_games=4) for seed in range(12)]
    jacoby_games = [game for gen in gens for game in gen.games if game.result.jacoby]
    assert jacoby_games  # random play makes marses
    for gen in gens:
        match = assert_reads_back(gen, DIALECTS[0])
        for ours in match.games:
            if ours.result.jacoby:
                assert ours.result.points == ours.result.cube == 1
                assert ours.result.result_name in ("mars", "koks")


def test_hypergammon_match_reads_back() -> None:
    gen = random_match(8, length=5, variant=HYPERGAMMON)
    match = assert_reads_back(gen, DIALECTS[1])
    assert match.settings.variant is HYPERGAMMON


def test_nackgammon_match_reads_back_and_needs_its_header() -> None:
    gen = random_match(5, length=3, variant=NACKGAMMON)
    match = assert_reads_back(gen, DIALECTS[0])
    assert match.settings.variant is NACKGAMMON
    text = write_mat(gen, DIALECTS[0]).replace("Nackgammon", "Backgammon")
    with pytest.raises(MatError):  # Nackgammon's plays are not all legal from backgammon's start
        parse_mat(text)


def test_crawford_off_allows_doubling_when_a_player_needs_one_point() -> None:
    for seed in range(60):
        gen = random_match(seed, length=3, crawford_rule=False, max_games=8)
        first = next((game for game in gen.games if 2 in game.score_before), None)
        if first is not None and any(a.kind == DOUBLE for a in first.actions):
            break
    else:
        pytest.fail("no seed doubles in the first game at 2-away in a 3-point match")
    match = assert_reads_back(gen, DIALECTS[0])
    assert not any(game.crawford for game in match.games)
    with pytest.raises(MatError) as caught:
        parse_mat(write_mat(gen, DIALECTS[0]).replace('"Off"', '"On"'))
    assert caught.value.code == "crawford_game"


# --- Format details on small records -------------------------------------------------

SHORT_MATCH = """\
; [Player 1 "Anna Smith"]
; [Player 2 "bob_1,1500"]

 3 point match

 Game 1
 Anna Smith : 0                  bob_1,1500 : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point

 Game 2
 Anna Smith : 1                  bob_1,1500 : 0
  1)                             64: 24/18 13/9
  2) 66: 24/18(2) 13/7*(2)        Doubles => 2
  3)  Takes                      31: 25/22 24/23
  4)  Doubles => 4                Drops
      Wins 2 points and the match
"""


def test_small_match_as_json() -> None:
    assert replay_mat(SHORT_MATCH) == {
        "match_length": 3,
        "players": ["Anna Smith", "bob_1,1500"],
        "variant": "short",
        "games": [
            {
                "number": 1,
                "score_before": [0, 0],
                "crawford": False,
                "winner": 1,
                "result": "single",
                "cube": 1,
                "points": 1,
                "stated_points": 1,
                "end": "drop",
            },
            {
                "number": 2,
                "score_before": [1, 0],
                "crawford": False,
                "winner": 1,
                "result": "single",
                "cube": 2,
                "points": 2,
                "stated_points": 2,
                "end": "drop",
            },
        ],
        "winner": 1,
        "resigned": None,
        "final_score": [3, 0],
        "warnings": [],
    }


def test_utf8_names() -> None:
    text = SHORT_MATCH.replace("Anna Smith", "Анна Смирнова").replace("bob_1,1500", "Бо́рис_1")
    match = parse_mat(text)
    assert match.players == ("Анна Смирнова", "Бо́рис_1")
    assert parse_mat(export_mat(match)).fingerprint() == match.fingerprint()


def test_crlf_bom_trailing_spaces_and_match_of_n_points() -> None:
    text = "\ufeff" + SHORT_MATCH.replace(" 3 point match", "Match of 3 points")
    text = "\r\n".join(line + "  " for line in text.splitlines()) + "\r\n"
    assert parse_mat(text).fingerprint() == parse_mat(SHORT_MATCH).fingerprint()


def test_two_actions_split_on_one_space_after_an_overflowing_play() -> None:
    text = SHORT_MATCH.replace(
        "  1) 31: 8/5 6/5                 42: 8/4 6/4",
        "  1) 31: 8/5 6/5 42: 8/4 6/4",
    )
    assert parse_mat(text).fingerprint() == parse_mat(SHORT_MATCH).fingerprint()


def test_right_column_at_forty_and_wins_on_a_numbered_line() -> None:
    text = SHORT_MATCH.replace(
        "  1) 31: 8/5 6/5                 42: 8/4 6/4",
        "  1) 31: 8/5 6/5                        42: 8/4 6/4",
    ).replace(
        "  2)  Doubles => 2                Drops\n      Wins 1 point",
        "  2)  Doubles => 2   Drops\n  3)  Wins 1 point",
    )
    assert parse_mat(text).fingerprint() == parse_mat(SHORT_MATCH).fingerprint()


def test_cube_answer_synonyms() -> None:
    text = SHORT_MATCH.replace("Drops\n      Wins 1", "Passes\n      Wins 1").replace(
        "  3)  Takes", "  3)  Accepts"
    )
    assert parse_mat(text).fingerprint() == parse_mat(SHORT_MATCH).fingerprint()


def test_galaxy_numbers_bar_25_off_0_and_each_die_separately() -> None:
    text = SHORT_MATCH.replace("66: 24/18(2) 13/7*(2)", "66: 24/18 24/18 13/7 13/7").replace(
        "31: 25/22 24/23", "31: 25/22 24/23"
    )
    assert parse_mat(text).fingerprint() == parse_mat(SHORT_MATCH).fingerprint()
    assert "bar/22" in export_mat(parse_mat(text))


def test_chains_and_their_shortcuts_are_the_same_play() -> None:
    readings = [
        parse_mat(SHORT_MATCH.replace("42: 8/4 6/4", f"42: {moves}"))
        for moves in ("13/9/7", "13/11/7", "13/7", "13/9 9/7")
    ]
    assert len({m.fingerprint() for m in readings}) == 1
    bob = readings[0].games[0].actions[1].play
    assert bob is not None and format_play(bob) == "13/7"


def test_losses_and_other_resignation_words() -> None:
    base = SHORT_MATCH.replace(
        "  4)  Doubles => 4                Drops\n      Wins 2 points and the match",
        "  4) {word}\n      Wins 4 points and the match",
    )
    for word in ("Losses 4 point", "Resigns", "Forfeits", "Lost on time"):
        text = base.replace("{word}", f"                             {word}")
        match = parse_mat(text)
        last = match.games[-1]
        assert (last.end, last.result_name, last.result.points) == ("resign", "mars", 4)
        assert last.result.winner == 0
    # Losses and Wins disagree: the Wins (what the winner scored) is read, with a warning.
    match = parse_mat(base.replace("{word}", "                             Losses 2 point"))
    assert match.games[-1].result.points == 4
    assert [(w.code, w.line, w.data) for w in match.warnings] == [
        ("resign_points", 18, {"written": 4, "expected": 2})
    ]


def test_roll_before_resigning() -> None:
    for roll in ("????", "52:"):
        text = SHORT_MATCH.replace(
            "  4)  Doubles => 4                Drops\n      Wins 2 points and the match",
            f"  4) {roll}\n                                  Wins 2 points",
        )
        match = parse_mat(text)
        last = match.games[-1]
        assert (last.result.winner, last.end, last.result.points) == (1, "resign", 2)
        kinds = [a.kind for a in last.actions]
        assert kinds[-1] == (ROLL if roll == "52:" else PLAY)
    # A roll with no move that is not right before the result is a missed play.
    text = SHORT_MATCH.replace(
        "  3)  Takes                      31: 25/22 24/23", "  3)  Takes                      31:"
    )
    with pytest.raises(MatError) as caught:
        parse_mat(text)
    assert (caught.value.code, caught.value.line) == ("must_play", 16)


def test_illegal_play_junk_is_a_warning() -> None:
    text = SHORT_MATCH.replace(
        "  2)  Doubles => 2",
        "      Illegal play (13/7 13/7)\n  2)  Doubles => 2",
    )
    match = parse_mat(text)
    assert [(w.line, w.code) for w in match.warnings] == [(9, "illegal_play_note")]
    assert match.fingerprint() == parse_mat(SHORT_MATCH).fingerprint()


def test_money_session_beaver_and_zero_point_match() -> None:
    text = """\
; [Beaver "On"]

0 point match

 Game 1
 A : 0                           B : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Beavers => 4
  3)  Drops
                                  Wins 2 points
"""
    match = parse_mat(text)
    assert match.length == 0 and match.winner is None
    assert match.games[0].result.points == 2 and match.games[0].end == "drop"
    with pytest.raises(MatError) as caught:  # no beavers in a match
        parse_mat(text.replace("0 point match", "3 point match"))
    assert (caught.value.code, caught.value.line) == ("beaver_not_allowed", 8)


# --- Discrepancies, each at its line ---------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "code", "line"),
    [
        ("42: 8/4 6/4", "42: 8/4 6/3", "dice_mismatch", 8),  # 6/3 is not a 4 or a 2
        ("42: 8/4 6/4", "42: 8/4 8/4", "dice_mismatch", 8),
        ("31: 8/5 6/5", "31: 8/5 6/5 6/5", "dice_mismatch", 8),
        ("64: 24/18 13/9", "64: 24/18", "must_play_both", 14),
        ("42: 8/4 6/4", "42: 7/3 6/4", "no_checker", 8),
        ("Doubles => 2                Drops", "Doubles => 4                Drops", "cube_value", 9),
        ("  2) 66:", "  3) 66:", "turn_number", 15),
        (" Game 2", " Game 3", "game_number", 12),
        ("Wins 1 point\n", "Wins 1 point and the match\n", "not_match_won", 10),
        ("      Wins 1 point\n", "", "game_not_finished", 11),
        (
            "  4)  Doubles => 4                Drops",
            "  4)                             Doubles => 4",
            "out_of_turn",
            17,
        ),
        ("66: 24/18(2) 13/7*(2)", "66: 24/18*(2) 13/7*(2)", "false_hit", 15),
        ("66: 24/18(2) 13/7*(2)", "66: 24/18(2) 13/7(2) 6/0", "dice_mismatch", 15),
        ("\n 3 point match", "\n 3 point game", "no_match_line", 6),
        ("  1) 31: 8/5 6/5 ", "  1) 33: 8/5 6/5 8/5 6/5 ", "opening_double", 8),
    ],
)
def test_discrepancy_reported_at_its_line(old: str, new: str, code: str, line: int) -> None:
    assert old in SHORT_MATCH
    with pytest.raises(MatError) as caught:
        parse_mat(SHORT_MATCH.replace(old, new, 1))
    assert (caught.value.code, caught.value.line) == (code, line)
    assert caught.value.as_dict()["line"] == line
    assert caught.value.reason.startswith(f"line {line}: ")


@pytest.mark.parametrize(
    ("old", "new", "code", "line", "data"),
    [
        ("Wins 1 point", "Wins 2 point", "wrong_points", 10, {"written": 2, "expected": 1}),
        (
            "bob_1,1500 : 0\n  1)    ",
            "bob_1,1500 : 1\n  1)    ",
            "score_mismatch",
            13,
            {"written": [1, 1], "expected": [1, 0]},
        ),
        # Game 1's Wins in Bob's column after Bob dropped: Anna won it all the same.
        (
            "      Wins 1 point",
            "                                 Wins 1 point",
            "wrong_winner",
            10,
            {"written": 2, "expected": 1},
        ),
    ],
)
def test_a_written_value_the_games_contradict_is_a_warning(
    old: str, new: str, code: str, line: int, data: dict[str, object]
) -> None:
    """Lenient where the file only repeats what the plays give: the engine's
    values are kept, the disagreement is a warning at its line."""
    assert old in SHORT_MATCH
    match = parse_mat(SHORT_MATCH.replace(old, new, 1))
    assert [(w.code, w.line, w.data) for w in match.warnings] == [(code, line, data)]
    assert match.fingerprint() == parse_mat(SHORT_MATCH).fingerprint()
    assert replay_mat(SHORT_MATCH.replace(old, new, 1))["warnings"][0]["code"] == code


def test_game_after_the_match_is_over() -> None:
    text = SHORT_MATCH + "\n Game 3\n Anna Smith : 3                  bob_1,1500 : 0\n"
    with pytest.raises(MatError) as caught:
        parse_mat(text)
    assert (caught.value.code, caught.value.line) == ("match_over", 20)


def test_double_in_the_crawford_game() -> None:
    # 1-0 in a 2-point match: game 2 is the Crawford game, and Bob doubles in it.
    two_point = SHORT_MATCH.replace(" 3 point match", " 2 point match")
    with pytest.raises(MatError) as caught:
        parse_mat(two_point)
    assert (caught.value.code, caught.value.line) == ("crawford_game", 15)
    crawford_off = replay_mat('; [Crawford "Off"]\n' + two_point)
    assert [game["crawford"] for game in crawford_off["games"]] == [False, False]
    assert (crawford_off["winner"], crawford_off["final_score"]) == (1, [2, 0])


def test_wins_below_the_game_value_only_as_the_points_needed() -> None:
    resigned = SHORT_MATCH.replace(
        "  4)  Doubles => 4                Drops\n      Wins 2 points and the match",
        "  4)                             Resigns\n      Wins 2 points and the match",
    )
    # Cube 2, Anna needs 2: "Wins 2" is a single resignation, nothing capped.
    last = parse_mat(resigned).games[-1]
    assert (last.result_name, last.result.points, last.capped) == ("single", 2, False)
    # In a 2-point match Anna needs 1: "Wins 1" at cube 2 is Galaxy's cap.
    one_away = '; [Crawford "Off"]\n' + resigned.replace(" 3 point match", " 2 point match")
    last = parse_mat(one_away.replace("Wins 2 points and", "Wins 1 point and")).games[-1]
    assert (last.result_name, last.result.points, last.capped) == ("single", 2, True)
    dropped = SHORT_MATCH.replace(" 3 point match", " 2 point match").replace(
        "Wins 2 points and", "Wins 1 point and"
    )
    last = parse_mat('; [Crawford "Off"]\n' + dropped).games[-1]
    assert (last.end, last.result.points, last.stated_points, last.capped) == ("drop", 2, 1, True)
    # Where Anna needs more than what is written, a lower Wins is a warning: the
    # engine's value (the dropped double at 2) is kept.
    match = parse_mat(
        SHORT_MATCH.replace(" 3 point match", " 5 point match").replace(
            "Wins 2 points and the match", "Wins 1 point"
        )
    )
    assert (match.games[-1].result.points, match.games[-1].capped) == (2, False)
    assert [(w.code, w.line, w.data) for w in match.warnings] == [
        ("wrong_points", 18, {"written": 1, "expected": 2})
    ]


def test_unknown_action_and_unsupported_variation() -> None:
    with pytest.raises(MatError) as caught:
        parse_mat(SHORT_MATCH.replace("Drops", "Shrugs"))
    assert (caught.value.code, caught.value.line) == ("bad_action", 9)
    with pytest.raises(MatError) as caught:
        parse_mat('; [Variation "Tavla"]\n' + SHORT_MATCH)
    assert (caught.value.code, caught.value.line) == ("unsupported_variation", 1)


# --- Export ----------------------------------------------------------------------------


def test_export_layout_is_gnu_backgammons() -> None:
    lines = export_mat(parse_mat(SHORT_MATCH)).splitlines()
    assert lines[:3] == ['; [Player 1 "Anna Smith"]', '; [Player 2 "bob_1,1500"]', ""]
    assert lines[3] == " 3 point match"
    score = lines[lines.index(" Game 1") + 1]
    assert score.startswith(" Anna Smith : 0 ") and score.index("bob_1,1500 : 0") == 32
    for line in (
        "  1) 31: 8/5 6/5                 42: 8/4 6/4",  # right column at 33
        "  2)  Doubles => 2                Drops",  # cube actions one space in
        "      Wins 1 point",
        "  1)                             64: 24/18 13/9",
        "  2) 66: 24/18(2) 13/7*(2)        Doubles => 2",
        "  3)  Takes                      31: bar/22 24/23",
        "      Wins 2 points and the match",
    ):
        assert line in lines


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_import_export_import_is_the_same_match(dialect: Dialect) -> None:
    for seed in range(3):
        match = parse_mat(write_mat(random_match(100 + seed, length=5), dialect))
        again = parse_mat(export_mat(match))
        assert again.fingerprint() == match.fingerprint()
        assert export_mat(again) == export_mat(match)


# --- Matching written plays --------------------------------------------------------------


def test_written_play_agrees_with_find_play() -> None:
    """The fast matcher takes and refuses what movegen.find_play does, with
    the same position, on random positions and plays written each die
    separately, as GNU Backgammon writes them, and with one landing moved."""
    rng = random.Random(5)
    compared = refused = 0
    for position, side, dice in sample_positions(700, 17, SHORT, random_rolls=True):
        play = rng.choice(movegen.legal_plays(SHORT, position, side, dice))
        writings = [[Move(s.origin, s.dest) for s in play.steps]]
        if play.steps:
            writings.append(parse_moves(format_play(play)))
            k = rng.randrange(len(play.steps))
            dest = play.steps[k].dest + rng.choice((-1, 1))
            if 0 < dest < play.steps[k].origin:
                writings.append(
                    [Move(s.origin, dest if i == k else s.dest) for i, s in enumerate(play.steps)]
                )
        for moves in writings:
            outcomes = []
            for matcher in (written_play, movegen.find_play):
                try:
                    outcomes.append(matcher(SHORT, position, side, dice, moves).position)
                except EngineError as error:
                    outcomes.append(error.code)
            assert outcomes[0] == outcomes[1], (dice, moves)
            compared += 1
            refused += isinstance(outcomes[0], str)
    assert compared > 1500 and refused > 100


def test_chain_through_a_blot_hits_only_where_written() -> None:
    # White 6-5 from 13 with Black blots on White's 7 and 8: 13/2 passes one of them.
    position = Position.from_points({13: 1, 6: 14}, {25 - 7: 1, 25 - 8: 1, 24: 13})
    through_8 = written_play(SHORT, position, 0, (6, 5), parse_moves("13/8 8/2"))
    through_7 = written_play(SHORT, position, 0, (6, 5), parse_moves("13/7 7/2"))
    unmarked = written_play(SHORT, position, 0, (6, 5), parse_moves("13/2"))
    assert [s.dest for s in through_8.steps if s.hit] == [8]
    assert [s.dest for s in through_7.steps if s.hit] == [7]
    assert len([s for s in unmarked.steps if s.hit]) == 1  # both routes hit once
    assert through_7.position != through_8.position
    with pytest.raises(EngineError) as caught:
        written_play(SHORT, position, 0, (6, 5), parse_moves("13/7 7/2*"))
    assert caught.value.code == "false_hit"


def test_every_written_action_kind_is_kept() -> None:
    match = parse_mat(SHORT_MATCH)
    kinds = [a.kind for game in match.games for a in game.actions]
    assert kinds == [PLAY, PLAY, DOUBLE, "drop", PLAY, PLAY, DOUBLE, "take", PLAY, DOUBLE, "drop"]
    assert match.games[0].result.end == g.END_PASS


def test_read_players_reads_as_far_as_game_ones_score_line() -> None:
    """The names as ``parse_mat`` reads them, without the games: a file broken after
    game 1's score line still names its players; one broken before is refused there."""
    from engine.records.matfile import read_players
    from tests.engine.test_corpus import CORPUS

    head = " 3 point match\n\n Game 1\n Anna : 0                  Bob : 0\n"
    assert read_players(head + "  1) 31: 8/5 6/5   zz: nonsense\n") == ("Anna", "Bob")
    with pytest.raises(MatError) as late:
        parse_mat(head + "  1) 31: 8/5 6/5   zz: nonsense\n")
    assert late.value.line == 5
    with pytest.raises(MatError) as early:
        read_players(" 3 point match\n\n Game 1\n  1) 31: 8/5 6/5\n")
    assert (early.value.code, early.value.line) == ("no_score_line", 4)
    written = sorted(CORPUS.rglob("*.mat")) + sorted(CORPUS.rglob("*.txt"))
    assert len(written) >= 20
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert read_players(text) == parse_mat(text).players
