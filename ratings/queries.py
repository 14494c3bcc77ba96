"""Read functions of the ratings app.

``current_ratings``, ``pool_for`` and ``player_history`` serve other apps
(tournament seeding) and the services; the rest serve the rating pages,
their exports and the API.  Each is a fixed number of queries whatever the
number of rows (the pages' tests pin them).  What a visitor may read follows
clubs.permissions.visible_federations: public federations for everyone, and
the ones a signed-in user administers or belongs to.

A list's rows (``Row``) look the same whether they come from a published
RatingList or — "live" — from the players' current ratings, which are ranked
here by the same rules as a published list (ratings.core.lists).
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.core.paginator import Page, Paginator
from django.db import models
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.utils import timezone

from base import httpcache
from clubs import permissions
from clubs.models import Discipline, Federation, FederationDiscipline, Membership, Player
from clubs.queries import name_key
from ratings import adapters
from ratings.core.lists import ListEntry, rating_list
from ratings.core.state import PlayerState, PoolState
from ratings.models import PlayerRating, RatingChange, RatingList, RatingListEntry, RatingPool


def _pk(obj: models.Model | int) -> int:
    return obj if isinstance(obj, int) else int(obj.pk)


def current_ratings(
    federation: Federation | int, discipline: Discipline | int, player_ids: Iterable[int]
) -> dict[int, float]:
    """Current ratings of ``player_ids`` in the federation's pool for the discipline.

    Only players with a rating are in the dict: a player without a rated
    match (or a discipline the federation does not rate) is simply missing,
    so seeding can put unrated players after rated ones.  One query.
    """
    wanted = sorted({int(p) for p in player_ids})
    if not wanted:
        return {}
    return dict(
        PlayerRating.objects.filter(
            pool__rated_discipline__federation_id=_pk(federation),
            pool__rated_discipline__discipline_id=_pk(discipline),
            player_id__in=wanted,
        ).values_list("player_id", "rating")
    )


def player_history(pool: RatingPool | int, player: Player | int) -> QuerySet[RatingChange]:
    """A player's history rows in a pool, oldest first, with the match and both its players."""
    return (
        RatingChange.objects.filter(pool_id=_pk(pool), player_id=_pk(player))
        .select_related("match", "match__player1", "match__player2")
        .order_by("played_at", "match_id")
    )


POOL_JOINS = ("rated_discipline", "rated_discipline__federation", "rated_discipline__discipline")


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a rating list, published or live."""

    rank: int
    player: Player
    rating: float
    experience: int
    rd: float | None
    matches: int
    provisional: bool
    change: float | None


# --- Pools


def visible_pools(user: Any) -> QuerySet[RatingPool]:
    """Pools of the federations ``user`` may read, with their federation and discipline."""
    return RatingPool.objects.filter(
        rated_discipline__federation__in=permissions.visible_federations(user)
    ).select_related(*POOL_JOINS)


def _has_entries() -> Exists:
    # Publishing refuses empty lists (ratings.services); one published before that
    # rule is never anybody's "latest list".
    return Exists(RatingListEntry.objects.filter(rating_list=OuterRef("pk")))


def with_latest_list(pools: QuerySet[RatingPool]) -> QuerySet[RatingPool]:
    """Pools annotated with ``latest_list_id`` and ``latest_list_date``: their
    latest published list with players (None when nothing is published yet)."""
    latest = RatingList.objects.filter(
        _has_entries(), pool=OuterRef("pk"), published_at__isnull=False
    ).order_by("-date")
    return pools.annotate(
        latest_list_id=Subquery(latest.values("pk")[:1]),
        latest_list_date=Subquery(latest.values("date")[:1]),
    )


def rated_discipline(user: Any, slug: str, code: str) -> FederationDiscipline:
    """A visible federation's rated discipline with its federation, discipline and
    pool (``pool`` raises RatingPool.DoesNotExist until the pool is created): one query."""
    return FederationDiscipline.objects.select_related("federation", "discipline", "pool").get(
        federation__slug=slug,
        discipline__code=code,
        federation__in=permissions.visible_federations(user),
    )


def pool_of(link: FederationDiscipline) -> RatingPool | None:
    try:
        return link.pool  # type: ignore[no-any-return]
    except RatingPool.DoesNotExist:
        return None


def is_glicko(pool: RatingPool) -> bool:
    return adapters.is_glicko(pool)


# --- Lists


def published_lists(pool: RatingPool) -> QuerySet[RatingList]:
    """The pool's published lists, the latest first, with ``entry_count``."""
    return (
        RatingList.objects.filter(pool=pool, published_at__isnull=False)
        .annotate(entry_count=Count("entries"))
        .order_by("-date")
    )


def latest_list(pool: RatingPool) -> RatingList | None:
    """The pool's latest published list with players: what its page shows by default."""
    return (
        RatingList.objects.filter(_has_entries(), pool=pool, published_at__isnull=False)
        .order_by("-date")
        .first()
    )


def published_list(pool: RatingPool, date: datetime.date) -> RatingList:
    """The list published at ``date`` (RatingList.DoesNotExist for a draft or none)."""
    return RatingList.objects.get(pool=pool, date=date, published_at__isnull=False)


def list_version(pool: RatingPool, rating_list_: RatingList | None = None) -> str:
    """The version of what a page shows of the pool, for cache keys and ETags
    (base.httpcache): of a published list (it never changes once published), or,
    with no list, of the live list and of the pool's lists (``RatingPool.version``,
    moved by ratings.services whenever ratings are written or a list published).
    Players' names and clubs are not versioned here."""
    if rating_list_ is not None and rating_list_.published_at is not None:
        return f"list-{rating_list_.pk}-{rating_list_.published_at.timestamp():.6f}"
    return f"pool-{pool.pk}-{pool.version}"


def list_entries(rating_list_: RatingList) -> QuerySet[RatingListEntry]:
    return (
        RatingListEntry.objects.filter(rating_list=rating_list_)
        .select_related("player")
        .order_by("rank", "player_id")
    )


def _entry_row(entry: RatingListEntry) -> Row:
    return Row(
        rank=entry.rank,
        player=entry.player,
        rating=entry.rating,
        experience=entry.experience,
        rd=entry.rd,
        matches=entry.matches,
        provisional=entry.provisional,
        change=entry.change,
    )


def list_rows(rating_list_: RatingList) -> list[Row]:
    """The rows of a published list: one query."""
    return [_entry_row(entry) for entry in list_entries(rating_list_)]


def _live_ranking(
    pool: RatingPool, previous: RatingList | None, states: dict[int, PlayerState]
) -> tuple[ListEntry, ...]:
    """``states`` (the listed players') ranked like a list, ``change`` against the
    ``previous`` (published) list: one query (none without a previous list)."""
    before: dict[int, float] = {}
    if previous is not None:
        before = dict(
            RatingListEntry.objects.filter(rating_list=previous).values_list("player_id", "rating")
        )
    state = PoolState(adapters.settings_for(pool), states)
    return rating_list(state, date=timezone.localdate(), previous=before).entries


def _live_row(entry: ListEntry | LiveEntry, player: Player) -> Row:
    return Row(
        rank=entry.rank,
        player=player,
        rating=entry.rating,
        experience=entry.experience,
        rd=entry.rd,
        matches=entry.matches,
        provisional=entry.provisional,
        change=entry.change,
    )


def _listed_ratings(pool: RatingPool) -> QuerySet[PlayerRating]:
    """The current ratings of the players a list of the pool shows."""
    settings = adapters.settings_for(pool)
    return PlayerRating.objects.filter(pool=pool, matches__gte=settings.list_min_matches)


class LiveEntry(NamedTuple):
    """A line of the live list as the cache keeps it: a plain tuple reads back ten
    times faster than the engine's dataclass."""

    rank: int
    player: int
    rating: float
    experience: int
    matches: int
    rd: float | None
    provisional: bool
    change: float | None


def live_ranking(pool: RatingPool, previous: RatingList | None) -> list[LiveEntry]:
    """The live list's entries (players by id), ``change`` against the ``previous``
    list.  Two queries (one without a previous list) once per version of the live
    list (``list_version``); every page and search of that version then reads them
    from the cache.  A rated match moves the version while the crowd reads the list:
    one request ranks the new version while the others wait for it
    (``httpcache.single_flight``), instead of each ranking it again."""
    key = f"ratings:live-ranking:{list_version(pool)}:{previous.pk if previous else 0}"
    return httpcache.single_flight(key, lambda: _rank_live(pool, previous))


def _rank_live(pool: RatingPool, previous: RatingList | None) -> list[LiveEntry]:
    # What a list is made of (ratings.core.lists): not when each player last played,
    # whose 10,000 time stamps cost more to read than the rest of the ranking.
    values = _listed_ratings(pool).values_list(
        "player_id", "rating", "experience", "matches", "rd", "volatility"
    )
    states = {
        player_id: PlayerState(
            rating=rating, experience=experience, matches=matches, rd=rd, volatility=volatility
        )
        for player_id, rating, experience, matches, rd, volatility in values
    }
    return [
        LiveEntry(
            entry.rank,
            entry.player,
            entry.rating,
            entry.experience,
            entry.matches,
            entry.rd,
            entry.provisional,
            entry.change,
        )
        for entry in _live_ranking(pool, previous, states)
    ]


def live_rows(pool: RatingPool, previous: RatingList | None) -> list[Row]:
    """The players' current ratings ranked like a list, ``change`` against the
    ``previous`` (published) list: two queries (one without a previous list)."""
    ratings = {
        rating.player_id: rating for rating in _listed_ratings(pool).select_related("player")
    }
    states = {
        player_id: PlayerState(
            rating=rating.rating,
            experience=rating.experience,
            matches=rating.matches,
            rd=rating.rd,
            volatility=rating.volatility,
            last_played_at=rating.last_played_at,
        )
        for player_id, rating in ratings.items()
    }
    return [
        _live_row(entry, ratings[entry.player].player)
        for entry in _live_ranking(pool, previous, states)
    ]


# --- A list's pages and its search (the pages show PAGE_SIZE rows at a time; the
# files, ratings.exports, hold the whole list)

PAGE_SIZE = 100


@dataclass(frozen=True, slots=True)
class ListPage:
    """One page of a list, or of the players a search found in it.  Each row keeps
    its rank in the whole list and comes with its player's current clubs."""

    lines: list[tuple[Row, str]]
    number: int
    page_count: int
    found: int
    first: int
    last: int
    # The page numbers to link, None for a gap: 1 2 … 7 8 [9] 10 11 … 99 100.
    page_range: list[int | None]


@functools.lru_cache(maxsize=32768)
def _folded(text: str) -> str:
    # clubs.queries.name_key: case, accents and script do not matter ('petrova'
    # finds 'Петрова', 'elodie' finds 'Élodie'); to a Russian reader ё is е.  Kept
    # for the next search: a search folds every name and club of the list.
    return name_key(text.replace("ё", "е").replace("Ё", "Е"))


def search_words(text: str) -> tuple[str, ...]:
    """The words of a search, folded like the names and clubs they must all be
    part of (none: no search)."""
    return tuple(_folded(text).split())


def _matches(words: Sequence[str], player: tuple[str, str], clubs: str) -> bool:
    haystack = " ".join(_folded(text) for text in (*player, clubs) if text)
    return all(word in haystack for word in words)


def _clubs_of(players: Any) -> dict[int, str]:
    """The current clubs of ``players`` (ids or a subquery of ids), by player: one query."""
    names: dict[int, dict[str, None]] = {}
    memberships = (
        Membership.objects.current()
        .filter(player_id__in=players)
        .order_by("club__name")
        .values_list("player_id", "club__name")
    )
    for player_id, club in memberships:
        names.setdefault(player_id, {})[club] = None
    return {player_id: ", ".join(clubs) for player_id, clubs in names.items()}


def _list_page(page: Page, rows: Sequence[Row], clubs: dict[int, str]) -> ListPage:
    return ListPage(
        lines=[(row, clubs.get(row.player.pk, "")) for row in rows],
        number=page.number,
        page_count=page.paginator.num_pages,
        found=page.paginator.count,
        first=page.start_index(),
        last=page.end_index(),
        page_range=[
            number if isinstance(number, int) else None
            for number in page.paginator.get_elided_page_range(page.number, on_ends=2)
        ],
    )


def list_page(rating_list_: RatingList, number: int, words: Sequence[str] = ()) -> ListPage:
    """Page ``number`` of a published list, or of the players on it that ``words``
    find: three queries.  A page that does not exist raises EmptyPage (the first
    page always exists, empty when nobody is found)."""
    entries = list_entries(rating_list_)
    if not words:
        page = Paginator(entries, PAGE_SIZE).page(number)
        rows = [_entry_row(entry) for entry in page.object_list]
        return _list_page(page, rows, _clubs_of([row.player.pk for row in rows]))
    clubs = _clubs_of(RatingListEntry.objects.filter(rating_list=rating_list_).values("player_id"))
    found = [
        entry_pk
        for entry_pk, player_pk, native, latin in entries.values_list(
            "pk", "player_id", "player__name_native", "player__name_latin"
        )
        if _matches(words, (native, latin), clubs.get(player_pk, ""))
    ]
    page = Paginator(found, PAGE_SIZE).page(number)
    by_pk = {entry.pk: entry for entry in entries.filter(pk__in=page.object_list)}
    return _list_page(page, [_entry_row(by_pk[pk]) for pk in page.object_list], clubs)


def live_page(
    pool: RatingPool, previous: RatingList | None, number: int, words: Sequence[str] = ()
) -> ListPage:
    """Page ``number`` of the live list, or of the players on it that ``words``
    find: the ranking (``live_ranking``), then two queries, three for a search.
    A page that does not exist raises EmptyPage.  Only the page's players are read
    whole."""
    entries = live_ranking(pool, previous)
    clubs: dict[int, str] | None = None
    if words:
        listed_ids = _listed_ratings(pool).values("player_id")
        clubs = _clubs_of(listed_ids)
        names = {
            pk: (native, latin)
            for pk, native, latin in Player.objects.filter(pk__in=listed_ids).values_list(
                "pk", "name_native", "name_latin"
            )
        }
        entries = [
            entry
            for entry in entries
            # names are read now: one gone since the ranking was computed has none
            if _matches(words, names.get(entry.player, ("", "")), clubs.get(entry.player, ""))
        ]
    page = Paginator(entries, PAGE_SIZE).page(number)
    players = Player.objects.in_bulk([entry.player for entry in page.object_list])
    rows = [_live_row(entry, players[entry.player]) for entry in page.object_list]
    if clubs is None:
        clubs = _clubs_of(list(players))
    return _list_page(page, rows, clubs)


# --- Players


def player_rating(player_id: int, pool: RatingPool) -> PlayerRating | None:
    return PlayerRating.objects.filter(pool=pool, player_id=player_id).first()


def player_ratings(user: Any, player: Player) -> list[PlayerRating]:
    """The player's current rating in every pool ``user`` may read: one query."""
    return list(
        PlayerRating.objects.filter(
            player=player,
            pool__rated_discipline__federation__in=permissions.visible_federations(user),
        )
        .select_related(*(f"pool__{join}" for join in POOL_JOINS))
        .order_by(
            "pool__rated_discipline__federation__name", "pool__rated_discipline__discipline__name"
        )
    )


def opponent(change: RatingChange) -> Player | None:
    """The other player of the change's match (None for a row without a match)."""
    match = change.match
    if match is None:
        return None
    return match.player2 if match.player1_id == change.player_id else match.player1


def outcome(change: RatingChange) -> str | None:
    """The player's result, "won" or "lost"; None while the match has no winner."""
    match = change.match
    if match is None or match.winner is None:
        return None
    side = 1 if match.player1_id == change.player_id else 2
    return "won" if match.winner == side else "lost"


def score(change: RatingChange) -> tuple[int, int] | None:
    """The match score from the player's side."""
    match = change.match
    if match is None or match.score1 is None or match.score2 is None:
        return None
    if match.player1_id == change.player_id:
        return match.score1, match.score2
    return match.score2, match.score1


def summary(changes: Sequence[RatingChange]) -> dict[str, float] | None:
    """First, last, highest and lowest rating of a history (None when empty)."""
    if not changes:
        return None
    after = [change.rating_after for change in changes]
    return {
        "start": changes[0].rating_before,
        "current": after[-1],
        "highest": max(after),
        "lowest": min(after),
    }
