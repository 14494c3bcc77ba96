"""Read functions of the tournaments app: what pages and the API show.

Each function states its joins, so a page costs a fixed number of queries
whatever the number of rows.  Nothing here writes.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.shortcuts import get_object_or_404

from analysis import queries as analysis_queries
from clubs.models import Federation, Membership
from tournaments import adapters, core
from tournaments import permissions as tournament_permissions
from tournaments.formats import flights, registry
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    Round,
    RoundState,
    StandingsSnapshot,
    Tournament,
    TournamentState,
)


def with_joins(tournaments: QuerySet[Tournament]) -> QuerySet[Tournament]:
    return tournaments.select_related("federation", "club", "discipline", "qualifies_from")


def visible_tournaments(user: Any) -> QuerySet[Tournament]:
    """Tournaments ``user`` may read (public ones past the draft, and those they run)."""
    return tournament_permissions.visible_tournaments(user)


PUBLIC_STATES = (
    TournamentState.REGISTRATION,
    TournamentState.CHECK_IN,
    TournamentState.RUNNING,
    TournamentState.FINISHED,
)


def tournament_page(federation_slug: str, slug: str) -> Tournament:
    """A public tournament (past its draft) of a public federation, or 404."""
    return get_object_or_404(
        with_joins(Tournament.objects.all()),
        federation__slug=federation_slug,
        federation__is_public=True,
        slug=slug,
        is_public=True,
        state__in=PUBLIC_STATES,
    )


def public_version(pk: int) -> int | None:
    """Tournament ``pk``'s ``public_version`` as committed now (None: it is gone)."""
    return Tournament.objects.filter(pk=pk).values_list("public_version", flat=True).first()


def public_tournaments(federation: Federation) -> QuerySet[Tournament]:
    """The federation's public tournaments past their draft, newest first (one query)."""
    return with_joins(
        Tournament.objects.filter(federation=federation, is_public=True).exclude(
            state=TournamentState.DRAFT
        )
    ).order_by("-starts_on", "-id")


# --- The home page: events across the public federations, a bounded list of each kind
# (each federation's own list has them all).


def _across_public_federations() -> QuerySet[Tournament]:
    return with_joins(Tournament.objects.filter(is_public=True, federation__is_public=True))


def live_tournaments(limit: int) -> list[Tournament]:
    """Public tournaments being played, the latest started first (one query)."""
    return list(
        _across_public_federations()
        .filter(state=TournamentState.RUNNING)
        .order_by(F("starts_on").desc(nulls_last=True), "-id")[:limit]
    )


def upcoming_tournaments(limit: int) -> list[Tournament]:
    """Public tournaments taking entries or checking in, the soonest first (one query)."""
    return list(
        _across_public_federations()
        .filter(state__in=(TournamentState.REGISTRATION, TournamentState.CHECK_IN))
        .order_by(F("starts_on").asc(nulls_last=True), "id")[:limit]
    )


def recent_tournaments(limit: int) -> list[Tournament]:
    """The latest finished public tournaments, the newest first (one query)."""
    return list(
        _across_public_federations()
        .filter(state=TournamentState.FINISHED)
        .order_by(F("starts_on").desc(nulls_last=True), "-id")[:limit]
    )


def entries(tournament: Tournament) -> QuerySet[Entry]:
    """The entries with their players, seeded first (one query)."""
    return (
        Entry.objects.filter(tournament=tournament)
        .select_related("player", "player__federation")
        .order_by("seed", "player__name_latin", "id")
    )


def pairings_with_joins(pairings: QuerySet[Pairing]) -> QuerySet[Pairing]:
    return pairings.select_related("round", "entry1__player", "entry2__player", "match").order_by(
        "round__number", "table"
    )


def rounds_with_pairings(tournament: Tournament) -> QuerySet[Round]:
    """Rounds in playing order (number, then flight), each with ``pairings`` prefetched
    with their entries, players and matches (two queries)."""
    pairings = Pairing.objects.select_related("entry1__player", "entry2__player", "match").order_by(
        "table"
    )
    return (
        Round.objects.filter(tournament=tournament)
        .select_related("tournament")  # for games.visibility, asked per row without a query
        .prefetch_related(Prefetch("pairings", queryset=pairings))
        .order_by("number", "flight")
    )


def latest_standings(
    tournament: Tournament, published_only: bool = True
) -> StandingsSnapshot | None:
    """The latest standings snapshot (only published ones when ``published_only``)."""
    snapshots = StandingsSnapshot.objects.filter(tournament=tournament)
    if published_only:
        snapshots = snapshots.filter(published_at__isnull=False)
    return snapshots.order_by("-after_round").first()


def latest_standing_of(tournament: Tournament, entry_id: int) -> tuple[Any, dict[str, Any] | None]:
    """The latest published standings snapshot (without its rows) and ``entry_id``'s
    row in it.  A player's page asks for one row of a thousand: the rows are read
    and indexed once per snapshot version in each process, not once per player."""
    snapshot = (
        StandingsSnapshot.objects.filter(tournament=tournament, published_at__isnull=False)
        .defer("rows")
        .order_by("-after_round")
        .first()
    )
    if snapshot is None:
        return None, None
    return snapshot, _rows_by_entry(snapshot.pk, snapshot.computed_at).get(entry_id)


@functools.lru_cache(maxsize=16)
def _rows_by_entry(snapshot_pk: int, computed_at: Any) -> dict[int, dict[str, Any]]:
    # computed_at moves whenever the rows are written again (auto_now): the pair
    # names one content of the rows, so what is kept never goes stale.
    rows = StandingsSnapshot.objects.filter(pk=snapshot_pk).values_list("rows", flat=True).first()
    return {row["entry"]: row for row in rows or [] if row.get("entry") is not None}


# --- Which rounds the standings count

# Rounds being played or played: started, or closed.
PLAYED_ROUND_STATES = (RoundState.STARTED, RoundState.CLOSED)


@dataclass(frozen=True)
class RoundInPlay:
    """A started round the standings do not count yet: ``official`` of its
    ``pairings`` have an official result (byes and forfeits included)."""

    round: Round
    official: int
    pairings: int


@dataclass(frozen=True)
class StandingsRounds:
    """The played rounds in the order they started (all flights), split in two:
    ``counted``, the rounds the standings count, and ``in_play``, the rest."""

    counted: list[Round]
    in_play: list[RoundInPlay]


def standings_rounds(pairings: Iterable[Pairing]) -> StandingsRounds:
    """Which rounds the standings count, from the tournament's pairings (each with its
    round and match loaded: no query).

    A round counts once it is closed, or started with every result official.  The
    standings after N rounds are those of the first N in the order the rounds
    started (across flights), so a round counts only when every round started
    before it counts too: a later round complete ahead of an earlier one waits for
    it, and a result confirmed in the round in play never changes the last table.
    """
    rounds: dict[int, Round] = {}
    official: Counter[int] = Counter()
    total: Counter[int] = Counter()
    for p in pairings:
        rnd = p.round
        if rnd.state not in PLAYED_ROUND_STATES:
            continue
        rounds.setdefault(rnd.pk, rnd)
        total[rnd.pk] += 1
        if adapters.is_decided(p):
            official[rnd.pk] += 1
    counted: list[Round] = []
    in_play: list[RoundInPlay] = []
    for rnd in sorted(rounds.values(), key=lambda r: (r.started_at, r.pk)):
        complete = rnd.state == RoundState.CLOSED or official[rnd.pk] == total[rnd.pk]
        if complete and not in_play:
            counted.append(rnd)
        else:
            in_play.append(RoundInPlay(rnd, official[rnd.pk], total[rnd.pk]))
    return StandingsRounds(counted, in_play)


def _side(
    occupant: core.bracket.Occupant, names: dict[int, tuple[str, int | None]]
) -> dict[str, Any] | None:
    if occupant is core.BYE:
        return {"entry": None, "name": "", "seed": None, "bye": True}
    if isinstance(occupant, int):
        name, seed = names.get(occupant, ("", None))
        return {"entry": occupant, "name": name, "seed": seed, "bye": False}
    return None


def bracket_view(tournament: Tournament, flight: str = flights.MAIN) -> list[list[dict[str, Any]]]:
    """The flight's bracket for drawing: columns (rounds of the flight's sections in
    playing order), each a list of matches top to bottom::

        {"slot": "M2-1", "section": "main", "round": 2, "status": "decided",
         "entry1": {"entry", "name", "seed", "bye"} | None (not known yet),
         "entry2": ..., "score1": 9, "score2": 4, "winner": <entry id> | None,
         "forfeit": False, "pairing": <id> | None, "match": <id> | None,
         "feeds_from": ["M1-1", "M1-2"], "winner_to": "M3-1", "loser_to": "C1-1"}

    A bracket that does not exist yet (a knock-out after an unfinished group
    stage) gives an empty list.  Four queries at most.
    """
    fmt = registry.for_tournament(tournament)
    if not fmt.has_bracket:
        return []
    entry_rows = list(Entry.objects.filter(tournament=tournament).select_related("player"))
    pairings = list(adapters.pairing_rows(tournament))
    if not fmt.bracket_exists(tournament, pairings):
        return []
    try:
        bracket = fmt.load_bracket(tournament, entry_rows, pairings)
    except core.TournamentError:
        return []
    names = {e.pk: (str(e.player), e.seed) for e in entry_rows}
    by_slot = {p.slot: p for p in pairings if p.slot and p.round.flight == flight}
    columns: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for mid, m in bracket.matches.items():
        if m.flight != flight:
            continue
        a, b = bracket.players(mid)
        pairing = by_slot.get(mid)
        match = pairing.match if pairing is not None else None
        winner = bracket.winner(mid)
        columns.setdefault((flights.section_order(m.section), m.round), []).append(
            {
                "slot": mid,
                "section": m.section,
                "round": m.round,
                "index": m.index,
                "status": bracket.status(mid),
                "entry1": _side(a, names),
                "entry2": _side(b, names),
                "score1": match.score1 if match is not None else None,
                "score2": match.score2 if match is not None else None,
                "winner": winner if isinstance(winner, int) else None,
                "forfeit": bracket.forfeited(mid),
                "pairing": pairing.pk if pairing is not None else None,
                "match": match.pk if match is not None else None,
                "feeds_from": [s.match for s in m.seats if s.match is not None],
                "winner_to": m.winner_to[0] if m.winner_to else None,
                "loser_to": m.loser_to[0] if m.loser_to else None,
            }
        )
    return [sorted(column, key=lambda x: x["index"]) for _key, column in sorted(columns.items())]


# --- The public pages, a page at a time (a fixed number of queries whatever the field)


def public_rounds(tournament: Tournament) -> QuerySet[Round]:
    """The tournament's rounds in playing order, each with its tournament and
    ``pairing_count`` (one query, a row per round)."""
    return (
        Round.objects.filter(tournament=tournament)
        .select_related("tournament")
        .annotate(pairing_count=Count("pairings"))
        .order_by("number", "flight")
    )


def round_pairings(rnd: Round, start: int, stop: int) -> list[Pairing]:
    """Tables ``start``..``stop`` (by table number) of ``rnd``, with their players and
    match, each pointing at ``rnd`` (and its tournament) for the visibility rule (one query)."""
    pairings = list(
        Pairing.objects.filter(round=rnd)
        .select_related("entry1__player", "entry2__player", "match")
        .order_by("table")[start:stop]
    )
    for pairing in pairings:
        pairing.round = rnd
    return pairings


def round_progress(rounds: Iterable[Round]) -> StandingsRounds:
    """``standings_rounds`` from the rounds alone, plus one query for the pairings of
    the rounds from the first started one that is not closed: every closed round before
    it counts whatever its pairings say, so the round in play is all that is read."""
    played = sorted(
        (r for r in rounds if r.state in PLAYED_ROUND_STATES), key=lambda r: (r.started_at, r.pk)
    )
    first_open = next(
        (k for k, r in enumerate(played) if r.state != RoundState.CLOSED), len(played)
    )
    counted, tail = played[:first_open], {r.pk: r for r in played[first_open:]}
    if not tail:
        return StandingsRounds(counted, [])
    pairings = list(
        Pairing.objects.filter(round__in=list(tail)).select_related("match").order_by("table")
    )
    for pairing in pairings:
        pairing.round = tail[pairing.round_id]
    rest = standings_rounds(pairings)
    return StandingsRounds(counted + rest.counted, rest.in_play)


@dataclass(frozen=True)
class EntryCount:
    total: int
    active: int


def entry_count(tournament: Tournament) -> EntryCount:
    """How many entered, and how many of them have not withdrawn (one query)."""
    counts = Entry.objects.filter(tournament=tournament).aggregate(
        total=Count("id"), active=Count("id", filter=~Q(status=EntryStatus.WITHDRAWN))
    )
    return EntryCount(counts["total"], counts["active"])


def entries_slice(tournament: Tournament, start: int, stop: int) -> list[Entry]:
    """Entries ``start``..``stop`` in the order of ``entries`` (one query)."""
    return list(entries(tournament)[start:stop])


def find_entries(tournament: Tournament, text: str, limit: int) -> list[Entry]:
    """The tournament's entries whose player's name (either script) contains ``text``,
    at most ``limit`` of them (one query)."""
    text = text.strip()
    if not text:
        return []
    named = Q(player__name_native__icontains=text) | Q(player__name_latin__icontains=text)
    return list(entries(tournament).filter(named)[:limit])


def public_entry(tournament: Tournament, entry_id: int) -> Entry:
    """One entry of the tournament with its player, or 404 (one query)."""
    entry = get_object_or_404(
        Entry.objects.select_related("player", "player__federation"),
        tournament=tournament,
        pk=entry_id,
    )
    entry.tournament = tournament
    return entry


def has_public_page(tournament: Tournament) -> bool:
    """Whether the tournament has public pages (``tournament_page`` finds it); its
    federation read already."""
    return (
        tournament.is_public
        and tournament.state in PUBLIC_STATES
        and tournament.federation.is_public
    )


def pairing_of_match(match_id: int) -> Pairing | None:
    """The pairing that ``match_id`` was played for, with its round, tournament and
    federation (one query), or None for a match outside tournaments."""
    return (
        Pairing.objects.select_related("round__tournament__federation")
        .filter(match_id=match_id)
        .first()
    )


def player_entries(player_id: int) -> QuerySet[Entry]:
    """The player's entries in public tournaments (past their draft, of a public
    federation: those with a public page), newest first, each with its tournament,
    federation and discipline (one query per page, and one to count)."""
    return (
        Entry.objects.filter(
            player_id=player_id,
            tournament__is_public=True,
            tournament__federation__is_public=True,
            tournament__state__in=PUBLIC_STATES,
        )
        .select_related("tournament__federation", "tournament__discipline")
        .order_by(F("tournament__starts_on").desc(nulls_last=True), "-tournament_id", "-id")
    )


def published_places(entries: Iterable[Entry]) -> dict[int, str]:
    """Each entry's place in its tournament's latest published standings, by entry id
    (an entry not placed there is left out): one query for any number of entries,
    reading only the latest published snapshot of each of their tournaments."""
    entries = list(entries)
    if not entries:
        return {}
    latest = (
        StandingsSnapshot.objects.filter(
            tournament=OuterRef("tournament"), published_at__isnull=False
        )
        .order_by("-after_round")
        .values("pk")[:1]
    )
    snapshots = StandingsSnapshot.objects.filter(
        tournament_id__in={entry.tournament_id for entry in entries}, pk=Subquery(latest)
    ).values_list("rows", flat=True)
    wanted = {entry.pk for entry in entries}
    places: dict[int, str] = {}
    for rows in snapshots:
        for row in rows or []:
            # The last row of the entry, as the tournament's own player page reads it.
            if row.get("entry") in wanted:
                places[row["entry"]] = str(row.get("place") or "")
    return {entry: place for entry, place in places.items() if place}


def entry_pairings(entry: Entry) -> list[Pairing]:
    """Every pairing of ``entry`` with its round (and the entry's tournament), both
    players and the match, in the order the rounds were paired (one query)."""
    pairings = list(
        Pairing.objects.filter(Q(entry1=entry) | Q(entry2=entry))
        .select_related("round", "entry1__player", "entry2__player", "match")
        .order_by("round__number", "round__flight")
    )
    for pairing in pairings:
        pairing.round.tournament = entry.tournament
    return pairings


def entry_clubs(tournament: Tournament) -> dict[int, str]:
    """The current clubs of the tournament's players, by player id, names joined
    ("Club A, Club B"): one query, for the entry list's file."""
    clubs: dict[int, dict[str, None]] = {}
    memberships = (
        Membership.objects.current()
        .filter(player__tournament_entries__tournament=tournament)
        .order_by("club__name")
        .values_list("player_id", "club__name")
    )
    for player_id, club in memberships:
        clubs.setdefault(player_id, {})[club] = None
    return {player_id: ", ".join(names) for player_id, names in clubs.items()}


# --- Analysis: PRs of the tournament's analysed matches


@dataclass(frozen=True)
class BestPR:
    entry: Entry
    pr: float
    decisions: int
    matches: int


def best_prs(tournament: Tournament, user: Any, limit: int) -> list[BestPR]:
    """The ``limit`` lowest PRs of the tournament's players over their analysed matches
    (decisions-weighted, ``analysis.queries``), counting only the matches whose result
    ``user`` may see (a silent round's analysis is hidden with its result): two
    queries at most, whatever the field."""
    analyses = analysis_queries.visible_to(
        analysis_queries.done().filter(match__pairing__round__tournament=tournament), user
    )
    figures = analysis_queries.prs_by(
        analyses, "match__pairing__entry1_id", "match__pairing__entry2_id"
    )
    top = analysis_queries.best(figures.values(), limit)
    if not top:
        return []
    entries = Entry.objects.select_related("player").in_bulk([f.key for f in top])
    return [
        BestPR(entries[f.key], f.pr, f.decisions, f.matches)  # type: ignore[index]
        for f in top
        if f.key in entries
    ]


def event_prs(entries: Iterable[Entry], player_id: int, user: Any) -> dict[int, float]:
    """The player's PR in each tournament of ``entries`` over their analysed matches
    that ``user`` may see, by tournament id (one query for any number of entries)."""
    tournament_ids = {entry.tournament_id for entry in entries}
    if not tournament_ids:
        return {}
    analyses = analysis_queries.visible_to(
        analysis_queries.done().filter(match__pairing__round__tournament_id__in=tournament_ids),
        user,
    )
    figures = analysis_queries.player_prs_by(
        analyses, player_id, "match__pairing__round__tournament_id"
    )
    return {key: figure.pr for key, figure in figures.items()}  # type: ignore[misc]
