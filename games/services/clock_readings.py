"""What the clocks of a clocked match read, by the server's own time stamps.

A turn is charged to the side that made it (``charged_clock``, when
``record_turn`` saves it); between turns the clock of the side to act runs
(``clocks_now``, which the board shows); a loss on time is claimed on that
same reading (``server_flag_fell``).  The arithmetic is games.clocks'.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.rules import game as eg
from games import adapters, clocks
from games.models import ClockSource, Game, Match, MatchState, Turn, TurnKind


def charged_clock(
    match: Match, live: Sequence[Turn], side: int, kind: str
) -> tuple[int | None, int | None]:
    """Both reserves once this turn is recorded: the time since the game's previous
    turn is charged to ``side`` (games.clocks).  The opening roll charges nobody."""
    values = list(adapters.stored_clocks(match))
    if kind != TurnKind.OPENING and live:
        elapsed = int((timezone.now() - live[-1].recorded_at).total_seconds() * 1000)
        values[side - 1] = clocks.after_move(
            match.clock_mode, match.clock_move_seconds, values[side - 1], elapsed
        )
    return values[0], values[1]


def clocks_now(
    match: Match,
    turns: Sequence[Turn],
    state: eg.GameState,
    now: datetime.datetime | None = None,
) -> dict[str, Any]:
    """Both clocks of a clocked match at ``now`` (games.clocks.running_clocks), from
    what the server recorded: the readings kept with the turns, less what the side
    to act has used since the game's last turn was recorded.  ``turns`` are the live
    turns of the game on the board and ``state`` its engine state.  The clock runs
    from the game's first turn on, for whoever must act, until the match ends."""
    to_act = state.to_act
    running = None
    if match.recorded and match.state == MatchState.PLAYING and turns and to_act is not None:
        running = adapters.player_of(to_act)
    return clocks.running_clocks(
        mode=match.clock_mode,
        move_seconds=match.clock_move_seconds,
        stored_ms=adapters.stored_clocks(match),
        running=running,
        since=turns[-1].recorded_at if turns else None,
        now=timezone.now() if now is None else now,
    )


def last_reading_is_physical(match: Match) -> bool:
    """Whether the newest clock reading of the match was read off a physical clock."""
    source = (
        Turn.objects.filter(game__match=match, undone_at__isnull=True)
        .filter(Q(clock1_ms__isnull=False) | Q(clock2_ms__isnull=False))
        .order_by("-game__number", "-number")
        .values_list("clock_source", flat=True)
        .first()
    )
    return source == ClockSource.PHYSICAL


def server_flag_fell(match: Match, game: Game, live: list[Turn], loser: int) -> list[int]:
    """Both clocks now, as the server charged them, when they show that ``loser``'s
    flag fell; else ValidationError.  Readings of a physical clock are the
    arbiter's to rule on: a claim on them is refused."""
    if last_reading_is_physical(match):
        raise ValidationError(
            _(
                "The clocks of this match are read off a physical clock: the arbiter "
                "rules on a loss on time."
            ),
            code="arbiter_rules_on_time",
        )
    state = adapters.replay(match, game, live)
    remaining: list[int] = clocks_now(match, live, state)["remaining_ms"]
    if remaining[loser - 1] > 0:
        raise ValidationError(
            _(
                "%(name)s still has %(left)s on the clock: a loss on time is claimed "
                "only once their time has run out."
            )
            % {"name": match.player(loser), "left": _clock_text(remaining[loser - 1])},
            code="time_left",
        )
    return remaining


def _clock_text(ms: int) -> str:
    """The time left in whole seconds, rounded up: a clock with time left never reads 0:00."""
    return clocks.clock_reading(-(-ms // 1000) * 1000)
