"""eXtreme Gammon ``.xg`` files made for the tests, with bgsage's own writer.

bgsage (``bgsage.xg_file``) builds XG's move, cube and game records from a
template record and saves the archive container; the match header, which
it only reads, is filled here at the offsets of XG's format
(``XG_format.pas``).  A match checked by the engine (a ``MatchRecord``) is
written as XG writes one: each checker play a move record, a double with
its answer a cube record before the doubler's next move, each game between
its header and footer.
"""

from __future__ import annotations

import struct
import tempfile
import zlib
from pathlib import Path

from bgsage import xg_file

from engine.records import record as rec
from engine.records.record import MatchRecord
from engine.rules import game as g
from engine.rules.board import Position

_LEVELS = {"single": 1, "gammon": 2, "mars": 2, "backgammon": 3, "koks": 3}


def _template(kind: int) -> bytearray:
    record = bytearray(xg_file.TSAVEREC_SIZE)
    record[8] = kind
    return record


def board(position: Position, side: int) -> list[int]:
    """``position`` from ``side``'s view as bgsage's board: the mover's checkers
    positive on their points 1-24, the opponent's negative, bars at 25 and 0."""
    mine, theirs = position.sides[side], position.sides[1 - side]
    return [theirs[25]] + [mine[p] - theirs[25 - p] for p in range(1, 25)] + [mine[25]]


def match_header(record: MatchRecord) -> bytes:
    header = _template(xg_file.TS_HEADER_MATCH)
    settings = record.settings
    variation = {"short": 0, "nackgammon": 1, "hypergammon": 2}[settings.variant.name]
    for side, name in enumerate(settings.players):
        ansi = name.encode("cp1252", "replace")[:40]
        at = (9, 50)[side]
        header[at] = len(ansi)
        header[at + 1 : at + 1 + len(ansi)] = ansi
        wide = name.encode("utf-16-le")[:256]
        at = (880, 1138)[side]
        header[at : at + len(wide)] = wide
    struct.pack_into("<ii", header, 92, record.length or 99999, variation)
    header[100] = settings.crawford_rule
    header[101] = settings.jacoby
    header[102] = settings.beaver
    struct.pack_into("<ii", header, 552, 30, xg_file.MAGIC_DMLI)
    return bytes(header)


def xg_records(record: MatchRecord) -> list[bytearray]:
    """The records of ``temp.xg`` for the match (mutable, for the tests to spoil)."""
    out = [bytearray(match_header(record))]
    score = [0, 0]
    start = record.settings.variant.start_position()
    for game in record.games:
        out.append(
            bytearray(
                xg_file.build_game_header(
                    _template(xg_file.TS_HEADER_GAME), board(start, 0), game.number, *score
                )
            )
        )
        position = start
        cube = 1
        owner = 0  # bgsage's cube_b: 0 centred, +-log2(cube) owned by player 1 or 2
        doubled: tuple[int, int] | None = None  # (doubler, answer)
        for action in game.actions:
            actif = 1 if action.side == 0 else -1
            if action.kind == rec.DOUBLE:
                doubled = (action.side, -1)
                continue
            if action.kind in (rec.TAKE, rec.DROP):
                assert doubled is not None
                doubler = doubled[0]
                out.append(
                    bytearray(
                        xg_file.build_cube_record(
                            _template(xg_file.TS_CUBE),
                            board(position, doubler),
                            1 if doubler == 0 else -1,
                            double=1,
                            take=1 if action.kind == rec.TAKE else 0,
                            cube_b=owner,
                        )
                    )
                )
                if action.kind == rec.TAKE:
                    cube *= 2
                    level = cube.bit_length() - 1
                    owner = level if action.side == 0 else -level
                doubled = None
                continue
            if action.kind != rec.PLAY:
                continue  # a roll before resigning: XG keeps no record of it
            assert action.play is not None and action.dice is not None
            after = action.play.position
            out.append(
                bytearray(
                    xg_file.build_move_record(
                        _template(xg_file.TS_MOVE),
                        board(position, action.side),
                        board(after, action.side),
                        action.dice[0],
                        action.dice[1],
                        [(s.origin, s.dest) for s in action.play.steps],
                        actif,
                    )
                )
            )
            position = after
        result = game.result
        score[result.winner] += result.points
        if result.end == g.END_PASS:
            termination = 0
        else:
            termination = _LEVELS[result.result_name]
            if result.end == g.END_RESIGN:
                termination += 100
        out.append(
            bytearray(
                xg_file.build_game_footer(
                    _template(xg_file.TS_FOOTER_GAME),
                    *score,
                    1 if result.winner == 0 else -1,
                    result.points,
                    termination,
                )
            )
        )
    footer = _template(xg_file.TS_FOOTER_MATCH)
    struct.pack_into("<ii", footer, 12, *score)
    out.append(footer)
    return out


def xg_archive(temp_xg: bytes) -> bytes:
    """An .xg file holding ``temp_xg`` (and its ``temp.xgi``), saved by bgsage."""
    prefix = bytearray(xg_file.RICH_HEADER_SIZE)
    struct.pack_into("<I", prefix, 0, xg_file.MAGIC_RGMH)
    archive = xg_file.XgArchive(bytes(prefix), [])
    archive.set("temp.xg", temp_xg)
    if len(temp_xg) >= xg_file.TSAVEREC_SIZE:
        archive.set("temp.xgi", xg_file.rebuild_xgi(temp_xg))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "match.xg"
        archive.save(path)
        return path.read_bytes()


def write_xg(record: MatchRecord) -> bytes:
    return xg_archive(b"".join(xg_records(record)))


def bomb() -> bytes:
    """An .xg whose records inflate to 64 MB: zeros, a few KB deflated."""
    prefix = bytearray(xg_file.RICH_HEADER_SIZE)
    struct.pack_into("<I", prefix, 0, xg_file.MAGIC_RGMH)
    zeros = bytes(64 * 2**20)
    entry = xg_file.ArchiveEntry("temp.xg", len(zeros), 0, zlib.compress(zeros, 9), compressed=True)
    archive = xg_file.XgArchive(bytes(prefix), [entry])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bomb.xg"
        archive.save(path)
        return path.read_bytes()
