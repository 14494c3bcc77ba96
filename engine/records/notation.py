"""Standard (Magriel) notation, RULES.md §8: ``5-2: 13/8 6/4``, ``13/7*/5``,
``8/4(2)``, ``bar/22``, ``6/off``, ``Ø``.

Parsing yields ``Move`` values (one per checker journey as written); it checks
the text only, never legality.  ``format_play`` writes a ``Play`` the way GNU
Backgammon does: moves by origin descending, a checker's consecutive steps
merged into one journey whose intermediate points are kept only where it hit
(``13/7*/5``, but ``24/13``), hits starred once, equal journeys as ``(n)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from engine.errors import NotationError, bounded_int
from engine.rules.board import BAR, OFF
from engine.rules.plays import ClassMove, Move, Play
from engine.rules.variants import Variant
from engine.soldiers import bridge

EMPTY_PLAY: Final = "Ø"
_NO_MOVE: Final = frozenset({"Ø", "ø", "∅", "0", "-"})
_WORDS: Final = {"bar": BAR, "b": BAR, "бар": BAR, "off": OFF}
_MAX_REPEAT: Final = 6  # six checker moves at most (three equal dice in Garanquet)

_SEPARATORS: Final = re.compile(r"[\s,]+")
_RUN: Final = re.compile(r"[^\s,]+")
# A journey: a point, then one or more "/point" each optionally starred, then
# an optional repeat; whitespace is allowed around the punctuation.
_POINT: Final = r"[^\s,/()*]+"
_MOVE: Final = re.compile(
    rf"(?P<body>{_POINT}(?:\s*/\s*{_POINT}(?:\s*\*)?)+)(?:\s*\(\s*(?P<repeat>[^\s,()]*)\s*\))?"
)
# Dice: each separator is "\s*(?:-\s*)?", never "\s*-?\s*": two adjacent
# \s* could share a run of spaces in quadratically many ways.
_DICE: Final = re.compile(r"(?P<a>[0-9?])\s*(?:-\s*)?(?P<b>[0-9?])(?:\s*(?:-\s*)?(?P<c>[0-9]))?")


def _point_name(q: int) -> str:
    return "bar" if q == BAR else "off" if q == OFF else str(q)


def _shortened(text: str, keep: int = 20) -> str:
    """``text`` cut for a reason string (a hostile token may be megabytes)."""
    return text if len(text) <= keep else f"{text[:keep]}..."


def _error(code: str, reason: str, token: str, offset: int) -> NotationError:
    return NotationError(
        code,
        f"{reason}: {_shortened(token, 40)!r} at character {offset + 1}",
        token=token,
        offset=offset,
    )


def _point(word: str, token: str, offset: int) -> int:
    if word.isdecimal():
        q = bounded_int(word, BAR)
        if q is None:
            raise _error(
                "point_out_of_range",
                f"point {_shortened(word)} is not on the board (1..24, 25 bar)",
                token,
                offset,
            )
        return q
    q_or_none = _WORDS.get(word.casefold())
    if q_or_none is None:
        raise _error("bad_token", f"{word!r} is not a point", token, offset)
    return q_or_none


def _journey(body: str, token: str, offset: int) -> Move:
    points: list[int] = []
    hits: list[int] = []
    for part in body.split("/"):
        part = part.strip()
        starred = part.endswith("*")
        q = _point(part.rstrip("*").strip(), token, offset)
        if (q == OFF and not points) or (q == BAR and points):
            raise _error(
                "point_out_of_range",
                "a journey starts on a point or the bar and ends on a point or off",
                token,
                offset,
            )
        if points and q >= points[-1]:
            raise _error(
                "backwards",
                f"{_point_name(q)} is not below {_point_name(points[-1])}: checkers move to lower points",
                token,
                offset,
            )
        if starred:
            if q == OFF:
                raise _error("bad_token", "a checker borne off hits nothing", token, offset)
            hits.append(q)
        points.append(q)
    origin, *via, dest = points
    return Move(origin, dest, via=tuple(via), hits=tuple(hits))


def _parse(text: str, base: int) -> list[Move]:
    moves: list[Move] = []
    pos = 0
    while True:
        sep = _SEPARATORS.match(text, pos)
        if sep:
            pos = sep.end()
        if pos >= len(text):
            return moves
        run_match = _RUN.match(text, pos)
        assert run_match is not None  # pos is on a non-separator
        run = run_match.group()
        if run in _NO_MOVE:
            pos = run_match.end()
            continue
        m = _MOVE.match(text, pos)
        end = m.end() if m else pos
        if m is None or (end < len(text) and not _SEPARATORS.match(text, end)):
            bad = text[pos : max(end, run_match.end())]
            if m is not None and text[end] == "(":
                raise _error("bad_repeat", "a repeat is written (2), (3) or (4)", bad, base + pos)
            raise _error("bad_token", "not a move like 13/8, 13/7*/5 or bar/22", bad, base + pos)
        token = m.group()
        count = 1
        if m.group("repeat") is not None:
            repeat = m.group("repeat")
            written = bounded_int(repeat, _MAX_REPEAT) if repeat.isdecimal() else None
            if written is None or written < 1:
                raise _error("bad_repeat", f"a repeat count is 1..{_MAX_REPEAT}", token, base + pos)
            count = written
        moves.extend([_journey(m.group("body"), token, base + pos)] * count)
        pos = end


def parse_moves(text: str, variant: Variant | None = None) -> list[Move]:
    """The checker journeys written in ``text`` (empty for ``Ø`` or nothing);
    in a variant with checker classes (Soldiers) with their class letters
    (``G13/7 K6/10``, `ClassMove`)."""
    if variant is not None and variant.checker_classes:
        return bridge.parse_moves(text)
    return _parse(text, 0)


def parse_turn(
    text: str, variant: Variant | None = None
) -> tuple[tuple[int, ...] | None, list[Move]]:
    """``"5-2: 13/8 6/4"``, ``"52: ..."`` or three dice ``"5-5-4: ..."``;
    dice ``?-?`` (unknown) give None.  The moves are read as `parse_moves`
    reads them in ``variant`` (class letters in Soldiers)."""
    # The dice are everything before the first colon, spaces around them
    # dropped: found with str methods, linear in the text (a lazy regex
    # between two \s* was quadratic on long runs of spaces).
    colon = text.find(":")
    if colon < 0:
        raise _error("bad_turn", "a turn is dice, a colon, then moves (5-2: 13/8 6/4)", text, 0)
    head = text[:colon]
    dice_at = len(head) - len(head.lstrip())
    dice_text = head.strip()
    d = _DICE.fullmatch(dice_text)
    if d is None or (d["a"] == "?") != (d["b"] == "?") or (d["a"] == "?" and d["c"]):
        raise _error("bad_dice", "dice are written 5-2, 52 or ?-?", dice_text, dice_at)
    dice: tuple[int, ...] | None = None
    if d["a"] != "?":
        dice = tuple(int(v) for v in (d["a"], d["b"], d["c"]) if v is not None)
        if not all(1 <= v <= 6 for v in dice):
            raise _error("bad_dice", "each die shows 1..6", dice_text, dice_at)
    if variant is not None and variant.checker_classes:
        return dice, bridge.parse_moves(text[colon + 1 :])
    return dice, _parse(text[colon + 1 :], colon + 1)


def _render(points: Sequence[int], hits: Sequence[int], count: int) -> str:
    text = "/".join(_point_name(q) + ("*" if i and q in hits else "") for i, q in enumerate(points))
    return f"{text}({count})" if count > 1 else text


def _grouped(items: Sequence[tuple[int, ...]]) -> list[tuple[tuple[int, ...], int]]:
    """Equal items merged, at the place of the first, with their counts."""
    counts: dict[tuple[int, ...], int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return list(counts.items())


def format_moves(moves: Sequence[Move]) -> str:
    """``moves`` in canonical form: origin descending (ties as given), equal
    journeys as ``(n)``, ``bar``/``off`` by name, ``Ø`` for none."""
    if not moves:
        return EMPTY_PLAY
    if any(isinstance(mv, ClassMove) for mv in moves):  # read with class letters (Soldiers)
        return bridge.format_moves(moves)
    counts: dict[Move, int] = {}
    for mv in sorted(moves, key=lambda mv: -mv.origin):
        counts[mv] = counts.get(mv, 0) + 1
    return " ".join(_render((mv.origin, *mv.via, mv.dest), mv.hits, n) for mv, n in counts.items())


def play_journeys(play: Play) -> list[tuple[int, ...]]:
    """The play's checker journeys as GNU Backgammon groups them: steps
    sorted by (origin, dest) descending; each step continues the first
    earlier journey that ends where it starts; a journey keeps an
    intermediate point only where something was hit."""
    hit_points = {s.dest for s in play.steps if s.hit}
    steps = sorted(((s.origin, s.dest) for s in play.steps), reverse=True)
    journeys: list[list[int]] = []
    used = [False] * len(steps)
    for i, (origin, dest) in enumerate(steps):
        if used[i]:
            continue
        journey = [origin, dest]
        for j in range(i + 1, len(steps)):
            if not used[j] and steps[j][0] == journey[-1]:
                if journey[-1] not in hit_points:
                    journey.pop()
                journey.append(steps[j][1])
                used[j] = True
        journeys.append(journey)
    return [tuple(j) for j in journeys]


def format_play(play: Play) -> str:
    """The play as GNU Backgammon writes it, ``Ø`` when no checker moved; a
    play of checker classes (Soldiers) with their letters (RULES §3.1)."""
    if not play.steps:
        return EMPTY_PLAY
    if bridge.is_soldiers(play.position):
        return bridge.format_play(play)
    hit_points = {s.dest for s in play.steps if s.hit}
    starred: set[int] = set()
    parts: list[str] = []
    for journey, count in _grouped(play_journeys(play)):
        # Every kept intermediate point was a hit; the final point is starred
        # only the first time the play reaches a hit point.
        *inner, dest = journey
        marks = inner[1:]
        if dest in hit_points and dest not in starred:
            marks.append(dest)
        starred.update(marks)
        parts.append(_render(journey, marks, count))
    return " ".join(parts)


def format_turn(dice: Sequence[int] | None, play: Play) -> str:
    """``"3-1: 8/5 6/5"``; unknown dice as ``?-?``."""
    roll = "?-?" if dice is None else "-".join(str(d) for d in dice)
    return f"{roll}: {format_play(play)}"
