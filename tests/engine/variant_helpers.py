"""Shared helpers for the variant movement tests (test_variant_*.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.errors import IllegalPlay
from engine.movegen import find_play, legal_plays
from engine.records.notation import format_play, parse_moves
from engine.rules.board import BAR, OFF, OPPOSITE, POINTS, WHITE, Geometry, Position
from engine.rules.plays import Play
from engine.rules.variants import Variant


def pos(
    white: dict[int, int],
    black: dict[int, int],
    geometry: Geometry = OPPOSITE,
    **extra: object,
) -> Position:
    """A position from ``{point: count}`` maps (own numbering, 25 = bar),
    with ``extra`` pairs sorted by key as the engine keeps them.  Guards the
    tests' own arithmetic: no point holds checkers of both sides (unless the
    position lists pins)."""
    base = Position.from_points(white, black)
    if "pinned" not in extra:
        for q in range(1, POINTS + 1):
            both = base.sides[0][q] and base.sides[1][geometry.cross[0][q]]
            assert not both, f"white's {q} holds checkers of both sides"
    return Position(base.sides, tuple(sorted(extra.items())))


def texts(plays: list[Play]) -> set[str]:
    return {format_play(p) for p in plays}


def results(plays: list[Play]) -> set[Position]:
    return {p.position for p in plays}


def plays_of(
    variant: Variant, position: Position, dice: tuple[int, ...], side: int = WHITE
) -> set[str]:
    return texts(legal_plays(variant, position, side, dice))


def find(
    variant: Variant, position: Position, dice: tuple[int, ...], text: str, side: int = WHITE
) -> Play:
    return find_play(variant, position, side, dice, parse_moves(text))


def error_of(fn: Callable[..., Any], *args: object, **kwargs: object) -> IllegalPlay:
    with pytest.raises(IllegalPlay) as caught:
        fn(*args, **kwargs)
    return caught.value


def find_error(
    variant: Variant, position: Position, dice: tuple[int, ...], text: str, side: int = WHITE
) -> IllegalPlay:
    return error_of(find, variant, position, dice, text, side)


def moved(position: Position, side: int, row_changes: dict[int, int]) -> tuple[int, ...]:
    """The side's row with ``{slot: delta}`` applied (the tests' own arithmetic)."""
    row = list(position.sides[side])
    for q, delta in row_changes.items():
        row[q] += delta
    return tuple(row)


def assert_valid(variant: Variant, position: Position) -> None:
    """The geometry invariants every reachable position keeps."""
    checkers = variant.checkers
    for side in (0, 1):
        row = position.sides[side]
        assert len(row) == BAR + 1
        assert all(n >= 0 for n in row), row
        assert sum(row) == checkers, row
        if variant.max_per_point:
            assert max(row[1 : POINTS + 1]) <= variant.max_per_point, row
    if variant.checker_classes:
        # Soldiers: the class-aware position holds its own pins (checked by its
        # own rules); the plain counts are its counts.
        from engine.soldiers.bridge import soldiers_of
        from engine.soldiers.state import check_position

        kept = soldiers_of(position)
        check_position(kept)
        assert kept.to_position().sides == position.sides
        return
    pinned: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    if variant.pinning:
        keys = [k for k, _ in position.extra]
        assert keys == sorted(keys) and {"pinned", "mother_pinned"} <= set(keys)
        pinned = position.get("pinned")  # type: ignore[assignment]
        assert position.get("mother_pinned") == (POINTS in pinned[0], POINTS in pinned[1])
    else:
        assert position.get("pinned") is None
    paths = variant.geometry.paths
    for loc in range(POINTS):
        qw = paths[0].index(loc) + 1
        qb = paths[1].index(loc) + 1
        w, b = position.sides[0][qw], position.sides[1][qb]
        if w and b:
            assert variant.pinning, f"both sides on location {loc}"
            # exactly one of them is pinned, and the pinned one stands alone
            assert (qw in pinned[0]) != (qb in pinned[1]), (loc, pinned)
            assert (w if qw in pinned[0] else b) == 1
        else:
            assert qw not in pinned[0] and qb not in pinned[1], (loc, pinned)
    if variant.nuclear:
        assert position.get("bomb", "absent") in (None, 0, 1)
    assert position.sides[0][OFF] < checkers or position.sides[1][OFF] < checkers
