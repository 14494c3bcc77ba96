"""The one adapter between stored rows and the rating maths of ``ratings.core``.

- ``settings_for``: a pool's settings (FederationDiscipline + RatingPool) as core settings;
- ``period_of`` / ``period_start``: Glicko-2 rating periods of
  ``FederationDiscipline.glicko_period_days`` days, counted on the local date
  (TIME_ZONE) of ``Match.finished_at``;
- ``load_matches``: rated matches (a queryset the services filter) as
  ``RatedMatch`` in rating order, ``(finished_at, id)``;
- ``HistoryWriter``: a sink for the history rows the maths streams out, with
  ``COPY`` (binary, psycopg 3) on PostgreSQL and ``bulk_create`` elsewhere;
- ``read_history``: stored rows back as core rows;
- ``checkpoint``: the pool state before a key or period, read back from the
  history rows (each player's latest row and their match count);
- ``save_ratings``: players' current ``PlayerRating`` rows from a state.

A ``Key`` is ``(played_at, match id)``, the order in which matches are rated.
"""

from __future__ import annotations

import datetime as dt
import gc
from collections.abc import Collection, Iterable, Iterator, Sequence
from operator import itemgetter
from typing import Any

from django.db import connection
from django.db.models import F, Q, QuerySet, Sum, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from games.models import Match
from ratings.core import (
    FibsRow,
    FibsSettings,
    Glicko2Row,
    Glicko2Settings,
    PlayerState,
    PoolState,
    RatedMatch,
    Settings,
)
from ratings.core.periods import day_period, day_period_start
from ratings.models import PlayerRating, RatingChange, RatingPool

Key = tuple[dt.datetime, int]
HistoryRow = FibsRow | Glicko2Row

# A filter on many players is one SQL parameter each; past this, read them all.
PLAYER_FILTER_LIMIT = 500
BULK_BATCH = 2000

# Rows handed to the COPY writer at a time (each chunk is sorted by player).
COPY_CHUNK = 25_000

_by_player = itemgetter(0)

# RatingChange columns in the order rows are written, and their binary COPY types.
_COPY_FIELDS = (
    ("pool", "int8"),
    ("player", "int8"),
    ("match", "int8"),
    ("played_at", "timestamptz"),
    ("period", "int4"),
    ("matches", "int4"),
    ("rating_before", "float8"),
    ("rating_after", "float8"),
    ("experience_before", "int4"),
    ("experience_after", "int4"),
    ("rd_before", "float8"),
    ("rd_after", "float8"),
    ("volatility_before", "float8"),
    ("volatility_after", "float8"),
)


# --- Settings and periods ----------------------------------------------------------


def is_glicko(pool: RatingPool) -> bool:
    return pool.rated_discipline.rating_system == "glicko2"


def settings_for(pool: RatingPool) -> Settings:
    rated = pool.rated_discipline
    start = float(rated.initial_rating)
    if is_glicko(pool):
        return Glicko2Settings(
            tau=pool.glicko_tau,
            start_rating=start,
            start_rd=pool.start_rd,
            start_volatility=pool.start_volatility,
            max_rd=pool.start_rd,
        )
    return FibsSettings(start_rating=start)


def local_date(moment: dt.datetime) -> dt.date:
    return timezone.localtime(moment, timezone.get_default_timezone()).date()


def local_midnight(day: dt.date) -> dt.datetime:
    """The moment ``day`` begins in the project's time zone."""
    return timezone.make_aware(
        dt.datetime.combine(day, dt.time.min), timezone.get_default_timezone()
    )


def period_of(pool: RatingPool, played_at: dt.datetime) -> int | None:
    """The Glicko-2 rating period of a match played at ``played_at`` (None under FIBS)."""
    if not is_glicko(pool):
        return None
    return day_period(local_date(played_at), pool.rated_discipline.glicko_period_days)


def period_start(pool: RatingPool, period: int) -> dt.datetime:
    """The moment Glicko-2 period ``period`` begins."""
    return local_midnight(day_period_start(period, pool.rated_discipline.glicko_period_days))


# --- Key filters ---------------------------------------------------------------------


def matches_from(key: Key) -> Q:
    """Matches at or after ``key`` in rating order."""
    at, match_id = key
    return Q(finished_at__gt=at) | Q(finished_at=at, id__gte=match_id)


def rows_before(key: Key) -> Q:
    """History rows of matches before ``key``."""
    at, match_id = key
    return Q(played_at__lt=at) | Q(played_at=at, match_id__lt=match_id)


def rows_from(key: Key) -> Q:
    at, match_id = key
    return Q(played_at__gt=at) | Q(played_at=at, match_id__gte=match_id)


# --- Matches -------------------------------------------------------------------------

_MATCH_COLUMNS = ("id", "finished_at", "winner", "player1_id", "player2_id", "length")


def load_matches(pool: RatingPool, matches: QuerySet[Match]) -> list[RatedMatch]:
    """``matches`` (already filtered to the rated ones) as RatedMatch, in rating order.

    On PostgreSQL the rows come through a plain cursor (a million rows would
    spend seconds in the ORM's per-row machinery); the SQL is the queryset's own.
    """
    paused = gc.isenabled()
    gc.disable()  # a million small tuples: nothing here forms a cycle (see ratings.core.pool)
    try:
        return _load_matches(pool, matches)
    finally:
        if paused:
            gc.enable()


def _load_matches(pool: RatingPool, matches: QuerySet[Match]) -> list[RatedMatch]:
    ordered = matches.order_by("finished_at", "id").values_list(*_MATCH_COLUMNS)
    rows: Iterable[tuple[Any, ...]]
    if connection.vendor == "postgresql":
        import psycopg

        # The queryset's own SQL, fetched in binary: the text format's timestamps
        # cost three times the whole query to parse.
        sql, params = ordered.query.sql_with_params()
        connection.ensure_connection()
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(sql, params, binary=True)
            rows = cursor.fetchall()
    else:
        rows = ordered
    make = tuple.__new__
    out: list[RatedMatch] = []
    append = out.append
    if is_glicko(pool):
        days = pool.rated_discipline.glicko_period_days
        zone = timezone.get_default_timezone()
        for match_id, played_at, winner, one, two, length in rows:
            period = day_period(played_at.astimezone(zone).date(), days)
            won, lost = (one, two) if winner == 1 else (two, one)
            append(make(RatedMatch, (match_id, played_at, won, lost, length, period)))
    else:
        for match_id, played_at, winner, one, two, length in rows:
            won, lost = (one, two) if winner == 1 else (two, one)
            append(make(RatedMatch, (match_id, played_at, won, lost, length, None)))
    return out


# --- History rows --------------------------------------------------------------------


def _values(pool_id: int, row: HistoryRow) -> tuple[Any, ...]:
    """A core row as the RatingChange column values of ``_COPY_FIELDS``."""
    if isinstance(row, Glicko2Row):
        return (
            pool_id,
            row.player,
            row.match_id,
            row.played_at,
            row.period,
            row.matches,
            row.rating_before,
            row.rating_after,
            row.experience_before,
            row.experience_after,
            row.rd_before,
            row.rd_after,
            row.volatility_before,
            row.volatility_after,
        )
    return (
        pool_id,
        row.player,
        row.match_id,
        row.played_at,
        None,
        1,
        row.rating_before,
        row.rating_after,
        row.experience_before,
        row.experience_after,
        None,
        None,
        None,
        None,
    )


class HistoryWriter:
    """Where ``recompute_from(..., sink=writer)`` streams history rows.

    PostgreSQL: one binary ``COPY`` for the whole run (psycopg 3), open from
    ``__enter__`` to ``__exit__``.  Other databases: ``bulk_create`` in batches.
    Use inside the caller's transaction; ``written`` counts the rows.
    """

    def __init__(self, pool: RatingPool, *, copy: bool | None = None) -> None:
        self.pool_id = pool.pk
        self.copy = connection.vendor == "postgresql" if copy is None else copy
        self.written = 0
        self._cursor: Any = None
        self._copy_context: Any = None
        self._copy: Any = None

    def __enter__(self) -> HistoryWriter:
        if self.copy:
            meta = RatingChange._meta
            columns = ", ".join(
                connection.ops.quote_name(meta.get_field(name).column) for name, _ in _COPY_FIELDS
            )
            table = connection.ops.quote_name(meta.db_table)
            self._cursor = connection.cursor()
            self._copy_context = self._cursor.cursor.copy(
                f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)"
            )
            self._copy = self._copy_context.__enter__()
            self._copy.set_types([kind for _, kind in _COPY_FIELDS])
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            if self._copy_context is not None:
                self._copy_context.__exit__(*exc)
        finally:
            if self._cursor is not None:
                self._cursor.close()
            self._cursor = self._copy_context = self._copy = None

    def __call__(self, rows: Sequence[HistoryRow]) -> None:
        if not rows:
            return
        pool_id = self.pool_id
        if self._copy is not None:
            write = self._copy.write_row
            # By player (a stable sort: each player's rows stay in time order):
            # the indexes on (pool, player, played_at) and player then take each
            # chunk in one pass instead of at random places (a third less time).
            for row in sorted(rows, key=_by_player):
                write(_values(pool_id, row))
        else:
            names = [
                name + "_id" if name in ("pool", "player", "match") else name
                for name, _ in _COPY_FIELDS
            ]
            RatingChange.objects.bulk_create(
                (
                    RatingChange(**dict(zip(names, _values(pool_id, row), strict=True)))
                    for row in rows
                ),
                batch_size=BULK_BATCH,
            )
        self.written += len(rows)


_ROW_COLUMNS = (
    "player_id",
    "match_id",
    "played_at",
    "period",
    "matches",
    "rating_before",
    "rating_after",
    "rd_before",
    "rd_after",
    "volatility_before",
    "volatility_after",
    "experience_before",
    "experience_after",
)


def _core_row(glicko: bool, values: Sequence[Any]) -> HistoryRow:
    (player, match_id, played_at, period, matches, r0, r1, rd0, rd1, v0, v1, e0, e1) = values
    if glicko:
        return Glicko2Row(
            player, match_id, played_at, period, matches, r0, r1, rd0, rd1, v0, v1, e0, e1
        )
    return FibsRow(player, match_id, played_at, r0, r1, e0, e1)


def read_history(pool: RatingPool, rows: QuerySet[RatingChange] | None = None) -> list[HistoryRow]:
    """Stored history rows (all the pool's, or ``rows``) as core rows, in rating order."""
    queryset = RatingChange.objects.filter(pool=pool) if rows is None else rows
    glicko = is_glicko(pool)
    ordered = queryset.order_by("played_at", "match_id", "player_id").values_list(*_ROW_COLUMNS)
    return [_core_row(glicko, values) for values in ordered]


def checkpoint(
    pool: RatingPool,
    settings: Settings,
    *,
    before: Q | None,
    players: Collection[int] | None = None,
) -> PoolState[Any]:
    """The pool state the history rows matching ``before`` lead to.

    The same state ``ratings.core.state_from_history`` builds from all those
    rows, read with two queries instead of every row: each player's latest row
    (their values after it) with their match count, and the latest row of all
    (the pool's position; under Glicko-2 also its last period).  ``players``:
    only these players' states are needed (the others are left out);
    ``before`` None: no rows at all, the empty pool.
    """
    if before is None:
        return PoolState(settings, {})
    rows = RatingChange.objects.filter(pool=pool).filter(before)
    last = rows.order_by("-played_at", "-match_id").values_list("played_at", "match_id", "period")
    latest_of_all = last.first()
    if latest_of_all is None:
        return PoolState(settings, {})
    position: Key = (latest_of_all[0], latest_of_all[1])
    period: int | None = latest_of_all[2]
    if players is not None and len(players) <= PLAYER_FILTER_LIMIT:
        rows = rows.filter(player_id__in=list(players))
    latest = (
        rows.order_by()
        .annotate(
            place=Window(
                RowNumber(),
                partition_by=[F("player_id")],
                order_by=[F("played_at").desc(), F("match_id").desc()],
            ),
            total=Window(Sum("matches"), partition_by=[F("player_id")]),
        )
        .filter(place=1)
        .values_list(
            "player_id",
            "played_at",
            "period",
            "total",
            "rating_after",
            "rd_after",
            "volatility_after",
            "experience_after",
        )
    )
    glicko = isinstance(settings, Glicko2Settings)
    wanted = None if players is None else set(players)
    states: dict[int, PlayerState] = {}
    for player, played_at, row_period, total, rating, rd, volatility, experience in latest:
        if wanted is not None and player not in wanted:
            continue
        if glicko:
            states[player] = PlayerState(
                rating=rating,
                experience=experience,
                matches=total,
                rd=rd,
                volatility=volatility,
                last_played_at=played_at,
                last_period=row_period,
            )
        else:
            states[player] = PlayerState(
                rating=rating, experience=experience, matches=total, last_played_at=played_at
            )
    return PoolState(settings, states, position, period if glicko else None)


def history_fits(pool: RatingPool, settings: Settings) -> bool:
    """Whether the stored history was computed with these settings, as far as rows show.

    The pool's first row is a newcomer's, so it must start from the start
    values; Glicko-2 rows carry their period (of ``glicko_period_days``), FIBS
    rows none.  A pool whose system, start values or period length changed
    since fails this (τ is not visible in the rows: change it, recompute).
    """
    first = (
        RatingChange.objects.filter(pool=pool)
        .order_by("played_at", "match_id")
        .values_list(
            "played_at",
            "period",
            "rating_before",
            "experience_before",
            "rd_before",
            "volatility_before",
        )
        .first()
    )
    if first is None:
        return True
    played_at, period, rating, experience, rd, volatility = first
    if isinstance(settings, Glicko2Settings):
        return (
            period is not None
            and period == period_of(pool, played_at)
            and (rating, rd, volatility)
            == (settings.start_rating, settings.start_rd, settings.start_volatility)
        )
    return period is None and (rating, experience) == (
        settings.start_rating,
        settings.start_experience,
    )


# --- Current ratings -----------------------------------------------------------------

_RATING_FIELDS = ["rating", "experience", "rd", "volatility", "matches", "last_played_at"]


def _rating(pool_id: int, player: int, state: PlayerState) -> PlayerRating:
    return PlayerRating(
        pool_id=pool_id,
        player_id=player,
        rating=state.rating,
        experience=state.experience,
        rd=state.rd,
        volatility=state.volatility,
        matches=state.matches,
        last_played_at=state.last_played_at,
    )


def save_ratings(pool: RatingPool, state: PoolState[Any], players: Iterable[int] | None) -> int:
    """Make the pool's PlayerRating rows of ``players`` (None: every player) match ``state``.

    A player with no rated match left in ``state`` loses their row.  Returns
    the number of rows written.
    """
    if players is None:
        PlayerRating.objects.filter(pool=pool).delete()
        PlayerRating.objects.bulk_create(
            (_rating(pool.pk, player, s) for player, s in state.players.items() if s.matches),
            batch_size=BULK_BATCH,
        )
        return sum(1 for s in state.players.values() if s.matches)
    chosen = set(players)
    gone = [p for p in chosen if p not in state.players or not state.players[p].matches]
    for batch in _batches(gone, PLAYER_FILTER_LIMIT):
        PlayerRating.objects.filter(pool=pool, player_id__in=batch).delete()
    kept = [_rating(pool.pk, p, state.players[p]) for p in sorted(chosen.difference(gone))]
    if kept:
        PlayerRating.objects.bulk_create(
            kept,
            batch_size=BULK_BATCH,
            update_conflicts=True,
            unique_fields=["pool", "player"],
            update_fields=_RATING_FIELDS,
        )
    return len(kept)


def ratings_state(
    pool: RatingPool, settings: Settings, players: Collection[int], position: Key | None
) -> PoolState[Any]:
    """The current state of ``players`` from their PlayerRating rows (the incremental path)."""
    glicko = isinstance(settings, Glicko2Settings)
    states: dict[int, PlayerState] = {}
    for row in PlayerRating.objects.filter(pool=pool, player_id__in=list(players)):
        states[row.player_id] = PlayerState(
            rating=row.rating,
            experience=row.experience,
            matches=row.matches,
            rd=row.rd if glicko else None,
            volatility=row.volatility if glicko else None,
            last_played_at=row.last_played_at,
            last_period=period_of(pool, row.last_played_at)
            if glicko and row.last_played_at is not None
            else None,
        )
    period = period_of(pool, position[0]) if glicko and position is not None else None
    return PoolState(settings, states, position, period)


def _batches(items: Sequence[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
