"""A simple engine-driven player that records demo matches move by move.

The demo data (tournaments.demo) shows replays, so its matches are played
turn by turn through ``games.services.record_turn``, exactly as players record
them, by this player: it rolls seeded dice, asks the engine for the legal plays
and picks the one a cheap one-ply heuristic likes best (hit, make points, leave
no blots, bear off; in long nardy advance and build blocks).  A weaker player
(``Side.blunder``) sometimes plays a random legal play instead, so the better
player wins more often.  It never doubles nor resigns: games end by bearing
off.  Everything comes from the ``random.Random`` given, so the same seed
records the same match on every machine.

Not a strong player, and not meant to be one: the data only has to look like
nardy to a human reading the replay.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from engine.errors import EngineError
from engine.records.notation import format_play, parse_moves
from engine.rules import game as eg
from engine.rules.board import BAR, OFF, Position, other
from engine.rules.dice import RecordedDice
from engine.rules.plays import Play
from engine.rules.variants import Variant
from games import services
from games.clocks import after_move
from games.models import ClockMode, Match, MatchState, Turn, TurnKind


@dataclass(frozen=True)
class Side:
    """How one side plays: ``blunder`` is the chance of a random legal play."""

    blunder: float = 0.0


def _blot_shots(variant: Variant, position: Position, side: int, q: int) -> int:
    """How many opposing checkers stand within twelve pips behind my checker on ``q``
    (each could hit it with a roll): a rough measure of the blot's risk."""
    enemy = position.side(other(side))
    target = variant.geometry.opponent_point(side, q)  # the blot's point, their numbering
    return sum(enemy[r] for r in range(target + 1, min(target + 12, BAR) + 1))


def _score_short(variant: Variant, before: Position, play: Play, side: int) -> float:
    after = play.position
    mine = after.side(side)
    theirs = after.side(other(side))
    score = 0.0
    score += 6.0 * (theirs[BAR] - before.side(other(side))[BAR])  # hits
    score += 4.0 * mine[OFF]
    for q in range(1, 25):
        count = mine[q]
        if count >= 2:
            score += 2.0 if q <= 6 else 1.2  # made points, home ones most
        elif count == 1:
            shots = _blot_shots(variant, after, side, q)
            score -= (1.5 if q <= 6 else 1.0) * min(shots, 4)
    # Race: fewer pips to go is better, weighted lightly (every play moves the same dice).
    score -= 0.02 * after.pips(side)
    return score


def _score_long(variant: Variant, before: Position, play: Play, side: int) -> float:
    after = play.position
    mine = after.side(side)
    score = 6.0 * mine[OFF]
    occupied = [q for q in range(1, 24) if mine[q]]  # the head (24) blocks nothing
    score += 0.8 * len(occupied)
    run = best = 0
    for q in range(1, 24):
        run = run + 1 if mine[q] else 0
        best = max(best, run)
    score += 1.5 * min(best, 5)  # a block of points in a row holds the opponent back
    # Bring checkers home and keep them spread, not piled on a few points.
    score += 0.5 * sum(mine[q] for q in range(1, 7))
    score -= 0.3 * sum(max(0, mine[q] - 3) for q in range(1, 24))
    score -= 0.01 * after.pips(side)
    return score


def choose(state: eg.GameState, rng: random.Random, blunder: float = 0.0) -> Play:
    """The play this player makes in ``state`` (a play is awaited, the dice on the table)."""
    plays = eg.legal_plays(state)
    if len(plays) == 1:
        return plays[0]
    if blunder and rng.random() < blunder:
        ranked = rng.sample(plays, len(plays))
    else:
        variant = state.variant
        side = state.turn
        assert side is not None
        evaluate = _score_short if variant.hitting else _score_long
        # A tiny seeded jitter breaks ties the same way on every machine.
        scores = {
            id(p): evaluate(variant, state.position, p, side) + rng.random() * 1e-3 for p in plays
        }
        ranked = sorted(plays, key=lambda p: scores[id(p)], reverse=True)
    for play in ranked:
        if _written_form_replays(state, play):
            return play
    return ranked[0]


def _written_form_replays(state: eg.GameState, play: Play) -> bool:
    """Whether the play, as notation writes it, is read back by the engine as legal:
    a recorded turn is stored as text and replayed from it.  A guard: the engine
    reads back every legal play (tests/engine/test_written_play_orders.py)."""
    try:
        eg.play(state, parse_moves(format_play(play)))
    except EngineError:
        return False
    return True


@dataclass(frozen=True)
class Recording:
    """What ``play_match`` recorded: its turns, games, and whether the match ended."""

    turns: int
    games: int
    finished: bool


def play_match(
    match: Match,
    rng: random.Random,
    sides: tuple[Side, Side] = (Side(), Side()),
    *,
    most_games: int | None = None,
) -> Recording:
    """Record ``match`` (recorded move by move, nothing recorded yet) to its end, or
    only its first ``most_games`` games (a match still being played), by the
    system (``by=None``) through ``services.record_turn``."""
    number = 1
    state: eg.GameState | None = None
    turns = games = 0
    while True:
        if state is None or state.finished:
            if state is not None:
                games += 1
                match.refresh_from_db(fields=["state"])
                if match.state == MatchState.FINISHED:
                    return Recording(turns, games, True)
                if most_games is not None and games >= most_games:
                    return Recording(turns, games, False)
            number = 1
            white, black = rng.sample(range(1, 7), 2)
            state = services.record_turn(
                match, by=None, number=number, kind=TurnKind.OPENING, dice=[white, black]
            ).state
        else:
            if state.phase is eg.Phase.ROLL:
                dice: tuple[int, ...] = (rng.randint(1, 6), rng.randint(1, 6))
                rolled = eg.roll(state, RecordedDice([dice]))
            else:  # the opening dice are the starter's first roll
                dice, rolled = state.dice, state
            side = rolled.turn
            assert side is not None
            play = choose(rolled, rng, sides[side].blunder)
            state = services.record_turn(
                match,
                by=None,
                number=number,
                kind=TurnKind.PLAY,
                dice=list(dice),
                moves=format_play(play),
            ).state
        number += 1
        turns += 1


def date_turns(
    match: Match,
    start: datetime.datetime,
    rng: random.Random,
    *,
    within: datetime.timedelta,
    end_by: datetime.datetime | None = None,
) -> datetime.datetime:
    """Date the match's turns as played from ``start``, each a few seconds of thought
    after the one before (all of them within ``within``), and set both clocks as the
    server would have charged them; return when the last turn was recorded.  The
    services stamped the moment they ran; the demo replays a dated event.  With
    ``end_by`` (a match still being played) the turns are moved later so that the
    last one was recorded then.  One query per batch of turns."""
    turns = list(Turn.objects.filter(game__match=match).order_by("game__number", "number"))
    if not turns:
        return start
    # Setting up the board takes a while, a play a few seconds.
    thinking = [
        rng.uniform(20, 60) if turn.kind == TurnKind.OPENING else rng.uniform(3, 12)
        for turn in turns
    ]
    scale = min(1.0, within.total_seconds() / sum(thinking))
    if end_by is not None:
        start = max(start, end_by - datetime.timedelta(seconds=sum(thinking) * scale))
    reserve = match.clock_reserve_ms()
    clocks = [reserve, reserve]
    clocked = match.clock_mode != ClockMode.NONE
    at = start
    for turn, seconds in zip(turns, thinking, strict=True):
        elapsed = datetime.timedelta(seconds=seconds * scale)
        if clocked and turn.kind != TurnKind.OPENING:  # the opening roll charges nobody
            clocks[turn.side - 1] = after_move(
                match.clock_mode,
                match.clock_move_seconds,
                clocks[turn.side - 1],
                int(elapsed.total_seconds() * 1000),
            )
        at += elapsed
        turn.recorded_at = at
        if clocked:
            turn.clock1_ms, turn.clock2_ms = clocks
    Turn.objects.bulk_update(turns, ["recorded_at", "clock1_ms", "clock2_ms"], batch_size=500)
    return at
