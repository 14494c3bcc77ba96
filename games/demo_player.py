"""A simple engine-driven player that plays the demo's matches move by move.

The demo data (tournaments.demo) shows replays, so its matches are played
turn by turn by this player: it rolls seeded dice, asks the engine for the
legal plays and picks the one a cheap one-ply heuristic likes best (hit, make
points, leave no blots, bear off; in long nardy advance and build blocks).  A
weaker player (``Side.blunder``) sometimes plays a random legal play instead,
so the better player wins more often.  It never doubles nor resigns: games end
by bearing off.  Everything comes from the ``random.Random`` given, so the same
seed plays the same match on every machine.

A match is played in the engine alone (``play``) and then stored whole through
``games.services.record_games``, which checks every action as
``record_turn`` does and writes a game's turns in one insert: the demo plays
some 120 matches, about 40,000 turns, and turn-by-turn recording (a
transaction, a lock and a replay for each) would make loading it minutes long.

Not a strong player, and not meant to be one: the data only has to look like
nardy to a human reading the replay.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from django.db import connection

from engine.records.notation import format_play
from engine.rules import game as eg
from engine.rules import match as em
from engine.rules.board import BAR, OFF, Position, other
from engine.rules.dice import RecordedDice
from engine.rules.plays import Play
from engine.rules.variants import Variant
from games import adapters, services
from games.clocks import after_move
from games.models import ClockMode, Match, Turn, TurnKind


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
    # One pass over the board: the demo scores every legal play of some 28,000 long
    # nardy turns, so this is the player's hot loop.
    mine = play.position.side(side)
    occupied = run = best = home = piled = pips = 0
    for q in range(1, 24):  # the head (24) blocks nothing
        count = mine[q]
        if count:
            pips += q * count
            occupied += 1
            run += 1
            best = max(best, run)
            if q <= 6:
                home += count
            if count > 3:
                piled += count - 3
        else:
            run = 0
    pips += 24 * mine[24] + BAR * mine[BAR]
    return (
        6.0 * mine[OFF]
        + 0.8 * occupied
        + 1.5 * min(best, 5)  # a block of points in a row holds the opponent back
        # Bring checkers home and keep them spread, not piled on a few points.
        + 0.5 * home
        - 0.3 * piled
        - 0.01 * pips
    )


def choose(state: eg.GameState, rng: random.Random, blunder: float = 0.0) -> Play:
    """The play this player makes in ``state`` (a play is awaited, the dice on the table)."""
    plays = eg.legal_plays(state)
    if len(plays) == 1:
        return plays[0]
    if blunder and rng.random() < blunder:
        return rng.choice(plays)
    variant = state.variant
    side = state.turn
    assert side is not None
    evaluate = _score_short if variant.hitting else _score_long
    # The written form of the play is what gets stored: the engine reads back every
    # legal play as written (tests/engine/test_written_play_orders.py), and
    # services.record_games checks it.  A tiny seeded jitter breaks ties the same way
    # on every machine.
    return max(
        plays, key=lambda p: evaluate(variant, state.position, p, side) + rng.random() * 1e-3
    )


def play(
    match: Match,
    rng: random.Random,
    sides: tuple[Side, Side] = (Side(), Side()),
    *,
    most_games: int | None = None,
) -> list[list[adapters.TurnInput]]:
    """The actions of ``match``'s games as this player plays them in the engine, to the
    match's end or only its first ``most_games`` games (a match still being played).
    Nothing is stored: ``record_games`` stores (and checks) them."""
    record = em.Match(adapters.rules_for(match), length=match.length)
    games: list[list[adapters.TurnInput]] = []
    while not record.finished and (most_games is None or len(games) < most_games):
        white, black = rng.sample(range(1, 7), 2)
        opening = adapters.TurnInput(TurnKind.OPENING, (white, black))
        state = adapters.apply_turn(record.new_game(), opening)
        turns = [opening]
        while not state.finished:
            if state.phase is eg.Phase.ROLL:
                dice: tuple[int, ...] = (rng.randint(1, 6), rng.randint(1, 6))
                rolled = eg.roll(state, RecordedDice([dice]))
            else:  # the opening dice are the starter's first roll
                dice, rolled = state.dice, state
            side = rolled.turn
            assert side is not None
            chosen = choose(rolled, rng, sides[side].blunder)
            turns.append(adapters.TurnInput(TurnKind.PLAY, dice, format_play(chosen)))
            state = eg.apply_legal_play(rolled, chosen)  # one of its legal plays
        assert state.result is not None
        record = record.record(state.result)
        games.append(turns)
    return games


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
    """Play ``match`` (recorded move by move, nothing recorded yet) to its end, or only
    its first ``most_games`` games (a match still being played), and record it as
    the system (``by=None``) through ``services.record_games``: its result is the
    engine's score of the games played."""
    games = play(match, rng, sides, most_games=most_games)
    stored = services.record_games(match, games, by=None)
    return Recording(stored.turns, stored.games, stored.finished)


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
    last one was recorded then."""
    turns = list(
        Turn.objects.filter(game__match=match)
        .order_by("game__number", "number")
        .values_list("pk", "kind", "side")
    )
    if not turns:
        return start
    # Setting up the board takes a while, a play a few seconds.
    thinking = [
        rng.uniform(20, 60) if kind == TurnKind.OPENING else rng.uniform(3, 12)
        for _, kind, _ in turns
    ]
    scale = min(1.0, within.total_seconds() / sum(thinking))
    if end_by is not None:
        start = max(start, end_by - datetime.timedelta(seconds=sum(thinking) * scale))
    reserve = match.clock_reserve_ms()
    clocks: list[int | None] = [reserve, reserve]
    if match.clock_mode == ClockMode.NONE:
        clocks = [None, None]
    at = start
    rows: list[tuple[object, int | None, int | None, int]] = []
    for (pk, kind, side), seconds in zip(turns, thinking, strict=True):
        elapsed = datetime.timedelta(seconds=seconds * scale)
        mover = clocks[side - 1]
        if mover is not None and kind != TurnKind.OPENING:  # the opening roll charges nobody
            clocks[side - 1] = after_move(
                match.clock_mode,
                match.clock_move_seconds,
                mover,
                int(elapsed.total_seconds() * 1000),
            )
        at += elapsed
        rows.append((connection.ops.adapt_datetimefield_value(at), clocks[0], clocks[1], pk))
    # One statement run for every turn: bulk_update's CASE expressions cost far more
    # (some 40,000 turns in the demo), and the services cannot date a turn (its time
    # stamp is set when it is saved).
    table = connection.ops.quote_name(Turn._meta.db_table)
    columns = [
        connection.ops.quote_name(Turn._meta.get_field(name).column)
        for name in ("recorded_at", "clock1_ms", "clock2_ms", "id")
    ]
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {table} SET {columns[0]} = %s, {columns[1]} = %s, {columns[2]} = %s "
            f"WHERE {columns[3]} = %s",
            rows,
        )
    return at
