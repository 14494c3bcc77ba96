"""Azerbaijani notation (RULES.md §8; seed 001, "Nauka i Zhizn", 1980s).

Fields
------
The board's 24 points are the fields ``a1..a6, b1..b6, c1..c6, d1..d6``
(zones A-D), in that order along the board.  A field names the same point
for both sides; each side's own point number (engine numbering, 24 where
its path starts, 1..6 its home) follows from one fact per family, the field
of White's 24 and the way White walks the list, and the variant's
``Geometry`` gives Black's number from White's:

- short family (``OPPOSITE`` geometry: short, nackgammon, hypergammon...):
  White's 24 is d6 and White walks the list backwards (D→C→B→A, home A);
  Black's q is White's 25-q (A→B→C→D, home D)::

      field  a1 .. a6  b1 .. b6  c1 .. c6  d1 .. d6
      White   1 ..  6   7 .. 12  13 .. 18  19 .. 24
      Black  24 .. 19  18 .. 13  12 ..  7   6 ..  1

  so White starts d6:2 c1:5 b2:3 a6:5 and Black a1:2 b6:5 c5:3 d1:5 (001 §1).
- long family (``SAME_DIRECTION`` geometry): White's 24 (the head) is a1 and
  White walks the list forwards (A→B→C→D, home D); Black's head is c1
  (C→D→A→B, home B)::

      field  a1 .. a6  b1 .. b6  c1 .. c6  d1 .. d6
      White  24 .. 19  18 .. 13  12 ..  7   6 ..  1
      Black  12 ..  7   6 ..  1  24 .. 19  18 .. 13

  001 also says both sides move counter-clockwise in long nardy and that
  White moves counter-clockwise, Black clockwise, in short nardy; read
  literally with one fixed labelling of the board, that contradicts the
  zone order it gives.  The zone order (and RULES.md §5's block example
  d5, d6, a1..a4) is what the records use, so it decides.

Records
-------
``N. w1/w2 white-part  b1/b2 black-part``; a part is the dice then its
moves, separated by commas or spaces, optionally closed by a period::

    1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.
    2. 4/4 2c1—b3, 2b2—a4 3/2 b6—c5.

- ``c1—b2`` a move (dash ``—``, ``–`` or ``-``, spaces around it allowed);
  ``c5:d5`` a move that hits on d5; a chain ``c1—b6:b2`` names landings on
  the way, ``:`` before each field where it hits (an extension: 001 shows
  no chain).  ``2c1—b3``: two checkers make the same move (count 1..4, at
  most the number of moves the dice give).
- A lone field: in the mover's entry zone (own 19..24, short family only)
  a checker entered from the bar there (``d6``); in the mover's home a
  checker borne off from it (``a3``; ``4a3`` = four).  Anywhere else it is
  an error.  An entry that hits is written with its field on both sides of
  the colon (``d4:d4``, RULES.md §8) and the hit is checked like any ``:``;
  a lone field that enters on a blot is still read (an unmarked hit), and
  the writer marks it (``d4:d4``).
- ``Z`` no legal move (with the dice: ``6/6 Z``).  ``Z`` alone, without
  dice, is a turn with no roll written, allowed only when no roll at all
  could be played (closed out on the bar), as ``?-?: Ø`` in engine.records.replay.
  A part ends at its ``Z``: ``5. 6/6 Z Z`` is a Z for each side.
- ``*`` after a move: after it (the part's moves applied in written
  order) all the mover's checkers are home; checked, a false claim is an
  error.  ``X`` after the last move (``a1 X`` or ``a1X``): the game is won by
  this turn; checked.  Neither is required.
- ``(?)`` (also ``(!)``, ``(??)``, ``(!?)``...) the annotator's comment on
  the move before it, or on the part when no move precedes it; kept, never
  checked.
- The dice as written (001 usually writes the larger first, not always:
  ``4. 1/6 d6, ...``); their order is kept.
- Opening: move 1's first part is the starter's first roll.  Where the
  variant plays the opening dice (short nardy, 001's "Жеребьевка": the
  5 and the 1 thrown stay for White's first move) they are those dice and
  cannot be a double; where the starter re-rolls (long nardy) they are the
  re-roll.  ``1. ... 4/3 b6—d1`` (``...`` or ``…`` for White's part) records a
  game Black started.
- A side's part may continue on the next line; blank lines and ``#``
  comments are ignored; move numbers must run 1, 2, 3...; field letters may
  be capitals (``C1`` is c1).

Writing (``format_azn``, in ``engine.records.azn_writer``) gives one move
number a line, each part closed by a period, em dashes, the dice in the order
given, ``*`` and ``X`` where they are true: ``1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.``

Nothing is guessed: a field that does not exist (``ab``, ``b7``, ``e3``,
Cyrillic look-alikes), a count that does not fit, or a move the engine
refuses raises ``AznError`` naming the move number, the side, the line, the
source text and why.  This module reads the text (fields, counts, dice);
``engine.records.azn_replay`` plays it on the engine, and its ``replay_azn``
reports the earliest problem in the record: an illegal move before a later
unreadable token is reported first.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from engine.errors import MAX_RECORD_NUMBER, EngineError, bounded_int
from engine.rules.board import (
    BAR,
    BLACK,
    OFF,
    OPPOSITE,
    SAME_DIRECTION,
    SIDE_NAMES,
    WHITE,
    Geometry,
)
from engine.rules.plays import Move
from engine.rules.variants import Variant

HOME: Final = 6
FIELDS: Final = tuple(f"{zone}{k}" for zone in "abcd" for k in range(1, 7))
_INDEX: Final = {name: i for i, name in enumerate(FIELDS)}
DASH: Final = "—"
_NOTE_MARKS: Final = frozenset({"?", "!", "??", "!!", "?!", "!?"})

MOVE: Final = "move"
ENTER: Final = "enter"
BEAR_OFF: Final = "bear_off"


class AznError(EngineError):
    """A record the notation or the rules refuse.

    Always carries ``move_number``, ``side`` ("white"/"black"), ``line`` and
    ``text`` (the source line); None where the record gives none (text before
    the first move number).  ``token`` names the offending piece of text
    when there is one; ``illegal_move``/``illegal_turn`` carry the engine's
    ``rule`` (its code) and ``engine_reason``.
    """


# --- field <-> point ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layout:
    """The fields of one board family, each side's point number per field."""

    name: str
    points: tuple[tuple[int, ...], tuple[int, ...]]  # [side][field index] -> point
    fields: tuple[tuple[str, ...], tuple[str, ...]]  # [side][point] -> field ("" at 0, 25)

    @classmethod
    def derive(cls, name: str, geometry: Geometry, white_head: str, white_step: int) -> Layout:
        head = _INDEX[white_head]
        white = tuple(24 - white_step * (i - head) for i in range(24))
        if sorted(white) != list(range(1, 25)):
            raise ValueError(f"{name}: White's walk from {white_head} is not the 24 points")
        black = tuple(geometry.opponent_point(WHITE, q) for q in white)
        points = (white, black)
        fields: list[tuple[str, ...]] = []
        for side in (0, 1):
            names = [""] * (BAR + 1)
            for i, q in enumerate(points[side]):
                names[q] = FIELDS[i]
            fields.append(tuple(names))
        return cls(name, points, (fields[0], fields[1]))

    def point(self, side: int, name: str) -> int:
        index = _INDEX.get(name)
        if index is None:
            raise ValueError(f"{name!r} is not a field (a1..a6, b1..b6, c1..c6, d1..d6)")
        return self.points[side][index]

    def field(self, side: int, q: int) -> str:
        return self.fields[side][q]


SHORT_LAYOUT: Final = Layout.derive("short", OPPOSITE, "d6", -1)
LONG_LAYOUT: Final = Layout.derive("long", SAME_DIRECTION, "a1", 1)
_LAYOUTS: Final = {OPPOSITE: SHORT_LAYOUT, SAME_DIRECTION: LONG_LAYOUT}


def layout(variant: Variant) -> Layout:
    """The fields of ``variant``'s board; ``AznError`` where the notation has none."""
    found = _LAYOUTS.get(variant.geometry)
    if found is None or variant.dice != 2:
        raise AznError(
            "unsupported_variant",
            f"the Azerbaijani notation records two-dice games of the short and long "
            f"families, not {variant.name}",
            variant=variant.name,
            move_number=None,
            side=None,
            line=None,
            text="",
        )
    return found


def point_of(variant: Variant, side: int, name: str) -> int:
    """``side``'s own point number of field ``name`` (``"c1"``)."""
    return layout(variant).point(side, name)


def field_of(variant: Variant, side: int, q: int) -> str:
    """The field of ``side``'s own point ``q`` (1..24)."""
    if not 1 <= q <= 24:
        raise ValueError(f"point {q} is not on the board")
    return layout(variant).field(side, q)


# --- the game as data --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AznMove:
    """One written move: ``2c1—b3``, ``c5:d5``, ``d6`` (entry), ``4a3`` (bear-off).

    ``fields`` as written (lower case); ``hit_marks[i]`` is true where
    ``fields[i + 1]`` was reached with ``:``; ``journeys`` are the ``count``
    equal engine Moves in the mover's own numbering.
    """

    kind: str  # MOVE | ENTER | BEAR_OFF
    fields: tuple[str, ...]
    hit_marks: tuple[bool, ...]
    count: int
    home: bool  # "*": all the mover's checkers are home after this move
    annotations: tuple[str, ...]
    journeys: tuple[Move, ...]
    text: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)

    def format(self) -> str:
        body = self.fields[0] + "".join(
            (":" if hit else DASH) + name
            for name, hit in zip(self.fields[1:], self.hit_marks, strict=True)
        )
        prefix = str(self.count) if self.count > 1 else ""
        return prefix + body + ("*" if self.home else "") + "".join(self.annotations)


@dataclass(frozen=True, slots=True)
class AznTurn:
    """One side's part of a move record."""

    number: int
    side: int
    dice: tuple[int, int] | None  # None: "Z" written without dice
    moves: tuple[AznMove, ...]
    no_move: bool = False  # "Z"
    won: bool = False  # "X"
    annotations: tuple[str, ...] = ()  # comments not following a move
    line: int = field(default=0, compare=False)

    @property
    def journeys(self) -> list[Move]:
        return [j for m in self.moves for j in m.journeys]

    def format(self) -> str:
        parts: list[str] = []
        if self.dice is not None:
            parts.append(f"{self.dice[0]}/{self.dice[1]}")
        notes = "".join(self.annotations)
        if self.no_move:
            parts.append("Z" + notes)
        else:
            if notes:
                parts.append(notes)
            parts.append(", ".join(m.format() for m in self.moves))
        if self.won:
            parts.append("X")
        return " ".join(parts) + "."


@dataclass(frozen=True, slots=True)
class AznGame:
    variant: str
    turns: tuple[AznTurn, ...]


# --- reading -----------------------------------------------------------------

_WORD: Final = r"[^\W\d_][^\W_]*"
_TOKEN: Final = re.compile(
    rf"""
      (?P<newline>\n)
    | (?P<space>[^\S\n]+|[,;])
    | (?P<comment>\#[^\n]*)
    | (?P<ellipsis>\.\.\.|…)
    | (?P<dice>(?P<d1>\d+)[^\S\n]*/[^\S\n]*(?P<d2>\d+))
    | (?P<number>(?P<n>\d+)\.)
    | (?P<period>\.)
    | (?P<note>\([^\S\n]*(?P<mark>[?!]+)[^\S\n]*\))
    | (?P<star>\*)
    | (?P<move>(?P<count>\d+)?(?P<chain>{_WORD}(?:[^\S\n]*[—–:-][^\S\n]*{_WORD})*)(?P<home>\*)?)
    | (?P<bad>[^\s,;]+)
    """,
    re.VERBOSE,
)
_LEG: Final = re.compile(rf"[^\S\n]*(?P<sep>[—–:-]?)[^\S\n]*(?P<word>{_WORD})")


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str
    line: int
    match: re.Match[str]


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    line = 1
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        assert kind is not None  # every alternative is a named group
        if kind == "newline":
            line += 1
            continue
        if kind in ("space", "comment"):
            continue
        if kind == "move" and m["count"] is None and m["home"] is None:
            if m["chain"] == "Z":
                kind = "nomove"
            elif m["chain"] == "X":
                kind = "won"
        out.append(_Token(kind, m.group(), line, m))
    return out


def _non_latin(word: str) -> str:
    odd = [c for c in word if not c.isascii()]
    if not odd:
        return ""
    return f" (it contains {odd[0]!r}, U+{ord(odd[0]):04X}, not a Latin letter or digit)"


class _Parser:
    def __init__(self, text: str, variant: Variant) -> None:
        self.layout = layout(variant)
        self.lines = text.splitlines()
        self.tokens = _tokens(text)
        self.at = 0
        self.number: int | None = None
        self.side: int | None = None
        self.turns: list[AznTurn] = []
        self.number_line: int | None = None

    # -- helpers

    def peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> _Token:
        tok = self.tokens[self.at]
        self.at += 1
        return tok

    def error(self, code: str, why: str, line: int | None, **data: Any) -> AznError:
        return azn_error(code, why, self.number, self.side, line, self.lines, **data)

    def unexpected(self, tok: _Token, expected: str) -> AznError:
        if tok.kind == "bad":
            hint = ""
            if re.fullmatch(r"\d\s*-\s*\d", tok.text):
                hint = " (dice are written 5/1)"
            return self.error(
                "bad_token",
                f"{tok.text!r} is not notation{hint}{_non_latin(tok.text)}",
                tok.line,
                token=tok.text,
            )
        return self.error(
            "bad_token", f"{tok.text!r} where {expected} was expected", tok.line, token=tok.text
        )

    # -- grammar

    def run(self) -> None:
        expected = 1
        while (tok := self.peek()) is not None:
            if tok.kind != "number":
                raise self.unexpected(tok, "a move number (1.)")
            self.take()
            self.side = None
            written = bounded_int(tok.match["n"])
            if written is None:
                raise self.error(
                    "number_too_large",
                    f"move number {tok.text[:12]}... is larger than {MAX_RECORD_NUMBER}",
                    tok.line,
                    token=tok.text,
                    field="move_number",
                    maximum=MAX_RECORD_NUMBER,
                )
            self.number = number = written
            self.number_line = tok.line
            if number != expected:
                raise self.error(
                    "bad_number",
                    f"move {expected} was expected, the record says {number}",
                    tok.line,
                    token=tok.text,
                    expected=expected,
                )
            expected += 1
            nxt = self.peek()
            if nxt is not None and nxt.kind == "ellipsis":
                self.side = WHITE
                self.take()
                if number != 1 or self.turns:
                    raise self.error(
                        "bad_token",
                        "'...' stands for White's part only in move 1 (Black started)",
                        nxt.line,
                        token=nxt.text,
                    )
            else:
                self.part(number, WHITE)
            nxt = self.peek()
            if nxt is None or nxt.kind == "number":
                continue
            self.part(number, BLACK)
            nxt = self.peek()
            if nxt is not None and nxt.kind != "number":
                raise self.unexpected(
                    nxt, f"move {expected} (both sides of move {number} are written)"
                )

    def part(self, number: int, side: int) -> None:
        self.side = side
        tok = self.peek()
        if tok is None:
            raise self.error("bad_token", "the record ends after the move number", self.number_line)
        line = tok.line
        if tok.kind == "nomove":
            self.take()
            notes = self.notes()
            self.period()
            self.turns.append(
                AznTurn(number, side, None, (), no_move=True, annotations=notes, line=line)
            )
            return
        if tok.kind != "dice":
            raise self.unexpected(tok, f"{SIDE_NAMES[side]}'s dice (5/1) or Z")
        self.take()
        dice = self.dice(tok)
        turn_notes = list(self.notes())
        moves: list[AznMove] = []
        no_move = won = False
        while (tok := self.peek()) is not None and tok.kind not in ("number", "dice", "ellipsis"):
            if tok.kind == "period":
                self.take()
                break
            if no_move or won:
                if tok.kind in ("move", "nomove", "won", "star"):
                    raise self.error(
                        "bad_token",
                        f"{tok.text!r} after {'Z' if no_move else 'X'}, which ends the part",
                        tok.line,
                        token=tok.text,
                    )
                raise self.unexpected(tok, "the end of the part")
            if tok.kind == "nomove":
                self.take()
                if moves:
                    raise self.error(
                        "bad_token", "Z (no legal move) after moves", tok.line, token=tok.text
                    )
                no_move = True
                turn_notes.extend(self.notes())
                nxt = self.peek()
                if nxt is not None and nxt.kind == "move":
                    raise self.error(
                        "bad_token",
                        f"{nxt.text!r} after Z (no legal move)",
                        nxt.line,
                        token=nxt.text,
                    )
                if nxt is None or nxt.kind != "period":
                    break  # a part ends at its Z: a following Z is the other side's
                continue
            if tok.kind == "won":
                self.take()
                if not moves:
                    raise self.error(
                        "bad_token",
                        "X (game won) follows the winning moves",
                        tok.line,
                        token=tok.text,
                    )
                won = True
                turn_notes.extend(self.notes())
                continue
            if tok.kind == "star":
                self.take()
                if not moves or moves[-1].home:
                    raise self.error(
                        "bad_token", "'*' (all home) follows a move", tok.line, token=tok.text
                    )
                moves[-1] = dataclasses.replace(moves[-1], home=True)
                continue
            if tok.kind == "note":
                self.take()
                note = self.note(tok)
                if moves:
                    moves[-1] = dataclasses.replace(
                        moves[-1], annotations=(*moves[-1].annotations, note)
                    )
                else:
                    turn_notes.append(note)
                continue
            if tok.kind != "move":
                raise self.unexpected(tok, "a move (c1—b2)")
            self.take()
            move, wins = self.move(tok, side, dice)
            moves.append(move)
            if wins:
                won = True
        if not moves and not no_move:
            raise self.error(
                "missing_moves",
                f"{dice[0]}/{dice[1]} with no moves: write Z when nothing can be played",
                line,
            )
        self.turns.append(
            AznTurn(
                number,
                side,
                dice,
                tuple(moves),
                no_move=no_move,
                won=won,
                annotations=tuple(turn_notes),
                line=line,
            )
        )

    def period(self) -> None:
        tok = self.peek()
        if tok is not None and tok.kind == "period":
            self.take()

    def notes(self) -> tuple[str, ...]:
        found: list[str] = []
        while (tok := self.peek()) is not None and tok.kind == "note":
            self.take()
            found.append(self.note(tok))
        return tuple(found)

    def note(self, tok: _Token) -> str:
        mark = tok.match["mark"]
        if mark not in _NOTE_MARKS:
            raise self.error(
                "bad_token",
                f"{tok.text!r} is not a comment like (?) or (!)",
                tok.line,
                token=tok.text,
            )
        return f"({mark})"

    def dice(self, tok: _Token) -> tuple[int, int]:
        a, b = bounded_int(tok.match["d1"], 6), bounded_int(tok.match["d2"], 6)
        if a is None or b is None or not (1 <= a <= 6 and 1 <= b <= 6):
            raise self.error(
                "bad_dice", f"{tok.text!r}: each die shows 1..6", tok.line, token=tok.text
            )
        return a, b

    def move(self, tok: _Token, side: int, dice: tuple[int, int]) -> tuple[AznMove, bool]:
        m = tok.match
        names: list[str] = []
        marks: list[bool] = []
        wins = False
        legs = list(_LEG.finditer(m["chain"]))
        for k, leg in enumerate(legs):
            word = leg["word"]
            name = word.lower()
            if (
                name not in _INDEX
                and k == len(legs) - 1
                and word.endswith("X")
                and word[:-1].lower() in _INDEX
                and m["home"] is None
            ):
                name, wins = word[:-1].lower(), True
            if name not in _INDEX:
                raise self.error(
                    "bad_field",
                    f"{tok.text!r}: {word!r} is not a field (a1..a6, b1..b6, c1..c6, d1..d6)"
                    + _non_latin(word),
                    tok.line,
                    token=tok.text,
                    field=word,
                )
            names.append(name)
            if k:
                marks.append(leg["sep"] == ":")
        most = 4 if dice[0] == dice[1] else 2
        count = bounded_int(m["count"]) if m["count"] is not None else 1
        if count is None:
            raise self.error(
                "number_too_large",
                f"{tok.text[:20]!r}...: the count is larger than {MAX_RECORD_NUMBER}",
                tok.line,
                token=tok.text,
                field="count",
                maximum=MAX_RECORD_NUMBER,
            )
        if not 1 <= count <= most:
            raise self.error(
                "bad_count",
                f"{tok.text!r}: {count} checkers cannot make one move with "
                f"{dice[0]}/{dice[1]} (at most {most})",
                tok.line,
                token=tok.text,
                count=count,
            )
        try:
            built = make_move(
                self.layout,
                side,
                tuple(names),
                tuple(marks),
                count,
                home=m["home"] is not None,
                text=tok.text,
                line=tok.line,
            )
        except ValueError as err:
            raise self.error(
                "bad_lone_field", f"{tok.text!r}: {err}", tok.line, token=tok.text
            ) from None
        return built, wins


def make_move(
    board: Layout,
    side: int,
    fields: tuple[str, ...],
    hit_marks: tuple[bool, ...] = (),
    count: int = 1,
    *,
    home: bool = False,
    annotations: tuple[str, ...] = (),
    text: str = "",
    line: int = 0,
) -> AznMove:
    """The move written with these fields, its journeys in ``side``'s numbering.

    A lone field is an entry in the mover's entry zone (own 19..24, short
    family) and a bear-off in the mover's home; a field on both sides of a
    colon (``d4:d4``) an entry that hits; ``ValueError`` elsewhere.
    """
    points = [board.point(side, name) for name in fields]
    if len(points) == 2 and points[0] == points[1] and hit_marks == (True,):
        # RULES.md §8: an entry that hits is its field on both sides of the colon.
        q = points[0]
        if not (q > 24 - HOME and board is SHORT_LAYOUT):
            zone = (
                "long nardy has no bar"
                if board is LONG_LAYOUT
                else f"{fields[0]} is not in {SIDE_NAMES[side]}'s entry zone"
            )
            raise ValueError(
                f"a field on both sides of the colon ({fields[0]}:{fields[0]}) is an entry "
                f"that hits; {zone}"
            )
        kind, journey = ENTER, Move(BAR, q, hits=(q,))
    elif len(points) == 1:
        q = points[0]
        if q <= HOME:
            kind, journey = BEAR_OFF, Move(q, OFF)
        elif q > 24 - HOME and board is SHORT_LAYOUT:
            kind, journey = ENTER, Move(BAR, q)
        else:
            zone = "home" if board is LONG_LAYOUT else "home or the entry zone"
            raise ValueError(
                f"a lone field is a bear-off (or, in short nardy, an entry); "
                f"{fields[0]} is not in {SIDE_NAMES[side]}'s {zone}"
            )
    else:
        kind = MOVE
        hits = tuple(q for q, hit in zip(points[1:], hit_marks, strict=True) if hit)
        journey = Move(points[0], points[-1], via=tuple(points[1:-1]), hits=hits)
    return AznMove(
        kind,
        fields,
        hit_marks,
        count,
        home,
        annotations,
        (journey,) * count,
        text=text,
        line=line,
    )


def azn_error(
    code: str,
    why: str,
    number: int | None,
    side: int | None,
    line: int | None,
    lines: Sequence[str],
    **data: Any,
) -> AznError:
    where = []
    if number is not None:
        where.append(f"move {number}" + (f", {SIDE_NAMES[side]}" if side is not None else ""))
    if line is not None:
        where.append(f"line {line}")
    prefix = f"{', '.join(where)}: " if where else ""
    source = lines[line - 1].strip() if line is not None and 0 < line <= len(lines) else ""
    return AznError(
        code,
        prefix + why,
        move_number=number,
        side=None if side is None else SIDE_NAMES[side],
        line=line,
        text=source,
        **data,
    )


def read_azn(text: str, variant: Variant) -> tuple[AznGame, AznError | None]:
    """The turns read before the first unreadable one, and its error."""
    parser = _Parser(text, variant)
    failure: AznError | None = None
    try:
        parser.run()
    except AznError as err:
        failure = err
    return AznGame(variant.name, tuple(parser.turns)), failure


def parse_azn(text: str, variant: Variant) -> AznGame:
    """Read a record (text only: fields, counts, dice; legality is replay's)."""
    game, failure = read_azn(text, variant)
    if failure is not None:
        raise failure
    return game
