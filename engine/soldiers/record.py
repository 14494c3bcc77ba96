"""The project's own record of a Soldiers game, and the formats it cannot go to.

A record keeps the options (army, placement), the start position text and
each turn's dice, notation and the canonical position text after it, so the
classes and the pins are kept as played; `replay` checks every turn on the
engine and that the stored position is the one the play reaches.

GNU Backgammon's Position ID, ``.mat`` and SGF have no room for classes or
pins: `refuse_export` raises ``export_unsupported`` with the format and what
would be lost, and the caller shows its reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from engine.errors import EngineError
from engine.soldiers.army import DEFAULT_ARMY, Army, Placement, parse_army, parse_placement
from engine.soldiers.movegen import winner
from engine.soldiers.notation import find_play, format_play
from engine.soldiers.state import SoldiersPosition, parse_position, start_position

FORMATS_WITHOUT_CLASSES: Final = ("position_id", "mat", "sgf")


class SoldiersRecordError(EngineError):
    """A Soldiers record that does not replay (``turn`` is its 0-based index)."""


def refuse_export(fmt: str) -> None:
    """Soldiers games never go to Position ID, ``.mat`` or SGF: raise why."""
    if fmt not in FORMATS_WITHOUT_CLASSES:
        raise EngineError("unknown_format", f"unknown export format {fmt!r}", format=fmt)
    raise EngineError(
        "export_unsupported",
        f"{fmt} cannot hold Soldiers checker classes and pins",
        format=fmt,
        variant="soldiers",
        lost=["classes", "pins"],
    )


@dataclass(frozen=True, slots=True)
class SoldiersTurn:
    dice: tuple[int, int]
    play: str  # notation as written by `format_play`
    position: str  # canonical text after the turn


@dataclass(frozen=True, slots=True)
class SoldiersRecord:
    army: Army
    placement: Placement
    start: str
    turns: tuple[SoldiersTurn, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": "soldiers",
            "army": self.army.text(),
            "placement": [self.placement.text(0), self.placement.text(1)],
            "start": self.start,
            "turns": [
                {"dice": list(t.dice), "play": t.play, "position": t.position} for t in self.turns
            ],
        }

    def positions(self) -> list[SoldiersPosition]:
        """The start and the position after each turn, each turn checked."""
        current = parse_position(self.start, self.army)
        out = [current]
        for index, turn in enumerate(self.turns):
            if winner(current) is not None:
                raise SoldiersRecordError("game_over", "a turn after the game ended", turn=index)
            try:
                play = find_play(current, turn.dice, turn.play)
            except EngineError as err:
                raise SoldiersRecordError(err.code, err.reason, turn=index, **err.data) from err
            current = play.position
            if current.text() != turn.position:
                raise SoldiersRecordError(
                    "position_mismatch",
                    "the stored position is not the one the play reaches",
                    turn=index,
                    expected=current.text(),
                )
            out.append(current)
        return out


def new_record(
    army: Army = DEFAULT_ARMY, placement: Placement | None = None, first: int = 0
) -> SoldiersRecord:
    placed = parse_placement(placement, army)
    start = start_position(placed, army).with_turn(first)
    return SoldiersRecord(army, placed, start.text())


def with_turn(record: SoldiersRecord, dice: tuple[int, int], written: str) -> SoldiersRecord:
    """The record with one more turn, checked on the engine."""
    current = record.positions()[-1]
    play = find_play(current, dice, written)
    turn = SoldiersTurn(dice, format_play(play), play.position.text())
    return SoldiersRecord(record.army, record.placement, record.start, (*record.turns, turn))


def record_from_dict(data: Mapping[str, Any]) -> SoldiersRecord:
    """Read and check a record written by `SoldiersRecord.to_dict`."""
    if data.get("variant") != "soldiers":
        raise SoldiersRecordError("bad_record", "not a Soldiers record", turn=-1)
    army = parse_army(data.get("army"))
    raw_placement = data.get("placement")
    placement = parse_placement(
        tuple(raw_placement) if isinstance(raw_placement, list) else raw_placement, army
    )
    turns: list[SoldiersTurn] = []
    for index, raw in enumerate(data.get("turns", [])):
        try:
            dice = (int(raw["dice"][0]), int(raw["dice"][1]))
            turns.append(SoldiersTurn(dice, str(raw["play"]), str(raw["position"])))
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise SoldiersRecordError(
                "bad_record", "a turn needs dice, play, position", turn=index
            ) from err
    record = SoldiersRecord(army, placement, str(data.get("start", "")), tuple(turns))
    record.positions()
    return record
