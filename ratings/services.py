"""Computing rating pools and publishing rating lists.

Rated: confirmed matches of the pool's discipline between two players of the
pool's federation, of length 1 or more (a money session has length 0), not
won by forfeit, and public: a result ``games.visibility`` withholds (a silent
round's, until the organizer publishes the round) waits, and the tournaments
app asks for the pools to catch up when it releases it.  A match imported with
an archive counts only once a federation's admin chose the pool for that
archive (``RatedArchive``, ratings.archives).  Byes never exist as matches.
``rated_matches`` is that filter, the only one.

Every computation locks the pool row first (``select_for_update``), so two
jobs on one pool run one after the other, and each is idempotent:

- ``update_after_match``: after a result became official.  A FIBS match later
  than everything computed is applied on its own (the incremental path: two
  history rows, two ratings).  A match already in the history as it stands
  changes nothing.  Anything else (a late result, a corrected or withdrawn
  one) recomputes from the first match it changes.  Under Glicko-2 the unit
  is the rating period: a match in the current period recomputes that period.
- ``recompute_pool_from(pool, key)``: from the match at ``key`` (under
  Glicko-2, from the start of its period) to the end: the state just before
  is read back from the history rows, the later rows are replaced.  The
  outcome equals ``recompute_pool`` (tests/ratings/test_equivalence.py).
- ``recompute_pool``: from scratch.
- ``preview_list`` / ``publish_list``: a rating list at a date, previewed, then
  published (never empty) and frozen.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, F, Max, Min, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from base import pagecache
from clubs import permissions
from clubs.models import FederationDiscipline, Membership, Player
from clubs.services import audit
from games import visibility
from games.models import Match, ResultStatus
from ratings import adapters
from ratings.adapters import Key
from ratings.core import (
    Glicko2Settings,
    PoolState,
    RatedMatch,
    Settings,
    apply_match,
    empty_state,
    rating_list,
    recompute_from,
)
from ratings.core.periods import day_period
from ratings.models import (
    PlayerRating,
    RatedArchive,
    RatingChange,
    RatingList,
    RatingListEntry,
    RatingPool,
)


@dataclass(frozen=True)
class Outcome:
    """What one computation did to one pool.

    ``action``: "applied" (the incremental path), "recomputed" (from ``start``,
    or from scratch when it is None), "unchanged" (the history already says
    so) or "not rated".  ``seconds``: time per phase, for logs and benchmarks.
    """

    pool_id: int
    action: str
    start: Key | None = None
    matches: int = 0
    rows: int = 0
    ratings: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def __str__(self) -> str:
        where = "" if self.start is None else f" from {self.start[0].isoformat()} #{self.start[1]}"
        return (
            f"pool {self.pool_id}: {self.action}{where}, {self.matches} matches, "
            f"{self.rows} history rows, {self.ratings} ratings"
        )


# --- Pools and the rated matches --------------------------------------------------------


def ensure_pool(rated_discipline: FederationDiscipline) -> RatingPool:
    """The pool of a rated discipline, created (empty) the first time."""
    pool, _created = RatingPool.objects.select_related(
        "rated_discipline", "rated_discipline__federation"
    ).get_or_create(rated_discipline=rated_discipline)
    return pool


def rated_matches(pool: RatingPool) -> QuerySet[Match]:
    """The matches this pool rates (see the module docstring)."""
    rated = pool.rated_discipline
    return Match.objects.filter(
        counted_archives_q(pool),
        discipline_id=rated.discipline_id,
        result_status=ResultStatus.CONFIRMED,
        player1__federation_id=rated.federation_id,
        player2__federation_id=rated.federation_id,
        length__gt=0,
        forfeit=False,
        winner__in=(1, 2),
        finished_at__isnull=False,
    ).exclude(visibility.withheld_q())  # not public yet (a silent round): rated once released


def counted_archives_q(pool: RatingPool) -> Q:
    """Matches not imported with an archive, or with one chosen for ``pool``."""
    chosen = RatedArchive.objects.filter(pool_id=pool.pk).values("archive_id")
    return Q(archive__isnull=True) | Q(archive_id__in=chosen)


def _lock(pool: RatingPool | int) -> RatingPool:
    pk = pool if isinstance(pool, int) else pool.pk
    return (
        RatingPool.objects.select_for_update(of=("self",))
        .select_related("rated_discipline", "rated_discipline__federation")
        .get(pk=pk)
    )


def _through(pool: RatingPool) -> Key | None:
    if pool.computed_through_at is None or pool.computed_through_match is None:
        return None
    return pool.computed_through_at, pool.computed_through_match


def _mark(pool: RatingPool, position: Key | None) -> None:
    """Record how far the locked pool is computed; its ratings were just written."""
    pool.computed_through_at, pool.computed_through_match = position or (None, None)
    pool.computed_at = timezone.now()
    pool.save(update_fields=["computed_through_at", "computed_through_match", "computed_at"])
    _bump_version(pool)


def _bump_version(pool: RatingPool) -> None:
    """The pool's live list (or the lists it has) changed: one more on its version, in
    the caller's transaction (cached pages are keyed by it, ratings.queries.list_version),
    and its list pages kept whole for anonymous visitors are dropped once it commits."""
    RatingPool.objects.filter(pk=pool.pk).update(version=F("version") + 1)
    pool.version += 1
    pagecache.expire_on_commit("rating-pool", pool.pk)


@transaction.atomic
def bump_where_names_show(player_ids: Sequence[int], club_ids: Sequence[int]) -> list[int]:
    """Names or clubs shown on rating lists changed (``clubs.names_changed``): one more
    on the names version of every pool whose lists show them, and its kept pages are
    dropped once this commits.  A list shows a player rated in the pool or on one of
    its published lists, with the player's clubs of the day: so the clubs' members
    whose membership has not ended before today count (one starting later is shown
    from a later day, whose pages are rendered afresh).  The pools moved, by id.

    Safe to run twice (a version moved once more only renders the pages once more)."""
    shown = Q(player_id__in=list(player_ids))
    if club_ids:
        members = (
            Membership.objects.filter(club_id__in=list(club_ids))
            .exclude(end__lt=dt.date.today())  # the day Membership.objects.current() uses
            .values("player_id")
        )
        shown |= Q(player_id__in=members)
    pool_ids = set(PlayerRating.objects.filter(shown).values_list("pool_id", flat=True))
    pool_ids.update(
        RatingListEntry.objects.filter(shown).values_list("rating_list__pool_id", flat=True)
    )
    if not pool_ids:
        return []
    # Locked in primary-key order, as update_after_match locks its pools: this task and
    # the pools' computations never wait for each other in a circle.
    moved = list(
        RatingPool.objects.select_for_update()
        .filter(pk__in=pool_ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    RatingPool.objects.filter(pk__in=moved).update(names_version=F("names_version") + 1)
    pagecache.expire_on_commit("rating-pool", *moved)
    return moved


# --- Recomputation ---------------------------------------------------------------------


def recompute_pool(pool: RatingPool, *, by: Any = None) -> Outcome:
    """Every rated match of the pool from the start values (``by``: a user asking, or None)."""
    return recompute_pool_from(pool, None, by=by)


def recompute_pool_from(pool: RatingPool, key: Key | None, *, by: Any = None) -> Outcome:
    """Recompute from the match at ``key`` = (played_at, match id) onward (None: from scratch).

    ``key`` need not be a match that exists any more (a withdrawn result):
    everything at or after it is rebuilt.  Under Glicko-2 the recomputation
    starts at the beginning of ``key``'s rating period.
    """
    with transaction.atomic():
        permissions.require(by, "rating_pool.recompute", pool)
        locked = _lock(pool)
        outcome = _recompute(locked, key)
        if by is not None:
            audit(
                by,
                "rating_pool.recompute",
                locked,
                federation=locked.rated_discipline.federation,
                before=None,
                after={"start": None if key is None else [key[0].isoformat(), key[1]]},
            )
    return outcome


def _boundary(pool: RatingPool, key: Key) -> tuple[Q, Q, Q]:
    """Filters for rows before, rows from, and matches from where a recompute at ``key`` starts."""
    period = adapters.period_of(pool, key[0])
    if period is None:
        return adapters.rows_before(key), adapters.rows_from(key), adapters.matches_from(key)
    start = adapters.period_start(pool, period)
    return Q(played_at__lt=start), Q(played_at__gte=start), Q(finished_at__gte=start)


def _recompute(pool: RatingPool, key: Key | None) -> Outcome:
    """The recomputation itself, on a locked pool inside a transaction.

    From scratch (whatever ``key`` says) when the stored history was computed
    with other settings (``adapters.history_fits``).
    """
    settings = adapters.settings_for(pool)
    if key is not None and not adapters.history_fits(pool, settings):
        key = None
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    history = RatingChange.objects.filter(pool=pool)
    affected: set[int] | None
    if key is None:
        history.delete()
        matches = adapters.load_matches(pool, rated_matches(pool))
        checkpoint: PoolState[Any] = empty_state(settings)
        affected = None
    else:
        before, after, later = _boundary(pool, key)
        old = history.filter(after)
        affected = set(old.order_by().values_list("player_id", flat=True).distinct())
        matches = adapters.load_matches(pool, rated_matches(pool).filter(later))
        for match in matches:
            affected.add(match.winner)
            affected.add(match.loser)
        checkpoint = adapters.checkpoint(pool, settings, before=before, players=affected)
        old.delete()
    seconds["read"] = time.perf_counter() - started

    started = time.perf_counter()
    with adapters.HistoryWriter(pool) as writer:
        state, _rows = recompute_from(checkpoint, matches, sink=writer, chunk=adapters.COPY_CHUNK)
    seconds["compute and write history"] = time.perf_counter() - started

    started = time.perf_counter()
    ratings = adapters.save_ratings(pool, state, affected)
    _mark(pool, state.position)
    seconds["write ratings"] = time.perf_counter() - started
    return Outcome(pool.pk, "recomputed", key, len(matches), writer.written, ratings, seconds)


# --- After a result --------------------------------------------------------------------


def update_after_match(match_id: int) -> list[Outcome]:
    """Bring every pool the match is (or was) rated in up to date with it; idempotent.

    The pool is the one of the match's discipline in the players' federation
    (created the first time and computed from scratch), plus any pool whose
    history still names the match (its players or discipline changed since).
    """
    with transaction.atomic():
        pool_ids = set(
            RatingChange.objects.filter(match_id=match_id)
            .order_by()
            .values_list("pool_id", flat=True)
            .distinct()
        )
        outcomes: list[Outcome] = []
        home = _home_discipline(match_id)
        if home is not None:
            pool, created = RatingPool.objects.get_or_create(rated_discipline=home)
            if created:
                outcomes.append(_recompute(_lock(pool), None))
            else:
                pool_ids.add(pool.pk)
        for pool_id in sorted(pool_ids):
            outcomes.append(_update_pool(_lock(pool_id), match_id))
    return outcomes


def _home_discipline(match_id: int) -> FederationDiscipline | None:
    """The rated discipline a match belongs to: its discipline in its players' federation."""
    found = (
        Match.objects.filter(pk=match_id)
        .values_list("discipline_id", "player1__federation_id", "player2__federation_id")
        .first()
    )
    if found is None:
        return None
    discipline, one, two = found
    if one is None or one != two:
        return None
    return FederationDiscipline.objects.filter(federation_id=one, discipline_id=discipline).first()


def _update_pool(pool: RatingPool, match_id: int) -> Outcome:
    settings = adapters.settings_for(pool)
    if not adapters.history_fits(pool, settings):
        return _recompute(pool, None)  # the pool's settings changed since it was computed
    found = adapters.load_matches(pool, rated_matches(pool).filter(pk=match_id))
    match = found[0] if found else None
    # By match id alone, filtered here: the (match) index answers it whatever the
    # planner's statistics say (with a pool condition too, stale statistics after
    # a big recompute can send it down the (pool, played_at, match) index instead).
    old = [
        (at, mid, period)
        for pool_id, at, mid, period in RatingChange.objects.filter(match_id=match_id)
        .order_by()
        .values_list("pool_id", "played_at", "match_id", "period")
        if pool_id == pool.pk
    ]
    old_keys: list[Key] = [(at, mid) for at, mid, _period in old]
    through = _through(pool)
    glicko = isinstance(settings, Glicko2Settings)

    if match is None:
        if old_keys:
            return _recompute(pool, min(old_keys))
        key = _key_if_once_rated(pool, match_id) if glicko else None
        if key is not None and through is not None and key <= through:
            if not _period_unchanged(pool, settings, adapters.period_of(pool, key[0])):
                return _recompute(pool, key)
            return Outcome(pool.pk, "unchanged")
        return Outcome(pool.pk, "not rated")

    first = min([match.key, *old_keys])
    if not glicko:
        if not old_keys and (through is None or match.key > through):
            return _apply(pool, settings, match)
        same_key = bool(old_keys) and all(k == match.key for k in old_keys)
        if same_key and _fibs_unchanged(pool, settings, match):
            return Outcome(pool.pk, "unchanged")
        return _recompute(pool, first)

    assert match.period is not None
    last_period = adapters.period_of(pool, through[0]) if through is not None else None
    if last_period is None or match.period > last_period:
        return _recompute(pool, first)  # a new period
    same_period = all(period == match.period for _at, _mid, period in old)
    if same_period and _period_unchanged(pool, settings, match.period):
        return Outcome(pool.pk, "unchanged")
    return _recompute(pool, first)


def _apply(pool: RatingPool, settings: Settings, match: RatedMatch) -> Outcome:
    """FIBS, the incremental path: one match after everything computed."""
    started = time.perf_counter()
    players = (match.winner, match.loser)
    state = adapters.ratings_state(pool, settings, players, _through(pool))
    state, rows = apply_match(state, match)
    with adapters.HistoryWriter(pool, copy=False) as writer:
        writer(rows)
    ratings = adapters.save_ratings(pool, state, players)
    _mark(pool, state.position)
    seconds = {"apply": time.perf_counter() - started}
    return Outcome(pool.pk, "applied", match.key, 1, writer.written, ratings, seconds)


def _fibs_unchanged(pool: RatingPool, settings: Settings, match: RatedMatch) -> bool:
    """Whether the stored rows of ``match`` are what rating it now gives."""
    players = {match.winner, match.loser}
    state = adapters.checkpoint(
        pool, settings, before=adapters.rows_before(match.key), players=players
    )
    _state, rows = apply_match(state, match)
    ours = [
        pk
        for pk, pool_id in RatingChange.objects.filter(match_id=match.match_id)
        .order_by()
        .values_list("pk", "pool_id")
        if pool_id == pool.pk  # by match id alone: see _update_pool
    ]
    stored = adapters.read_history(pool, RatingChange.objects.filter(pk__in=ours))
    return sorted(rows) == sorted(stored)


def _period_unchanged(pool: RatingPool, settings: Settings, period: int | None) -> bool:
    """Glicko-2: whether the stored rows of ``period`` are what rating it now gives."""
    if period is None:
        return False
    start = adapters.period_start(pool, period)
    end = adapters.period_start(pool, period + 1)
    matches = adapters.load_matches(
        pool, rated_matches(pool).filter(finished_at__gte=start, finished_at__lt=end)
    )
    players = {p for m in matches for p in (m.winner, m.loser)}
    state = adapters.checkpoint(pool, settings, before=Q(played_at__lt=start), players=players)
    _state, rows = recompute_from(state, matches)
    stored = adapters.read_history(
        pool, RatingChange.objects.filter(pool=pool, played_at__gte=start, played_at__lt=end)
    )
    return sorted(rows) == sorted(stored)


def _key_if_once_rated(pool: RatingPool, match_id: int) -> Key | None:
    """The key of a match that is not rated now but may have been (forfeit set later)."""
    rated = pool.rated_discipline
    found = (
        Match.objects.filter(
            pk=match_id,
            discipline_id=rated.discipline_id,
            player1__federation_id=rated.federation_id,
            player2__federation_id=rated.federation_id,
            length__gt=0,
            finished_at__isnull=False,
        )
        .filter(counted_archives_q(pool))  # an unchosen archive's match never was rated
        .values_list("finished_at", "id")
        .first()
    )
    return None if found is None else (found[0], found[1])


# --- Merged players --------------------------------------------------------------------


def fold_merged_player(survivor_id: int, duplicate_id: int) -> None:
    """The ratings' share of a merge, done at once (a ``clubs.merging`` hook, inside the
    merge, before the move).

    The duplicate's PlayerRating rows in pools where the survivor has one are
    deleted (the generic move would break one-rating-per-player); the rest of
    the duplicate's rows, history and matches are moved by the merge itself,
    and the pools are recomputed after it commits (``merge_restarts``).
    """
    ours = PlayerRating.objects.filter(player_id=survivor_id).values("pool_id")
    PlayerRating.objects.filter(player_id=duplicate_id, pool_id__in=ours).delete()


def merge_restarts(survivor_id: int, duplicate_id: int) -> list[tuple[int, Key]]:
    """Per pool whose history a merge changes, the key to recompute it from: the
    duplicate's first history row or first finished match there (read before the
    move, whether or not ``fold_merged_player`` ran already)."""
    rated = set(
        PlayerRating.objects.filter(player_id__in=(survivor_id, duplicate_id)).values_list(
            "pool_id", flat=True
        )
    )
    federations = {
        f
        for f in Player.objects.filter(pk__in=(survivor_id, duplicate_id)).values_list(
            "federation_id", flat=True
        )
        if f is not None
    }
    pools = RatingPool.objects.filter(
        Q(pk__in=rated) | Q(rated_discipline__federation_id__in=federations)
    ).select_related("rated_discipline")
    restart: list[tuple[int, Key]] = []
    for pool in pools.order_by("pk"):
        keys: list[Key] = []
        row = (
            RatingChange.objects.filter(pool=pool, player_id=duplicate_id)
            .order_by("played_at", "match_id")
            .values_list("played_at", "match_id")
            .first()
        )
        if row is not None:
            keys.append((row[0], row[1]))
        match = (
            Match.objects.filter(
                Q(player1_id=duplicate_id) | Q(player2_id=duplicate_id),
                discipline_id=pool.rated_discipline.discipline_id,
                result_status=ResultStatus.CONFIRMED,
                finished_at__isnull=False,
                length__gt=0,
            )
            .order_by("finished_at", "id")
            .values_list("finished_at", "id")
            .first()
        )
        if match is not None:
            keys.append((match[0], match[1]))
        if keys:
            restart.append((pool.pk, min(keys)))
    return restart


# --- Rating lists ----------------------------------------------------------------------


def list_state(pool: RatingPool, date: dt.date) -> tuple[PoolState[Any], int | None]:
    """The pool as a list dated ``date`` shows it, and (Glicko-2) the last period it covers.

    A list dated D counts the rated matches played before D begins (local
    time): a list of the 1st of a month covers the month before.  Under
    Glicko-2 only whole rating periods count, those ended by then.
    """
    settings = adapters.settings_for(pool)
    cutoff, period = _list_cutoff(pool, date)
    return adapters.checkpoint(pool, settings, before=Q(played_at__lt=cutoff)), period


def _list_cutoff(pool: RatingPool, date: dt.date) -> tuple[dt.datetime, int | None]:
    """The moment before which a list dated ``date`` counts matches, and its last period."""
    if adapters.is_glicko(pool):
        current = day_period(date, pool.rated_discipline.glicko_period_days)
        return adapters.period_start(pool, current), current - 1
    return adapters.local_midnight(date), None


def default_list_date(pool: RatingPool) -> dt.date:
    """The date the publish form proposes: the day after the latest rated match, so the
    list counts every rated match so far; not before the day after the latest published
    list (a list is not back-dated by default), and never later than today (a list
    dated today counts the matches played before today; today's count from tomorrow's)."""
    today = timezone.localdate()
    last = (
        rated_matches(pool).order_by("-finished_at").values_list("finished_at", flat=True).first()
    )
    if last is None:
        return today
    proposed = adapters.local_date(last) + dt.timedelta(days=1)
    published = (
        RatingList.objects.filter(pool=pool, published_at__isnull=False)
        .order_by("-date")
        .values_list("date", flat=True)
        .first()
    )
    if published is not None:
        proposed = max(proposed, published + dt.timedelta(days=1))
    return min(today, proposed)


@dataclass(frozen=True)
class ListPreview:
    """What publishing the pool's list at ``date`` would publish, shown before it is.

    ``matches``: the rated matches the list counts, played from ``first_played``
    to ``last_played``; ``later_matches``: rated matches played on or after its
    date, which it does not count.  ``top``: the first ten entries with their
    players.  ``digest`` identifies the entries and the matches counted: the
    confirmation carries it, and publishing refuses when it no longer matches.
    """

    pool_id: int
    date: dt.date
    players: int
    matches: int
    later_matches: int
    first_played: dt.datetime | None
    last_played: dt.datetime | None
    top: list[tuple[Any, Player]]
    digest: str
    entries: tuple[Any, ...] = field(repr=False, default=())

    @property
    def is_empty(self) -> bool:
        return self.players == 0


class EmptyRatingList(ValidationError):
    """Publishing refused: the list would have nobody on it."""


class StalePreview(ValidationError):
    """Publishing refused: what the list would be changed since the preview confirmed."""

    def __init__(self, message: str, preview: ListPreview) -> None:
        super().__init__(message, code="stale_preview")
        self.preview = preview


def _check_publishable(pool: RatingPool, date: dt.date) -> RatingList | None:
    """Refuse a future date or a list already published; the unpublished draft, if any."""
    if date > timezone.localdate():
        raise ValidationError(
            _("A rating list cannot be dated in the future (%(date)s).")
            % {"date": date.isoformat()}
        )
    existing = RatingList.objects.filter(pool=pool, date=date).first()
    if existing is not None and existing.is_published:
        raise ValidationError(
            _(
                "The rating list of %(pool)s dated %(date)s is published already; "
                "a published list does not change."
            )
            % {"pool": pool, "date": date.isoformat()}
        )
    return existing


def _build_preview(pool: RatingPool, date: dt.date) -> ListPreview:
    state, period = list_state(pool, date)
    previous = (
        RatingList.objects.filter(pool=pool, date__lt=date, published_at__isnull=False)
        .order_by("-date")
        .first()
    )
    previous_ratings = (
        dict(previous.entries.values_list("player_id", "rating")) if previous else None
    )
    listed = rating_list(state, date=date, period=period, previous=previous_ratings)
    cutoff, _period = _list_cutoff(pool, date)
    counted = rated_matches(pool).filter(finished_at__lt=cutoff).order_by()
    span = counted.aggregate(matches=Count("id"), first=Min("finished_at"), last=Max("finished_at"))
    later = rated_matches(pool).filter(finished_at__gte=cutoff).count()
    top_entries = listed.entries[:10]
    players = Player.objects.in_bulk([entry.player for entry in top_entries])
    digest = hashlib.sha256(
        repr(
            (
                date.isoformat(),
                span["matches"],
                [(e.player, e.rank, e.rating, e.rd, e.matches) for e in listed.entries],
            )
        ).encode()
    ).hexdigest()[:16]
    return ListPreview(
        pool_id=pool.pk,
        date=date,
        players=len(listed.entries),
        matches=span["matches"],
        later_matches=later,
        first_played=span["first"],
        last_played=span["last"],
        top=[(entry, players[entry.player]) for entry in top_entries],
        digest=digest,
        entries=listed.entries,
    )


def empty_list_reason(pool: RatingPool, preview: ListPreview) -> str:
    message = _(
        "The rating list of %(pool)s dated %(date)s would be empty: no rated match counts "
        "for it, and an empty list is never published."
    ) % {"pool": pool, "date": preview.date.isoformat()}
    if preview.later_matches:
        message += " " + _(
            "A list counts the rated matches played before its date (under Glicko-2, "
            "whole rating periods ended by then): date it later."
        )
    return message


def preview_list(pool: RatingPool, date: dt.date, *, by: Any) -> ListPreview:
    """What ``publish_list`` would publish at ``date``, publishing nothing.

    Refuses what publishing refuses (permission, a future date, a list
    published already); an empty list is previewed (``is_empty``) so the
    page can say why, and ``publish_list`` refuses it.
    """
    permissions.require(by, "rating_list.publish", pool)
    _check_publishable(pool, date)
    return _build_preview(pool, date)


def publish_list(
    pool: RatingPool, date: dt.date, *, by: Any, expected_digest: str | None = None
) -> RatingList:
    """Publish the pool's list at ``date``; a published list never changes.

    Entries come from ``ratings.core.rating_list`` (ranks, provisional marks),
    with each player's change since the previous published list.  Refuses an
    empty list (``EmptyRatingList``) and, given the ``digest`` of the preview the
    user confirmed, a list that is no longer that preview (``StalePreview``,
    carrying the new preview).
    """
    with transaction.atomic():
        permissions.require(by, "rating_list.publish", pool)
        pool = _lock(pool)
        existing = _check_publishable(pool, date)
        preview = _build_preview(pool, date)
        if expected_digest is not None and expected_digest != preview.digest:
            raise StalePreview(
                _(
                    "The ratings changed since the preview (now %(players)d players from "
                    "%(matches)d matches): check the new preview and confirm again."
                )
                % {"players": preview.players, "matches": preview.matches},
                preview,
            )
        if preview.is_empty:
            raise EmptyRatingList(empty_list_reason(pool, preview), code="empty_list")
        saved = existing or RatingList(pool=pool, date=date)
        saved.published_at = timezone.now()
        saved.save()
        saved.entries.all().delete()
        RatingListEntry.objects.bulk_create(
            [
                RatingListEntry(
                    rating_list=saved,
                    player_id=entry.player,
                    rank=entry.rank,
                    rating=entry.rating,
                    experience=entry.experience,
                    rd=entry.rd,
                    matches=entry.matches,
                    provisional=entry.provisional,
                    change=entry.change,
                )
                for entry in preview.entries
            ],
            batch_size=adapters.BULK_BATCH,
        )
        _bump_version(pool)
        audit(
            by,
            "rating_list.publish",
            saved,
            federation=pool.rated_discipline.federation,
            before=None,
            after={
                "date": date.isoformat(),
                "entries": preview.players,
                "matches": preview.matches,
            },
        )
    return saved


def publish_monthly(today: dt.date | None = None) -> list[RatingList]:
    """The list of the 1st of the month for every pool with history (the monthly task).

    Idempotent: a pool whose list of that date is published already is left alone.
    """
    day = today or timezone.localdate()
    published: list[RatingList] = []
    midnight = adapters.local_midnight(day)
    for pool in RatingPool.objects.select_related("rated_discipline").order_by("pk"):
        if RatingList.objects.filter(pool=pool, date=day, published_at__isnull=False).exists():
            continue
        if not RatingChange.objects.filter(pool=pool, played_at__lt=midnight).exists():
            continue
        try:
            published.append(publish_list(pool, day, by=None))
        except EmptyRatingList:
            continue  # Glicko-2: no rating period has ended yet
    return published
