"""Recomputing a rating pool over plain data: from scratch, or from a checkpoint.

    recompute(settings, matches)             -> (final state, history rows)
    recompute_from(checkpoint, later)        -> (final state, history rows after it)
    state_from_history(settings, rows)       -> the checkpoint those rows lead to
    apply_match(state, match)                 FIBS, one match
    apply_period(state, matches, period)      Glicko-2, one rating period

All of them run the same loop (``recompute`` is ``recompute_from`` an empty
pool, ``apply_*`` are ``recompute_from`` one match or period), so the same
matches in the same order give bit-for-bit the same floats whichever way they
are fed.

The incremental correction (a late or corrected result at position K):

- FIBS: read the history rows of matches before K (``(played_at, match_id) <
  K``) into ``state_from_history``; rate every match from K onward with
  ``recompute_from``; replace the rows from K onward with the rows returned.
- Glicko-2: the same at the start of K's rating period P: rows with
  ``period < P``, matches with ``period >= P``.

The result equals a recomputation from scratch (tests/ratings/core checks it
on random histories).  The match order is checked as it goes: a match at or
before the checkpoint's position, or a Glicko-2 period at or before its last
period, is a RatingError.

The loops are written for speed (RATINGS.md: a million FIBS matches in about
0.4 s of maths; tests/benchmarks/bench_ratings_maths.py measures it):
per-player tuples in one dict, per-length constants and K values from tables,
an order check that costs one comparison in the usual case, history rows
built as tuples, and the cyclic garbage collector paused while millions of
rows are allocated (it would otherwise rescan them over and over: 40 %
slower at a million matches; nothing built here forms a cycle).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any, overload

from ratings.core import fibs, glicko2
from ratings.core.errors import RatingError
from ratings.core.state import (
    FibsRow,
    FibsSettings,
    Glicko2Row,
    Glicko2Settings,
    PlayerState,
    PoolState,
    RatedMatch,
)

# The same numbers fibs.match_update uses, precomputed for the lengths played.
_LENGTHS: dict[int, tuple[float, float]] = {n: fibs.length_constants(n) for n in range(1, 65)}
_K_TABLE: tuple[float, ...] = tuple(fibs.k_factor(e) for e in range(fibs.SETTLED_EXPERIENCE))

DEFAULT_CHUNK = 50_000

_FibsTuple = tuple[float, int, int, datetime | None]
_GlickoTuple = tuple[float, float, float, int, int, datetime | None, int | None]


@overload
def empty_state(
    settings: FibsSettings, seeds: Mapping[int, PlayerState] | None = ...
) -> PoolState[FibsSettings]: ...
@overload
def empty_state(
    settings: Glicko2Settings, seeds: Mapping[int, PlayerState] | None = ...
) -> PoolState[Glicko2Settings]: ...
def empty_state(
    settings: FibsSettings | Glicko2Settings, seeds: Mapping[int, PlayerState] | None = None
) -> PoolState[Any]:
    """A pool before any match: everyone at the settings' start values, except ``seeds``
    (players carried over from elsewhere, with their own starting state)."""
    players: dict[int, PlayerState] = {}
    for player, seed in (seeds or {}).items():
        if seed.experience < 0 or seed.matches < 0:
            raise RatingError("bad_seed", "experience and matches are >= 0", player=player)
        if isinstance(settings, Glicko2Settings) and (seed.rd is None or seed.volatility is None):
            seed = PlayerState(
                rating=seed.rating,
                experience=seed.experience,
                matches=seed.matches,
                rd=settings.start_rd if seed.rd is None else seed.rd,
                volatility=settings.start_volatility
                if seed.volatility is None
                else seed.volatility,
                last_played_at=seed.last_played_at,
                last_period=seed.last_period,
            )
        players[player] = seed
    return PoolState(settings, players)


@overload
def recompute(
    settings: FibsSettings,
    matches: Sequence[RatedMatch],
    *,
    seeds: Mapping[int, PlayerState] | None = ...,
    history: bool = ...,
    sink: Callable[[list[FibsRow]], object] | None = ...,
    chunk: int = ...,
) -> tuple[PoolState[FibsSettings], list[FibsRow]]: ...
@overload
def recompute(
    settings: Glicko2Settings,
    matches: Sequence[RatedMatch],
    *,
    seeds: Mapping[int, PlayerState] | None = ...,
    history: bool = ...,
    sink: Callable[[list[Glicko2Row]], object] | None = ...,
    chunk: int = ...,
) -> tuple[PoolState[Glicko2Settings], list[Glicko2Row]]: ...
def recompute(
    settings: FibsSettings | Glicko2Settings,
    matches: Sequence[RatedMatch],
    *,
    seeds: Mapping[int, PlayerState] | None = None,
    history: bool = True,
    sink: Callable[[list[Any]], object] | None = None,
    chunk: int = DEFAULT_CHUNK,
) -> tuple[PoolState[Any], list[FibsRow]] | tuple[PoolState[Any], list[Glicko2Row]]:
    """Rate ``matches`` (sorted by (played_at, match_id)) from the start values.

    See ``recompute_from`` for ``history``, ``sink`` and ``chunk``.
    """
    return recompute_from(
        empty_state(settings, seeds), matches, history=history, sink=sink, chunk=chunk
    )


@overload
def recompute_from(
    checkpoint: PoolState[FibsSettings],
    matches: Sequence[RatedMatch],
    *,
    history: bool = ...,
    sink: Callable[[list[FibsRow]], object] | None = ...,
    chunk: int = ...,
) -> tuple[PoolState[FibsSettings], list[FibsRow]]: ...
@overload
def recompute_from(
    checkpoint: PoolState[Glicko2Settings],
    matches: Sequence[RatedMatch],
    *,
    history: bool = ...,
    sink: Callable[[list[Glicko2Row]], object] | None = ...,
    chunk: int = ...,
) -> tuple[PoolState[Glicko2Settings], list[Glicko2Row]]: ...
def recompute_from(
    checkpoint: PoolState[Any],
    matches: Sequence[RatedMatch],
    *,
    history: bool = True,
    sink: Callable[[list[Any]], object] | None = None,
    chunk: int = DEFAULT_CHUNK,
) -> tuple[PoolState[Any], list[FibsRow]] | tuple[PoolState[Any], list[Glicko2Row]]:
    """Continue from ``checkpoint`` with ``matches`` (sorted, all after its position).

    Returns the new state and the history rows of ``matches``, in order.  The
    checkpoint is not changed; the new state shares its unchanged players.

    - ``history=False``: no rows are built (the list returned is empty);
    - ``sink``: rows are handed to it in lists of about ``chunk`` rows as they
      are made (to stream them into COPY without holding millions at once),
      and the list returned is empty.
    """
    if chunk < 1:
        raise RatingError("bad_chunk", "chunk must be at least 1", chunk=chunk)
    out = _Out(history, sink, chunk)
    with _collector_paused():
        if isinstance(checkpoint.settings, FibsSettings):
            return _fibs_run(checkpoint, matches, out)
        return _glicko2_run(checkpoint, matches, out)


def apply_match(
    state: PoolState[FibsSettings], match: RatedMatch
) -> tuple[PoolState[FibsSettings], list[FibsRow]]:
    """FIBS: the pool after one more rated match, and its two history rows (winner, loser)."""
    if not isinstance(state.settings, FibsSettings):
        raise RatingError("wrong_system", "apply_match is for FIBS pools; use apply_period")
    return _fibs_run(state, (match,), _Out())


def apply_period(
    state: PoolState[Glicko2Settings], period_matches: Sequence[RatedMatch], period: int
) -> tuple[PoolState[Glicko2Settings], list[Glicko2Row]]:
    """Glicko-2: the pool after one rating period, and one history row per player in it.

    Every match must carry ``period``; players who did not play keep their
    values (their RD grows lazily, counted from their ``last_period``).
    """
    if not isinstance(state.settings, Glicko2Settings):
        raise RatingError("wrong_system", "apply_period is for Glicko-2 pools; use apply_match")
    _check_period(period, state.period)
    for match in period_matches:
        if match.period != period:
            raise RatingError(
                "period_mismatch",
                "every match of the period must carry that period",
                match_id=match.match_id,
                period=match.period,
                expected=period,
            )
    if not period_matches:
        return PoolState(state.settings, state.players, state.position, period), []
    return _glicko2_run(state, period_matches, _Out())


@overload
def state_from_history(
    settings: FibsSettings,
    rows: Iterable[FibsRow],
    *,
    seeds: Mapping[int, PlayerState] | None = ...,
) -> PoolState[FibsSettings]: ...
@overload
def state_from_history(
    settings: Glicko2Settings,
    rows: Iterable[Glicko2Row],
    *,
    seeds: Mapping[int, PlayerState] | None = ...,
) -> PoolState[Glicko2Settings]: ...
def state_from_history(
    settings: FibsSettings | Glicko2Settings,
    rows: Iterable[FibsRow] | Iterable[Glicko2Row],
    *,
    seeds: Mapping[int, PlayerState] | None = None,
) -> PoolState[Any]:
    """The pool state after the matches whose history ``rows`` are given (in any order).

    Give every row up to the checkpoint and none after it (and the same
    ``seeds`` as the recomputation that wrote them): each player's latest row
    gives their values after, the rows' count (FIBS) or ``matches`` sum
    (Glicko-2) their match count, the latest key the pool's position.
    """
    base = empty_state(settings, seeds)
    latest: dict[int, FibsRow | Glicko2Row] = {}
    counts: dict[int, int] = {}
    position = base.position
    period = base.period
    glicko = isinstance(settings, Glicko2Settings)
    for row in rows:
        if isinstance(row, Glicko2Row) != glicko:
            raise RatingError("wrong_system", "history rows of the other rating system")
        key = (row.played_at, row.match_id)
        player = row.player
        known = latest.get(player)
        if known is None or key > (known.played_at, known.match_id):
            latest[player] = row
        counts[player] = counts.get(player, 0) + (row.matches if isinstance(row, Glicko2Row) else 1)
        if position is None or key > position:
            position = key
        if isinstance(row, Glicko2Row) and (period is None or row.period > period):
            period = row.period
    players = dict(base.players)
    for player, row in latest.items():
        seed = base.players.get(player)
        matches = counts[player] + (seed.matches if seed is not None else 0)
        if isinstance(row, Glicko2Row):
            players[player] = PlayerState(
                rating=row.rating_after,
                experience=row.experience_after,
                matches=matches,
                rd=row.rd_after,
                volatility=row.volatility_after,
                last_played_at=row.played_at,
                last_period=row.period,
            )
        else:
            players[player] = PlayerState(
                rating=row.rating_after,
                experience=row.experience_after,
                matches=matches,
                last_played_at=row.played_at,
            )
    return PoolState(settings, players, position, period)


# --- the loops ------------------------------------------------------------------------


@contextmanager
def _collector_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(frozen=True, slots=True)
class _Out:
    """Where history rows go: nowhere, the list returned, or a sink in chunks."""

    history: bool = True
    sink: Callable[[list[Any]], object] | None = None
    chunk: int = DEFAULT_CHUNK

    @property
    def flush_at(self) -> int:
        return self.chunk if self.sink is not None else sys.maxsize

    def flush(self, rows: list[Any]) -> list[Any]:
        """Hand ``rows`` to the sink if there is one; the list to go on with."""
        if self.sink is None:
            return rows
        if rows:
            self.sink(rows)
        return []


class _Working(dict[int, Any]):
    """Players' working tuples; a player not touched yet comes from the checkpoint."""

    __slots__ = ("convert", "source", "start")

    def __init__(
        self,
        source: Mapping[int, PlayerState],
        start: tuple[Any, ...],
        convert: Callable[[PlayerState], tuple[Any, ...]],
    ) -> None:
        super().__init__()
        self.source = source
        self.start = start
        self.convert = convert

    def __missing__(self, player: int) -> tuple[Any, ...]:
        known = self.source.get(player)
        return self.start if known is None else self.convert(known)


def _fibs_tuple(player: PlayerState) -> _FibsTuple:
    return player.rating, player.experience, player.matches, player.last_played_at


def _order_error(match_id: int) -> RatingError:
    return RatingError(
        "match_order",
        "matches must come in strictly increasing (played_at, match id) order, "
        "after the checkpoint",
        match_id=match_id,
    )


def _same_player_error(match_id: int, player: int) -> RatingError:
    return RatingError(
        "same_player", "a player cannot play themselves", match_id=match_id, player=player
    )


def _fibs_run(
    state: PoolState[FibsSettings], matches: Sequence[RatedMatch], out: _Out
) -> tuple[PoolState[FibsSettings], list[FibsRow]]:
    settings = state.settings
    work = _Working(
        state.players, (settings.start_rating, settings.start_experience, 0, None), _fibs_tuple
    )
    lengths = dict(_LENGTHS)
    k_table = _K_TABLE
    settled = fibs.SETTLED_EXPERIENCE
    history = out.history
    flush_at = out.flush_at
    rows: list[FibsRow] = []
    append = rows.append
    make = tuple.__new__
    if not matches:
        return PoolState(settings, state.players, state.position, state.period), out.flush([])
    # The order check, split so that the usual case (a later time) costs one comparison.
    last_at, last_id = (
        state.position
        if state.position is not None
        else (matches[0].played_at, matches[0].match_id - 1)
    )
    for match_id, played_at, winner, loser, length, _ in matches:
        if played_at <= last_at and (played_at < last_at or match_id <= last_id):
            raise _order_error(match_id)
        last_at = played_at
        last_id = match_id
        if winner == loser:
            raise _same_player_error(match_id, winner)
        try:
            scale, four_root = lengths[length]
        except KeyError:
            scale, four_root = lengths[length] = fibs.length_constants(length)
        rating_w, exp_w, count_w, _ = work[winner]
        rating_l, exp_l, count_l, _ = work[loser]
        # fibs.match_update, inlined: 4 sqrt(N) q, then each side's own K.
        gain = four_root / (1.0 + 10.0 ** ((rating_w - rating_l) * scale))
        new_w = rating_w + (k_table[exp_w] if exp_w < settled else 1.0) * gain
        new_l = rating_l - (k_table[exp_l] if exp_l < settled else 1.0) * gain
        after_w = exp_w + length
        after_l = exp_l + length
        work[winner] = (new_w, after_w, count_w + 1, played_at)
        work[loser] = (new_l, after_l, count_l + 1, played_at)
        if history:
            append(make(FibsRow, (winner, match_id, played_at, rating_w, new_w, exp_w, after_w)))
            append(make(FibsRow, (loser, match_id, played_at, rating_l, new_l, exp_l, after_l)))
            if len(rows) >= flush_at:
                rows = out.flush(rows)
                append = rows.append
    rows = out.flush(rows)
    players = dict(state.players)
    for player, (rating, experience, count, played_at) in work.items():
        players[player] = PlayerState(
            rating=rating, experience=experience, matches=count, last_played_at=played_at
        )
    return PoolState(settings, MappingProxyType(players), (last_at, last_id), state.period), rows


def _check_period(period: object, last: int | None) -> int:
    if isinstance(period, bool) or not isinstance(period, int):
        raise RatingError("no_period", "a Glicko-2 match needs its rating period", period=period)
    if last is not None and period <= last:
        raise RatingError(
            "period_order",
            "rating periods must come in increasing order, after the checkpoint's",
            period=period,
            last=last,
        )
    return period


def _glicko_tuple(player: PlayerState) -> _GlickoTuple:
    assert player.rd is not None and player.volatility is not None  # empty_state fills them
    return (
        player.rating,
        player.rd,
        player.volatility,
        player.experience,
        player.matches,
        player.last_played_at,
        player.last_period,
    )


def _glicko2_run(
    state: PoolState[Glicko2Settings], matches: Sequence[RatedMatch], out: _Out
) -> tuple[PoolState[Glicko2Settings], list[Glicko2Row]]:
    settings = state.settings
    start = (settings.start_rating, settings.start_rd, settings.start_volatility, 0, 0, None, None)
    work = _Working(state.players, start, _glicko_tuple)
    rows: list[Glicko2Row] = []
    last = state.position
    last_period = state.period
    total = len(matches)
    first = 0
    while first < total:
        period = _check_period(matches[first].period, last_period)
        end = first + 1
        while end < total and matches[end].period == period:
            end += 1
        last = _glicko2_period(work, matches[first:end], period, settings, last, out.history, rows)
        if len(rows) >= out.flush_at:
            rows = out.flush(rows)
        last_period = period
        first = end
    rows = out.flush(rows)
    players = dict(state.players)
    for player, values in work.items():
        rating, rd, volatility, experience, count, played_at, played_period = values
        players[player] = PlayerState(
            rating=rating,
            experience=experience,
            matches=count,
            rd=rd,
            volatility=volatility,
            last_played_at=played_at,
            last_period=played_period,
        )
    return PoolState(settings, MappingProxyType(players), last, last_period), rows


def _glicko2_period(
    work: _Working,
    matches: Sequence[RatedMatch],
    period: int,
    settings: Glicko2Settings,
    last: tuple[datetime, int] | None,
    history: bool,
    rows: list[Glicko2Row],
) -> tuple[datetime, int] | None:
    """Rate one period in place in ``work``; returns the last match's key."""
    games: dict[int, list[tuple[int, float]]] = {}
    last_match: dict[int, tuple[datetime, int]] = {}
    played: dict[int, int] = {}
    for match_id, played_at, winner, loser, length, _ in matches:
        key = (played_at, match_id)
        if last is not None and key <= last:
            raise _order_error(match_id)
        last = key
        if winner == loser:
            raise _same_player_error(match_id, winner)
        fibs.check_length(length)
        games.setdefault(winner, []).append((loser, 1.0))
        games.setdefault(loser, []).append((winner, 0.0))
        last_match[winner] = last_match[loser] = key
        played[winner] = played.get(winner, 0) + length
        played[loser] = played.get(loser, 0) + length

    # Everyone's values at the start of the period (RD grown for periods sat out).
    before: dict[int, _GlickoTuple] = {}
    scaled: dict[int, tuple[float, float, float]] = {}
    max_rd = settings.max_rd
    for player in games:
        rating, rd, volatility, experience, count, played_at, last_period = work[player]
        if last_period is not None:
            rd = glicko2.grown_rd(rd, volatility, period - last_period - 1, max_rd)
        before[player] = (rating, rd, volatility, experience, count, played_at, last_period)
        mu, phi = glicko2.to_scale(rating, rd)
        scaled[player] = (mu, phi, glicko2.g(phi))

    tau = settings.tau
    epsilon = settings.epsilon
    after: dict[int, _GlickoTuple] = {}
    for player, opponents in games.items():
        mu, phi, _ = scaled[player]
        results = [(scaled[o][0], scaled[o][2], score) for o, score in opponents]
        volatility = before[player][2]
        mu_new, phi_new, volatility_new = glicko2.scaled_update(
            mu, phi, volatility, results, tau, epsilon
        )
        rating_new, rd_new = glicko2.from_scale(mu_new, phi_new)
        experience = before[player][3]
        after[player] = (
            rating_new,
            rd_new,
            volatility_new,
            experience + played[player],
            before[player][4] + len(opponents),
            last_match[player][0],
            period,
        )
    work.update(after)

    if history:
        # Rows in (played_at, match id, player) order: players by their last match.
        make = tuple.__new__
        append = rows.append
        for player in _by_last_match(matches):
            old = before[player]
            new = after[player]
            played_at, match_id = last_match[player]
            append(
                make(
                    Glicko2Row,
                    (
                        player,
                        match_id,
                        played_at,
                        period,
                        len(games[player]),
                        old[0],
                        new[0],
                        old[1],
                        new[1],
                        old[2],
                        new[2],
                        old[3],
                        new[3],
                    ),
                )
            )
    return last


def _by_last_match(matches: Sequence[RatedMatch]) -> list[int]:
    """The players of ``matches`` (sorted) ordered by their last match, then by id."""
    seen: set[int] = set()
    order: list[int] = []
    for match in reversed(matches):
        new = [p for p in (match.winner, match.loser) if p not in seen]
        seen.update(new)
        order.extend(sorted(new, reverse=True))
    order.reverse()
    return order
