"""eXtreme Gammon ``.xg`` match files read into the engine's match record.

The one place that imports bgsage (MPL-2.0), whose ``xg_file`` module reads
XG's archive container and its 2560-byte records as XG's published format
(``XG_format.pas``, ``ZLibArchive.pas``) declares them.  Every checker play,
dice roll and cube action is then replayed by the engine's
``MatchBuilder``, as for ``.mat`` files: an illegal play is refused at its
game and turn, with the engine's reason.

What bgsage's reader leaves out (the players' Unicode names, the variation
and Crawford rule of the match header, the played move of a move record, a
game footer's result) is read here at the offsets of the same declarations,
named beside bgsage's own constants.  A hostile file cannot make this read
more than ``MAX_BYTES`` nor inflate more than ``MAX_RECORDS`` records: the
archive's sizes are checked, and its parts inflated, with bounds before
bgsage sees it.
"""

from __future__ import annotations

import datetime as dt
import math
import struct
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from base.engine_messages import message_for
from engine.errors import EngineError
from engine.records.match_builder import MatchBuilder
from engine.records.record import (
    DOUBLE,
    DROP,
    PLAY,
    RESIGN,
    TAKE,
    WIN,
    MatchRecord,
    MatchSettings,
    RecordAction,
    RecordError,
)
from engine.rules.board import Position
from engine.rules.plays import Move
from engine.rules.variants import HYPERGAMMON, NACKGAMMON, SHORT, Variant

MAX_BYTES: Final = 8 * 1024 * 1024  # an .xg of a long, analysed match is a few hundred KB
MAX_RECORDS: Final = 12_000  # a 25-point match is some 4,000 records
_MAX_ENTRIES: Final = 32  # temp.xg, temp.xgi, temp.xgr, temp.xgc: four in XG's files

# bgsage.xg_file's container sizes (``ZLibArchive.pas``), checked here before it reads.
_TRAILER: Final = 36
_REGISTRY_ENTRY: Final = 532
_RICH_HEADER: Final = 8232

# Fields bgsage's reader does not decode (offsets in a TSaveRec, ``XG_format.pas``).
_HDR_SPLAYER = (9, 50)  # string[40]: the names before XG 2 (ANSI)
_HDR_VARIATION: Final = 96  # 0 backgammon, 1 nackgammon, 2 hypergammon, 3 longgammon
_HDR_CRAWFORD: Final = 100
# Date: TDateTime, days since 1899-12-30 with the time of day as the fraction, on
# the clock of the computer XG ran on (bgsage reads it at the same offset).
_HDR_DATE: Final = 128
_DELPHI_EPOCH: Final = dt.datetime(1899, 12, 30)
_LAST_DELPHI_DAY: Final = 2_958_465.0  # 9999-12-31: beyond it a date is not a date
_HDR_PLAYER = (880, 1138)  # TShortUnicodeString, bgsage's _HDR_PLAYER1 and _HDR_PLAYER2
_MOVE_PLAYED: Final = 68  # 4 x (from, to) int32 in the mover's numbering; from -1 ends
_HG_POSINIT: Final = 21  # the game's first position, player 1's view
_FG_SCORE: Final = 12  # the score after the game (bgsage's _FG_SCORE1 and _FG_SCORE2)
_FG_WINNER: Final = 24  # +1 player 1, -1 player 2
_FG_POINTS: Final = 28
_FG_TERMINATION: Final = 32  # 0 drop, 1-3 single/gammon/backgammon; +100 resigned, +1000 settled
_MONEY: Final = 99999  # XG's match length for an unlimited (money) session

_VARIANTS: dict[int, Variant] = {0: SHORT, 1: NACKGAMMON, 2: HYPERGAMMON}


@dataclass(frozen=True)
class _Where:
    game: int
    turn: int  # 0: the game itself (its start or its end)


class XgFileError(ValidationError):
    """An .xg file refused; ``code`` says why (``not_xg``, ``xg_too_large``,
    ``xg_unsupported`` or an engine record error's code)."""


def _not_xg() -> XgFileError:
    return XgFileError(
        _("This is not an eXtreme Gammon match file (.xg), or the file is damaged."),
        code="not_xg",
    )


def _unsupported(reason: str) -> XgFileError:
    return XgFileError(
        _("This .xg file holds something that cannot be imported: %(reason)s") % {"reason": reason},
        code="xg_unsupported",
    )


def is_xg(data: bytes) -> bool:
    """Whether ``data`` starts as an XG file does (its rich header's magic)."""
    return data[:4] == b"RGMH"


def _inflate(blob: bytes, limit: int, too_large: XgFileError) -> bytes:
    """``blob`` inflated, refused with ``too_large`` past ``limit`` bytes (a zip
    bomb stops there), and as damaged when its stream does not end."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(blob, limit + 1)
    except zlib.error as error:
        raise _not_xg() from error
    if len(out) > limit or inflater.unconsumed_tail:
        raise too_large
    if not inflater.eof:
        raise _not_xg()
    return out


def _game_data(data: bytes) -> bytes:
    """The records (``temp.xg``) of the archive, read by bgsage once its sizes are sane."""
    from bgsage import xg_file  # type: ignore[import-untyped]

    if len(data) > MAX_BYTES:
        raise XgFileError(
            _("The .xg file is larger than %(size)d MB.") % {"size": MAX_BYTES // 2**20},
            code="xg_too_large",
        )
    if not is_xg(data) or len(data) < _RICH_HEADER + _TRAILER:
        raise _not_xg()
    _crc, count, _version, registry_size, _data_size, packed = struct.unpack_from(
        "<6i", data, len(data) - _TRAILER
    )
    if not 0 < count <= _MAX_ENTRIES or not 0 < registry_size < len(data):
        raise _not_xg()
    registry = data[len(data) - _TRAILER - registry_size : len(data) - _TRAILER]
    if packed & 0xFF:
        # bgsage inflates the registry without a bound: it must be small first.
        _inflate(registry, _MAX_ENTRIES * _REGISTRY_ENTRY, _not_xg())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "match.xg"
        path.write_bytes(data)
        try:
            archive = xg_file.XgArchive.load(path)
        except (ValueError, struct.error, zlib.error, IndexError) as error:
            raise _not_xg() from error
    for entry in archive.entries:
        if entry.name == "temp.xg":
            if not entry.compressed:
                return bytes(entry.blob)  # stored as is: no larger than the file
            too_large = XgFileError(
                _("The .xg file holds more than %(records)d records.") % {"records": MAX_RECORDS},
                code="xg_too_large",
            )
            return _inflate(entry.blob, MAX_RECORDS * xg_file.TSAVEREC_SIZE, too_large)
    raise _not_xg()


def _name(record: bytes, side: int) -> str:
    wide = record[_HDR_PLAYER[side] : _HDR_PLAYER[side] + 256]
    name = wide.decode("utf-16-le", errors="replace").split("\x00")[0].strip()
    if name:
        return name
    at = _HDR_SPLAYER[side]
    return record[at + 1 : at + 1 + min(record[at], 40)].decode("cp1252", "replace").strip()


def _event_headers(days: float) -> tuple[tuple[str, str], ...]:
    """The match's date and time as a ``.mat`` file's headers (``EventDate``,
    ``EventTime``), so that an imported ``.xg`` match is dated like a ``.mat``
    one and its export keeps the date.  None for no date (0, XG's "unset") or
    a value no calendar holds (a damaged header is no reason to refuse the plays)."""
    if not math.isfinite(days) or not 1.0 <= days <= _LAST_DELPHI_DAY:
        return ()
    moment = _DELPHI_EPOCH + dt.timedelta(days=days)
    # Rounded to the minute: a TDateTime's fraction is seldom a whole second.
    moment = (moment + dt.timedelta(seconds=30)).replace(second=0, microsecond=0)
    return (("EventDate", moment.strftime("%Y.%m.%d")), ("EventTime", moment.strftime("%H.%M")))


def _xg_point(code: int) -> int:
    """An XG move code as the engine's point: 0-23 are points 1-24, 24 the bar, -1 off."""
    if not -1 <= code <= 24:
        raise ValueError(code)
    return {24: 25, -1: 0}.get(code, code + 1)


def _start_board(position: Position) -> list[int]:
    """A position as XG's initial board of a game: player 1's view, player 2 negative,
    player 2's bar at 0 and player 1's at 25 (their signs do not matter)."""
    first, second = position.sides
    return [-second[25]] + [first[p] - second[25 - p] for p in range(1, 25)] + [first[25]]


class _Reader:
    def __init__(self, records: bytes) -> None:
        self.records = records
        self.where: dict[int, _Where] = {}
        self.builder: MatchBuilder | None = None
        self.game = 0
        self.turn = 0
        self.pending: tuple[int, int] | None = None  # a double's (line, answer) before a move

    def read(self) -> MatchRecord:
        from bgsage import xg_file

        size = xg_file.TSAVEREC_SIZE
        if len(self.records) % size:
            raise _not_xg()
        last = 0
        for index, (offset, kind) in enumerate(xg_file.iter_records(self.records), start=1):
            record = self.records[offset : offset + size]
            last = index
            if kind == xg_file.TS_HEADER_MATCH:
                self._match(record)
            elif self.builder is None:
                raise _not_xg()
            elif kind == xg_file.TS_HEADER_GAME:
                self._game(index, record)
            elif kind == xg_file.TS_CUBE:
                self._cube(index, record)
            elif kind == xg_file.TS_MOVE:
                self._move(index, record)
            elif kind == xg_file.TS_FOOTER_GAME:
                self._footer(index, record)
            # The match footer and XG's other records (comments, missing) add nothing to check.
        if self.builder is None:
            raise _not_xg()
        self._flush(last + 1)
        self.where.setdefault(last + 1, _Where(self.game, 0))
        return self.builder.finish(last + 1)

    def _match(self, record: bytes) -> None:
        from bgsage import xg_file

        if self.builder is not None:
            raise _unsupported(_("a second match in one file"))
        try:
            header = xg_file.parse_header(record, 0)
        except ValueError as error:
            raise _not_xg() from error
        length = header["match_length"]
        if length >= _MONEY:
            length = 0
        if not 0 <= length <= 99:
            raise _unsupported(_("a match length of %(length)d") % {"length": length})
        variation = struct.unpack_from("<i", record, _HDR_VARIATION)[0]
        variant = _VARIANTS.get(variation)
        if variant is None:
            raise _unsupported(_("a variation this program does not play"))
        settings = MatchSettings(
            length=length,
            variant=variant,
            crawford_rule=bool(record[_HDR_CRAWFORD]) and length > 0,
            jacoby=header["jacoby"],
            beaver=header["beaver"],
            players=(_name(record, 0), _name(record, 1)),
            headers=_event_headers(struct.unpack_from("<d", record, _HDR_DATE)[0]),
        )
        self.builder = MatchBuilder(settings)

    def _game(self, line: int, record: bytes) -> None:
        from bgsage import xg_file

        assert self.builder is not None
        self._flush(line)
        header = xg_file.parse_game_header(record, 0)
        self.game += 1
        self.turn = 0
        self.where[line] = _Where(self.game, 0)
        start = list(struct.unpack_from("<26b", record, _HG_POSINIT))
        expected = _start_board(self.builder.settings.variant.start_position())
        if any(start) and start[1:25] != expected[1:25]:
            raise _unsupported(
                _("game %(game)d starts from a set-up position") % {"game": self.game}
            )
        self.builder.start_game(line, score=(header["score1"], header["score2"]), crawford=None)

    def _side(self, actif: int) -> int:
        if actif == 1:
            return 0
        if actif in (-1, 2):
            return 1
        raise _not_xg()

    def _act(self, action: RecordAction) -> None:
        assert self.builder is not None
        if self.builder.current is None:
            raise _not_xg()  # a move or cube record before any game header
        self.turn += 1
        self.where[action.line] = _Where(self.game, self.turn)
        self.builder.act(action)

    def _cube(self, line: int, record: bytes) -> None:
        from bgsage import xg_file

        self._flush(line)
        cube = xg_file.parse_cube_record(record, 0)
        if cube["double"] != 1:
            return  # no double (0) or no access to the cube (-2): nothing happened
        side = self._side(cube["actif"])
        self._act(RecordAction(line, side, DOUBLE))
        if cube["take"] not in (0, 1):  # 2 is a beaver, which XG answers in more fields
            raise _unsupported(_("a beaver or a double without its answer"))
        self.pending = (line, cube["take"])

    def _flush(self, line: int) -> None:
        """The answer to a double, once the record after it is read."""
        if self.pending is None:
            return
        at, take = self.pending
        self.pending = None
        assert self.builder is not None and self.builder.current is not None
        offer = self.builder.current.state.offer
        responder = offer.responder if offer is not None else 0
        self._act(RecordAction(at, responder, TAKE if take == 1 else DROP))

    def _move(self, line: int, record: bytes) -> None:
        from bgsage import xg_file

        self._flush(line)
        move = xg_file.parse_move_record(record, 0)
        side = self._side(move["actif"])
        first, second = move["dice"]
        if not (1 <= first <= 6 and 1 <= second <= 6):
            raise _unsupported(_("a move without its dice"))
        codes = struct.unpack_from("<8i", record, _MOVE_PLAYED)
        moves = []
        for origin, dest in zip(codes[::2], codes[1::2], strict=True):
            if origin == -1:
                break
            try:
                moves.append(Move(_xg_point(origin), _xg_point(dest)))
            except ValueError as error:
                raise _not_xg() from error
        self._act(RecordAction(line, side, PLAY, (first, second), tuple(moves)))

    def _footer(self, line: int, record: bytes) -> None:
        assert self.builder is not None
        self._flush(line)
        score = struct.unpack_from("<2i", record, _FG_SCORE)
        winner, points, termination = struct.unpack_from("<3i", record, _FG_WINNER)
        if winner not in (1, -1) or not 0 <= termination <= 103 or 3 < termination < 100:
            # A settlement (+1000) has no engine action; anything else is not XG's.
            raise _unsupported(_("a game that ends in a way this program does not score"))
        side = 0 if winner == 1 else 1
        if termination >= 100:
            self._act(RecordAction(line, 1 - side, RESIGN))
        self.where[line] = _Where(self.game, 0)
        # The score after the game says who won the match: that must agree with the
        # plays (a game's winner or points written wrong are only warnings).
        length = self.builder.settings.length
        match_won = bool(length) and score[side] >= length
        self.builder.act(RecordAction(line, side, WIN, value=points, match_won=match_won))


def _refused(error: EngineError, where: _Where) -> XgFileError:
    data = {key: value for key, value in error.data.items() if key != "line"}
    reason = message_for(EngineError(error.code, error.reason, **data))
    if where.turn:
        text = _("The .xg file is not valid: game %(game)d, turn %(turn)d: %(reason)s") % {
            "game": where.game,
            "turn": where.turn,
            "reason": reason,
        }
    else:
        text = _("The .xg file is not valid: game %(game)d: %(reason)s") % {
            "game": where.game,
            "reason": reason,
        }
    return XgFileError(text, code=error.code, params={"game": where.game, "turn": where.turn})


def read_xg(data: bytes) -> MatchRecord:
    """The match an ``.xg`` file holds, every play checked by the engine.

    Raises ``XgFileError`` (a ``ValidationError``) for a file that is not an
    XG match, too large, or whose play breaks the rules (at its game and turn,
    counted from 1 in each game: a double and its answer are turns)."""
    reader = _Reader(_game_data(data))
    try:
        return reader.read()
    except RecordError as error:
        raise _refused(error, reader.where.get(error.line, _Where(reader.game, 0))) from error
    except EngineError as error:
        raise _refused(error, _Where(reader.game, reader.turn)) from error
    except (struct.error, KeyError, IndexError) as error:
        raise _not_xg() from error
