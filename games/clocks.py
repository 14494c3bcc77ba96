"""Match clocks: plain arithmetic over milliseconds, shared by the recording service
(which charges each turn to the side that made it) and the board page (which
shows the running clock between turns), and a clock's reading in figures
(``clock_reading``), which the pages and the services' refusals both show.

A side's clock runs from the previous turn until its own turn is recorded.
With a delay (Bronstein-style "simple delay") the first ``move_seconds`` of
each move are free; with an increment, ``move_seconds`` are added after a
move made in time.  A clock never goes below zero: at zero the flag has
fallen, and only games.services.record_timeout turns that into a loss.
"""

from __future__ import annotations

import datetime
from typing import Any

from games.models import ClockMode


def used_ms(mode: str, move_seconds: int, elapsed_ms: int) -> int:
    """What a move that took ``elapsed_ms`` costs the mover's reserve."""
    if mode == ClockMode.DELAY:
        return max(0, elapsed_ms - move_seconds * 1000)
    return max(0, elapsed_ms)


def after_move(mode: str, move_seconds: int, remaining_ms: int, elapsed_ms: int) -> int:
    """The mover's reserve once a move that took ``elapsed_ms`` is recorded."""
    left = max(0, remaining_ms - used_ms(mode, move_seconds, elapsed_ms))
    if mode == ClockMode.INCREMENT and left > 0:
        left += move_seconds * 1000
    return left


def running_clocks(
    *,
    mode: str,
    move_seconds: int,
    stored_ms: tuple[int, int],
    running: int | None,
    since: datetime.datetime | None,
    now: datetime.datetime,
) -> dict[str, Any]:
    """Both clocks at ``now``: ``stored_ms`` (players 1 and 2, after the last turn)
    less the time the ``running`` player has used since ``since``, when their move began.

    An increment was added to the stored figure when the previous move was
    recorded, so nothing more is added here.  ``delay_ms`` is what is left of
    the running move's delay, so that the page can go on counting by itself.
    """
    remaining = list(stored_ms)
    delay_ms = 0
    if running in (1, 2) and since is not None:
        elapsed = max(0, int((now - since).total_seconds() * 1000))
        if mode == ClockMode.DELAY:
            delay_ms = max(0, move_seconds * 1000 - elapsed)
        used = used_ms(mode, move_seconds, elapsed)
        remaining[running - 1] = max(0, remaining[running - 1] - used)
    else:
        running = None
    return {
        "mode": mode,
        "remaining_ms": remaining,
        "running": running,
        "delay_ms": delay_ms,
        "flag": [ms == 0 for ms in remaining],
    }


def clock_reading(ms: int | None) -> str:
    """A clock's remaining time as ``m:ss`` (``h:mm:ss`` past an hour); empty if unknown."""
    if ms is None:
        return ""
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
