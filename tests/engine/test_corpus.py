"""The shared corpus of real match records (``../shared/corpus``, read-only).

Every record imports with no false error and with the points it states;
GNU Backgammon's own importer (the ``gnubg`` package, a GPL test oracle)
reads the same games, plays and results, also from our exports; and copies
corrupted here (a die changed, a move altered, a line dropped) are each
reported at the exact line.  Whether a corrupted play is still legal is
decided by gnubg-nn's move generator, never by the engine under test.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import gnubg
import gnubg_nn
import pytest

from engine.records.matfile import (
    DOUBLE,
    DROP,
    PLAY,
    TAKE,
    MatError,
    MatMatch,
    export_mat,
    parse_mat,
)
from engine.records.notation import parse_moves
from engine.records.sgf import export_sgf, parse_sgf
from engine.rules.board import Position
from tests.engine.gnubg_oracle import to_gnubg

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
MAT_FILES = sorted(CORPUS.glob("mat/*/*.txt")) + sorted(CORPUS.glob("mat/*/*.mat"))
SGF_FILES = sorted(CORPUS.glob("mat/*/*.sgf"))

pytestmark = pytest.mark.skipif(not MAT_FILES, reason=f"no corpus under {CORPUS}")


def read(path: Path) -> MatMatch:
    return parse_mat(path.read_text(encoding="utf-8"))


def ids(path: Path) -> str:
    return path.name[:40]


# --- Every record imports with the points it states -------------------------------------


def test_the_corpus_is_all_there() -> None:
    assert len(MAT_FILES) == 24 and len(SGF_FILES) == 1


@pytest.mark.parametrize("path", MAT_FILES, ids=ids)
def test_record_imports_with_the_points_it_states(path: Path) -> None:
    match = read(path)
    assert match.warnings == ()
    score = [0, 0]
    for game in match.games:
        assert game.score_before == tuple(score)  # the file's score lines, checked on import
        result = game.result
        needed = match.length - score[result.winner]
        if game.capped:  # Galaxy's cap, only in the match's last game
            assert game is match.games[-1]
            assert game.stated_points == needed < result.points
        else:
            assert game.stated_points == result.points
        score[result.winner] += result.points
    if match.length == 16:  # Galaxy's money sessions, one game each
        assert len(match.games) == 1
    else:
        assert match.winner is not None
        assert max(match.final_score) == match.length


def test_corpus_facts_from_its_readme() -> None:
    matches = {path.name: read(path) for path in MAT_FILES}

    def site(match: MatMatch) -> str:
        return dict(match.settings.headers).get("Site", "")

    galaxy = [m for m in matches.values() if site(m) == "BackgammonGalaxy"]
    studio = [m for m in matches.values() if site(m) == "Backgammon Studio"]
    # The README counts 15 Galaxy and 8 Studio records; the files are 16 and 7.
    assert len(galaxy) == 16 and len(studio) == 7
    assert sum(g.capped for m in galaxy for g in m.games) == 4
    assert not any(g.capped for m in studio for g in m.games)
    plays = Counter(
        "none" if not a.moves else "played"
        for m in studio + galaxy
        for g in m.games
        for a in g.actions
        if a.kind == PLAY
    )
    assert plays["none"] > 100  # "Cannot Move" and Galaxy's bare "61:"
    for match in matches.values():
        # Crawford "On" in every header: the first game at N-1 is the Crawford game.
        assert dict(match.settings.headers).get("Crawford", "On") == "On"
        at_n_minus_1 = [g for g in match.games if match.length - 1 in g.score_before]
        expected = [at_n_minus_1[0].number] if at_n_minus_1 else []
        assert [g.number for g in match.games if g.crawford] == expected


# --- GNU Backgammon reads the same matches ---------------------------------------------------


def gnubg_import(path: Path, command: str = "import mat") -> dict[str, Any]:
    gnubg.command(f"{command} {path}")
    data: dict[str, Any] = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    return data


def movement(pairs: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The net change of the mover's checkers per point (bar 25, off 0)."""
    net: Counter[int] = Counter()
    for origin, dest in pairs:
        net[origin] -= 1
        net[dest] += 1
    return tuple(sorted((q, n) for q, n in net.items() if n))


def summary(match: MatMatch) -> list[tuple[object, ...]]:
    """Per game: score, winner, points, resigned, and each action as gnubg reports it."""
    out = []
    for game in match.games:
        actions: list[tuple[object, ...]] = []
        for a in game.actions:
            player = "XO"[a.side]
            if a.kind == PLAY:
                assert a.play is not None and a.dice is not None
                steps = ((s.origin, s.dest) for s in a.play.steps)
                actions.append((player, "move", tuple(sorted(a.dice)), movement(steps)))
            elif a.kind in (DOUBLE, TAKE, DROP):
                actions.append((player, a.kind))
        result = game.result
        out.append(
            (game.score_before, "XO"[result.winner], result.points, result.end == "resign", actions)
        )
    return out


def gnubg_summary(data: dict[str, Any]) -> list[tuple[object, ...]]:
    out = []
    for game in data["games"]:
        info = game["info"]
        actions: list[tuple[object, ...]] = []
        for a in game["game"]:
            if a["action"] == "move":
                dice = tuple(sorted(a["dice"]))
                actions.append((a["player"], "move", dice, movement(a["move"])))
            elif a["action"] in ("double", "take", "drop"):
                actions.append((a["player"], a["action"]))
        score = (info["score-X"], info["score-O"])
        out.append((score, info["winner"], info["points-won"], info["resigned"], actions))
    return out


@pytest.mark.parametrize("path", MAT_FILES, ids=ids)
def test_gnu_backgammon_reads_the_same_match(path: Path) -> None:
    assert summary(read(path)) == gnubg_summary(gnubg_import(path))


@pytest.mark.parametrize("path", MAT_FILES, ids=ids)
def test_gnu_backgammon_reads_our_export_as_the_original(path: Path, tmp_path: Path) -> None:
    match = read(path)
    exported = tmp_path / "export.mat"
    exported.write_text(export_mat(match), encoding="utf-8")
    assert gnubg_summary(gnubg_import(exported)) == summary(match)


@pytest.mark.parametrize("path", MAT_FILES, ids=ids)
def test_sgf_written_by_gnu_backgammon_reads_as_the_original(path: Path, tmp_path: Path) -> None:
    """GNU Backgammon imports the record and saves it as SGF (with its own
    Crawford-game marks and results); that SGF is the same match.  (The gnubg
    module crashes when it loads SGF, so it cannot read ours back.)"""
    saved = tmp_path / "gnubg.sgf"
    gnubg.command(f"import mat {path}")
    gnubg.command(f"save match {saved}")
    assert parse_sgf(saved.read_text(encoding="utf-8")).fingerprint() == read(path).fingerprint()


@pytest.mark.parametrize("path", MAT_FILES, ids=ids)
def test_import_export_import_is_the_same_match(path: Path) -> None:
    match = read(path)
    assert parse_mat(export_mat(match)).fingerprint() == match.fingerprint()
    assert parse_sgf(export_sgf(match)).fingerprint() == match.fingerprint()


@pytest.mark.parametrize("path", SGF_FILES, ids=ids)
def test_sgf_and_mat_of_the_same_match_import_alike(path: Path) -> None:
    from_sgf = parse_sgf(path.read_text(encoding="utf-8"))
    from_mat = read(path.with_suffix(".mat"))
    assert from_sgf.fingerprint() == from_mat.fingerprint()
    assert from_sgf.to_dict()["games"] == from_mat.to_dict()["games"]


# --- Corrupted copies: each reported at its line ----------------------------------------------

DICE = re.compile(r"(?<!\S)[1-6][1-6]:")
ACTION = re.compile(r"(?<!\S)(?:[1-6][1-6]:|[A-Z][a-z]+)")  # dice or a keyword
TOKEN = re.compile(r"(?P<origin>\d+|bar)/(?P<dest>\d+)(?=[*(\s]|$)")


def plays_with_positions(
    match: MatMatch,
) -> Iterator[tuple[int, int, tuple[int, int], Position, Position, bool]]:
    """(line, side, dice, position before, position after, opening) of every written play."""
    for game in match.games:
        position = match.settings.variant.start_position()
        first = True
        for a in game.actions:
            if a.kind == PLAY:
                assert a.play is not None and a.dice is not None
                if a.moves:
                    yield a.line, a.side, a.dice, position, a.play.position, first
                position = a.play.position
                first = False


def gnubg_keys(position: Position, side: int, dice: tuple[int, int]) -> set[str]:
    return set(gnubg_nn.moves(to_gnubg(position, side), dice[0], dice[1]))


def action_span(line: str, side: int) -> tuple[int, int]:
    """Where the ``side``'s play is written in a turn line."""
    starts = [m.start() for m in DICE.finditer(line)]
    start = starts[0] if side == 0 else starts[-1]
    following = [m.start() for m in ACTION.finditer(line) if m.start() > start]
    return start, following[0] if following else len(line)


def expect_error_at(text: str, line: int) -> MatError:
    with pytest.raises(MatError) as caught:
        parse_mat(text)
    assert caught.value.line == line, caught.value.reason
    return caught.value


CORRUPTED = [*MAT_FILES[::2], *MAT_FILES[-1:]]  # Studio, Galaxy and GNU Backgammon records


@pytest.mark.parametrize("path", CORRUPTED, ids=ids)
def test_a_changed_die_is_reported_at_its_line(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    rng = random.Random(path.name)
    plays = list(plays_with_positions(read(path)))
    checked = 0
    for number, side, dice, before, after, opening in rng.sample(plays, 12):
        which = rng.randrange(2)
        new = list(dice)
        new[which] = rng.choice([v for v in range(1, 7) if v != dice[which]])
        new_dice = (new[0], new[1])
        still_legal = gnubg_nn.key_of_board(to_gnubg(after, side)) in gnubg_keys(
            before, side, new_dice
        )
        if still_legal and not (opening and new[0] == new[1]):
            continue  # the record still makes sense: nothing to report
        start, _ = action_span(lines[number - 1], side)
        row = lines[number - 1]
        lines_copy = list(lines)
        lines_copy[number - 1] = row[: start + which] + str(new[which]) + row[start + which + 1 :]
        expect_error_at("\n".join(lines_copy), number)
        checked += 1
    assert checked >= 8


@pytest.mark.parametrize("path", CORRUPTED, ids=ids)
def test_an_altered_move_is_reported_at_its_line(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    rng = random.Random(path.name + "move")
    plays = list(plays_with_positions(read(path)))
    checked = 0
    for number, side, dice, before, _after, _opening in rng.sample(plays, 12):
        row = lines[number - 1]
        start, end = action_span(row, side)
        tokens = [m for m in TOKEN.finditer(row, start, end) if 1 <= int(m["dest"]) <= 24]
        if not tokens:
            continue
        token = rng.choice(tokens)
        dest = int(token["dest"]) + rng.choice((-1, 1))
        origin = 25 if token["origin"] == "bar" else int(token["origin"])
        if not 1 <= dest < origin:
            continue
        altered = row[: token.start("dest")] + str(dest) + row[token.end("dest") :]
        moves_text = altered[start : end + len(altered) - len(row)].split(":", 1)[1]
        mover = list(before.sides[side])
        for move in parse_moves(moves_text.replace("Cannot Move", "")):
            mover[move.origin] -= 1
            mover[move.dest] += 1
        legal_rows = {
            tuple(gnubg_nn.board_from_position_key(key)[1])
            for key in gnubg_keys(before, side, dice)
        }
        if tuple(mover[1:26]) in legal_rows:
            continue  # another legal play: nothing to report
        lines_copy = list(lines)
        lines_copy[number - 1] = altered
        expect_error_at("\n".join(lines_copy), number)
        checked += 1
    assert checked >= 6


TURN = re.compile(r"\s*\d+\)")
WINS_ALONE = re.compile(r"\s+Wins\s")
GAME = re.compile(r"\s*Game\s+\d+\s*$")


@pytest.mark.parametrize("path", CORRUPTED, ids=ids)
def test_a_dropped_line_is_reported_where_the_record_stops_making_sense(path: Path) -> None:
    """A dropped line is reported at the first line that cannot follow what
    precedes it: a turn line at the next turn line (its number skips one), a
    score line at the game's first turn line, a ``Game n`` line at the score
    line after it (text outside a game), a game's ``Wins`` line (on a line of
    its own) at the next ``Game n`` line (the game has no result)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    rng = random.Random(path.name + "drop")
    turns = [i for i in range(len(lines) - 1) if TURN.match(lines[i]) and TURN.match(lines[i + 1])]
    wins = [
        i
        for i, line in enumerate(lines)
        if WINS_ALONE.match(line) and any(GAME.match(x) for x in lines[i + 1 :])
    ]
    games = [i for i, line in enumerate(lines) if GAME.match(line)]
    cases = [(i, "turn_number") for i in rng.sample(turns, 4)]
    cases += [(i, "game_not_finished") for i in wins[:2]]
    cases += [(games[-1], "outside_game"), (games[-1] + 1, "no_score_line")]
    assert len(cases) >= 6
    for index, code in cases:
        corrupted = lines[:index] + lines[index + 1 :]
        if code == "game_not_finished":
            expected = next(i for i in range(index, len(corrupted)) if GAME.match(corrupted[i]))
        else:
            expected = index  # the line after the dropped one took its place
        error = expect_error_at("\n".join(corrupted), expected + 1)
        assert error.code == code
