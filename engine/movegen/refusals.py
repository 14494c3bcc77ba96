"""Why a written play is refused: the failure reached latest, the
forced-move rule it breaks, and a legal example in plain notation."""

from __future__ import annotations

from typing import Any

from engine.errors import IllegalPlay
from engine.rules.board import BAR, OFF
from engine.rules.plays import Move, Play, Step


def _token(o: int, d: int, hit: bool = False) -> str:
    origin = "bar" if o == BAR else str(o)
    dest = "off" if d == OFF else str(d)
    return f"{origin}/{dest}{'*' if hit else ''}"


def _format_play(play: Play) -> str:
    """Steps as plain ``origin/dest`` tokens (``bar``, ``off``, ``*`` for a hit)."""
    if not play.steps:
        return "Ø"
    return " ".join(_token(s.origin, s.dest, s.hit) for s in play.steps)


def _move_text(move: Move) -> str:
    points = [move.origin, *move.via, move.dest]
    parts = []
    for i, q in enumerate(points):
        text = (
            "bar"
            if (i == 0 and q == BAR)
            else ("off" if (i == len(points) - 1 and q == OFF) else str(q))
        )
        if i and q in move.hits:
            text += "*"
        parts.append(text)
    return "/".join(parts)


class _Failure:
    __slots__ = ("code", "data", "progress", "reason")

    def __init__(self, progress: int, code: str, reason: str, **data: Any) -> None:
        self.progress = progress
        self.code = code
        self.reason = reason
        self.data = data


def _worst_failure(failures: list[_Failure], data: dict[str, Any]) -> IllegalPlay:
    """The failure reached latest; closed points on other routes of the same
    journey at that stage are named with it."""
    latest = max(f.progress for f in failures)
    worst = next(f for f in failures if f.progress == latest)
    if worst.code == "point_closed":
        points = sorted(
            {
                f.data["point"]
                for f in failures
                if f.progress == latest
                and f.code == "point_closed"
                and f.data["move"] == worst.data["move"]
            }
        )
        if len(points) > 1:
            names = ", ".join(str(q) for q in points[:-1]) + f" and {points[-1]}"
            return IllegalPlay(
                "point_closed",
                f"{worst.data['move']}: points {names} are closed on every route: "
                "the opponent holds them",
                move=worst.data["move"],
                point=worst.data["point"],
                points=points,
                **data,
            )
    return IllegalPlay(worst.code, worst.reason, **worst.data, **data)


def _forced_move_error(
    rolled: tuple[int, ...],
    legal: list[Play],
    played: list[tuple[Step, ...]],
    roll: str,
    data: dict[str, Any],
) -> IllegalPlay:
    """A play whose every step is legal but which the forced-move rules reject."""
    most = max(len(p.steps) for p in legal)
    used = max(len(p) for p in played)
    example = _format_play(_example(legal, played))
    if used < most:
        if len(rolled) == 2 and most == 2:
            return IllegalPlay(
                "must_play_both",
                f"both dice must be played when possible: {example} is legal",
                example=example,
                played=used,
                playable=most,
                **data,
            )
        return IllegalPlay(
            "must_play_more",
            f"{most} of the dice can be played, not just {used}: {example} is legal",
            example=example,
            played=used,
            playable=most,
            **data,
        )
    larger = max(s.die for s in legal[0].steps)
    if most == 1 and all(s.die < larger for p in played for s in p):
        return IllegalPlay(
            "must_play_larger",
            f"the {larger} must be played (only one die can be played, so the larger): "
            f"{example} is legal",
            example=example,
            die=larger,
            **data,
        )
    top = sum(s.die for s in legal[0].steps)
    if most > 1 and all(sum(s.die for s in p) < top for p in played):
        # Three dice (Garanquet): the dice left unplayed must be the smallest.
        return IllegalPlay(
            "must_play_larger",
            f"the larger dice must be played (not all {len(rolled)} can be): {example} is legal",
            example=example,
            die=larger,
            **data,
        )
    return IllegalPlay(
        "not_legal", f"{roll}: not a legal play; {example} is", example=example, **data
    )


def _example(legal: list[Play], played: list[tuple[Step, ...]]) -> Play:
    """A legal play that continues what was written, when there is one."""
    for steps in played:
        wanted = sorted((s.origin, s.dest) for s in steps)
        for play in legal:
            have = sorted((s.origin, s.dest) for s in play.steps)
            if all(have.count(w) >= wanted.count(w) for w in wanted):
                return play
    return legal[0]
