"""Rounds and pairings of a running tournament: pair a flight's next round, edit
its pairings, start it (a ``games.Match`` per pairing), record forfeits and
results from the console, make it silent, close it."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from clubs import permissions
from games import services as games_services
from games.models import MatchState, ResultReport
from tournaments import adapters, core, queries, webhooks
from tournaments.formats import flights, registry
from tournaments.models import (
    BOTH_FORFEITED,
    Entry,
    EntryStatus,
    Pairing,
    Round,
    RoundState,
    Tournament,
    TournamentState,
)
from tournaments.services.common import (
    bump_public_version,
    core_error,
    lock_round_with_tournament,
    lock_tournament,
    require_state,
    tournament_audit,
)
from tournaments.services.standings import (
    compute_standings,
    ratings_follow,
    request_standings,
    result_recorded,
)

logger = logging.getLogger(__name__)


@transaction.atomic
def pair_next_round(
    tournament: Tournament, *, by: Any, flight: str = flights.MAIN, silent: bool = False
) -> Round:
    """Pair the next round of ``flight`` as the tournament's format plans it
    (``tournaments.formats``).

    Swiss and cups pair by records (no rematches; byes to the lowest record);
    round robins follow the Berger table; brackets pair the matches of the
    flight that became ready (consolation and last-chance drops included);
    groups then knock-out pair the group rounds, then the knock-out.
    ``silent``: results and standings stay hidden until released.
    """
    permissions.require(by, "tournament.manage", tournament)
    t = lock_tournament(tournament)
    require_state(t, (TournamentState.RUNNING,), _("Pairing a round"))
    fmt = registry.for_tournament(t)
    flight = fmt.flight_to_pair(t, flight)
    previous = Round.objects.filter(tournament=t, flight=flight).order_by("-number").first()
    if previous is not None and previous.state != RoundState.CLOSED:
        raise ValidationError(
            _("Round %(number)d of the %(flight)s is still open: close it first.")
            % {"number": previous.number, "flight": flights.label(flight)}
        )
    number = previous.number + 1 if previous else 1
    entries = adapters.entry_rows(t)
    try:
        plan, final = fmt.plan(t, flight, number, entries)
    except core.TournamentError as error:
        raise core_error(error) from error
    rnd = Round.objects.create(
        tournament=t,
        flight=flight,
        number=number,
        match_length=t.length_for(flight, number, final),
        silent=silent,
    )
    status = {e.pk: e.status for e in entries}
    withdrawn = {pk for pk, s in status.items() if s == EntryStatus.WITHDRAWN}
    bracket = fmt.is_knockout(flight)
    pairings = []
    matches = [p for p in plan if p[1] is not None]
    byes = [p for p in plan if p[1] is None]
    for table, (a, b, slot) in enumerate(matches + byes, start=1):
        forfeit: int | None = None
        if b is not None and (a in withdrawn or b in withdrawn):
            if a in withdrawn and b in withdrawn:
                forfeit = 1 if bracket else BOTH_FORFEITED
            else:
                forfeit = 2 if a in withdrawn else 1
        pairings.append(
            Pairing(
                round=rnd, table=table, entry1_id=a, entry2_id=b, slot=slot, forfeit_winner=forfeit
            )
        )
    Pairing.objects.bulk_create(pairings)
    bump_public_version(t)
    tournament_audit(
        by,
        "tournament.round.pair",
        rnd,
        t,
        None,
        {"flight": flight, "round": number, "pairings": [(a, b) for a, b, _s in plan]},
    )
    return rnd


@transaction.atomic
def edit_pairings(round: Round, pairs: list[tuple[int, int | None]], *, by: Any) -> Round:
    """Replace the pairings of a round not yet started (entry ids; None = a bye).

    Every player of the round appears exactly once; nobody new comes in.
    Brackets follow their draw and cannot be edited.
    """
    rnd = lock_round_with_tournament(round)
    t = rnd.tournament
    permissions.require(by, "tournament.manage", t)
    if rnd.state != RoundState.PAIRED:
        raise ValidationError(
            _("Round %(number)d has started: its pairings are fixed.") % {"number": rnd.number}
        )
    if registry.for_tournament(t).is_knockout(rnd.flight):
        raise ValidationError(
            _("A bracket's pairings follow its draw: change the seeds before the start.")
        )
    current = list(rnd.pairings.order_by("table"))
    expected = {p.entry1_id for p in current} | {p.entry2_id for p in current if p.entry2_id}
    slot_of = {}
    for p in current:
        slot_of[p.entry1_id] = p.slot
        if p.entry2_id:
            slot_of[p.entry2_id] = p.slot
    seen: Counter[int] = Counter()
    cleaned: list[tuple[int, int | None]] = []
    for index, pair in enumerate(pairs, start=1):
        try:
            a, b = pair
            a = int(a)
            b = int(b) if b not in (None, "") else None
        except (TypeError, ValueError):
            raise ValidationError(
                _("Pairing %(index)d: give two entry ids (or one, for a bye).") % {"index": index}
            ) from None
        if a == b:
            raise ValidationError(
                _("Pairing %(index)d: a player cannot meet themself.") % {"index": index}
            )
        seen.update([a] + ([b] if b is not None else []))
        cleaned.append((a, b))
    names = {
        e.pk: str(e.player) for e in Entry.objects.filter(tournament=t).select_related("player")
    }
    twice = sorted(pk for pk, n in seen.items() if n > 1)
    if twice:
        raise ValidationError(
            _("Paired more than once: %(players)s")
            % {"players": ", ".join(names.get(pk, str(pk)) for pk in twice)}
        )
    extra = sorted(set(seen) - expected)
    if extra:
        raise ValidationError(
            _("Not players of this round: %(players)s")
            % {"players": ", ".join(names.get(pk, str(pk)) for pk in extra)}
        )
    missing = sorted(expected - set(seen))
    if missing:
        raise ValidationError(
            _("Missing from the pairings: %(players)s")
            % {"players": ", ".join(names.get(pk, str(pk)) for pk in missing)}
        )
    if rnd.flight == flights.GROUPS:
        for a, b in cleaned:
            if b is not None and slot_of[a] != slot_of[b]:
                raise ValidationError(
                    _("%(a)s and %(b)s play in different groups.") % {"a": names[a], "b": names[b]}
                )
    withdrawn = set(
        Entry.objects.filter(tournament=t, status=EntryStatus.WITHDRAWN).values_list(
            "pk", flat=True
        )
    )
    before = [(p.entry1_id, p.entry2_id) for p in current]
    rnd.pairings.all().delete()
    ordered = [p for p in cleaned if p[1] is not None] + [p for p in cleaned if p[1] is None]
    new = []
    for table, (a, b) in enumerate(ordered, start=1):
        forfeit = None
        if b is not None and (a in withdrawn or b in withdrawn):
            forfeit = 0 if a in withdrawn and b in withdrawn else (2 if a in withdrawn else 1)
        new.append(
            Pairing(
                round=rnd,
                table=table,
                entry1_id=a,
                entry2_id=b,
                slot=slot_of.get(a, ""),
                forfeit_winner=forfeit,
            )
        )
    Pairing.objects.bulk_create(new)
    bump_public_version(t)
    tournament_audit(
        by, "tournament.round.edit", rnd, t, {"pairings": before}, {"pairings": ordered}
    )
    return rnd


def unpair_problem(rnd: Round) -> str | None:
    """Why the pairing of ``rnd`` can no longer be undone (None: it can): once the round
    has started, a match is made or a result entered, the pairing stands.  The console
    asks it to show the button; ``unpair_round`` asks it again under the locks."""
    t = rnd.tournament
    if t.state != TournamentState.RUNNING:
        return _("The tournament is %(state)s: its rounds stand.") % {
            "state": t.get_state_display()
        }
    if rnd.state != RoundState.PAIRED:
        return _("Round %(number)d has started: its pairing cannot be undone.") % {
            "number": rnd.number
        }
    if Round.objects.filter(tournament=t, flight=rnd.flight, number__gt=rnd.number).exists():
        return _("Round %(number)d is not the last of its flight.") % {"number": rnd.number}
    withdrawn = set(
        Entry.objects.filter(tournament=t, status=EntryStatus.WITHDRAWN).values_list(
            "pk", flat=True
        )
    )
    for p in sorted(rnd.pairings.all(), key=lambda p: p.table):
        where = {"table": p.table, "number": rnd.number}
        if p.match_id is not None:
            return _("Table %(table)d of round %(number)d has a match: the round has begun.") % (
                where
            )
        # A forfeit of a withdrawn player comes back when the round is paired again;
        # one recorded by hand is a result, and a result keeps the round.
        if p.forfeit_winner is not None and not ({p.entry1_id, p.entry2_id} & withdrawn):
            return (
                _(
                    "Table %(table)d of round %(number)d has a forfeit recorded: the pairing "
                    "cannot be undone."
                )
                % where
            )
    return None


@transaction.atomic
def unpair_round(round: Round, *, by: Any) -> dict[str, Any]:
    """Undo a pairing: a round paired but not started (no match made, no result entered)
    is deleted with its pairings, so the director pairs it again, perhaps after
    changing something.  A bracket's slots are free again by themselves: the bracket
    is replayed from the pairings that remain (``formats.base.ready_to_pair``).
    Returns what the round was (flight and number), for the caller's message."""
    try:
        rnd = lock_round_with_tournament(round)
    except Round.DoesNotExist:
        # Undone by someone else meanwhile (a second click, another tab, the API).
        raise ValidationError(_("This round is no longer paired.")) from None
    t = rnd.tournament
    permissions.require(by, "tournament.manage", t)
    problem = unpair_problem(rnd)
    if problem is not None:
        raise ValidationError(problem)
    # A withdrawal that forfeited a table here finds nothing left to take back there
    # (services.entries.reinstate): the round goes, its forfeits with it.
    pairings = list(rnd.pairings.order_by("table"))
    done = {"flight": rnd.flight, "round": rnd.number}
    tournament_audit(
        by,
        "tournament.round.unpair",
        rnd,
        t,
        {**done, "pairings": [(p.entry1_id, p.entry2_id, p.slot) for p in pairings]},
        None,
    )
    rnd.delete()
    bump_public_version(t)
    if any(p.forfeit_winner is not None for p in pairings):
        request_standings(t.pk)  # its forfeits were announced as results
    return done


def _sync_bracket_round(t: Tournament, rnd: Round) -> None:
    """Bring a paired bracket round in line with the bracket: a result corrected after
    the round was paired can change who plays in it."""
    bracket = registry.for_tournament(t).load_bracket(t)
    withdrawn = set(
        Entry.objects.filter(tournament=t, status=EntryStatus.WITHDRAWN).values_list(
            "pk", flat=True
        )
    )
    for p in rnd.pairings.all():
        if p.slot not in bracket.matches:
            continue
        a, b = bracket.players(p.slot)
        if not (isinstance(a, int) and isinstance(b, int)):
            raise ValidationError(
                _("Table %(table)d: its players are no longer known (a result was changed).")
                % {"table": p.table}
            )
        if (p.entry1_id, p.entry2_id) != (a, b):
            p.entry1_id, p.entry2_id = a, b
            p.forfeit_winner = None
            if a in withdrawn or b in withdrawn:  # a withdrawn player's match is forfeited
                p.forfeit_winner = 2 if a in withdrawn and b not in withdrawn else 1
            p.save(update_fields=["entry1", "entry2", "forfeit_winner"])


@transaction.atomic
def start_round(round: Round, *, by: Any) -> Round:
    """A ``games.Match`` per pairing (length, clock and recording from the tournament);
    byes and forfeits need none.  Sends the ``round.started`` webhook."""
    rnd = lock_round_with_tournament(round)
    t = rnd.tournament
    permissions.require(by, "tournament.manage", t)
    require_state(t, (TournamentState.RUNNING,), _("Starting a round"))
    if rnd.state != RoundState.PAIRED:
        raise ValidationError(_("Round %(number)d has started already.") % {"number": rnd.number})
    if _played_rounds(t):
        # The standings after the rounds so far are fixed before this one starts, so
        # every round keeps its snapshot even when the task has not run yet.
        try:
            compute_standings(t)
        except ValidationError as error:  # standings are a by-product: never block the round
            logger.warning("standings of tournament %s: %s", t.pk, error.messages)
    if registry.for_tournament(t).is_knockout(rnd.flight) and (
        rnd.pairings.exclude(slot="").exists()
    ):
        _sync_bracket_round(t, rnd)
    pairings = list(
        rnd.pairings.select_related("entry1__player", "entry2__player").order_by("table")
    )
    for p in pairings:
        if p.entry2_id is None or p.forfeit_winner is not None or p.match_id is not None:
            continue
        give_match(t, rnd, p)
    rnd.state = RoundState.STARTED
    rnd.started_at = timezone.now()
    rnd.save(update_fields=["state", "started_at"])
    round.state, round.started_at = rnd.state, rnd.started_at
    bump_public_version(t)
    tournament_audit(
        by, "tournament.round.start", rnd, t, {"state": "paired"}, {"state": "started"}
    )
    webhooks.notify(
        t,
        webhooks.ROUND_STARTED,
        {
            "flight": rnd.flight,
            "round": rnd.number,
            "match_length": rnd.match_length,
            "pairings": [
                {
                    "table": p.table,
                    "entry1": p.entry1_id,
                    "player1": str(p.entry1.player),
                    "entry2": p.entry2_id,
                    "player2": str(p.entry2.player) if p.entry2 else None,
                    "match": p.match_id,
                    "forfeit_winner": p.forfeit_winner,
                }
                for p in pairings
            ],
        },
    )
    return rnd


def give_match(t: Tournament, rnd: Round, p: Pairing) -> None:
    """The pairing's ``games.Match`` (length, clock and recording from the tournament),
    made as its round starts, or later for a table whose forfeit was taken back."""
    assert p.entry2 is not None
    p.match = games_services.create_match(
        by=None,
        player1=p.entry1.player,
        player2=p.entry2.player,
        discipline=t.discipline,
        length=rnd.match_length,
        federation=t.federation,
        recorded=t.recorded_matches,
        clock_mode=t.clock_mode,
        clock_reserve_seconds=t.clock_reserve_seconds,
        clock_per_point_seconds=t.clock_per_point_seconds,
        clock_move_seconds=t.clock_move_seconds,
        variant_options=t.variant_options or None,
    )
    p.save(update_fields=["match"])


@transaction.atomic
def set_silent(round: Round, silent: bool, *, by: Any) -> Round:
    """Make a round silent (its results and the standings stay hidden until released)
    or release it."""
    rnd = lock_round_with_tournament(round)
    t = rnd.tournament
    permissions.require(by, "tournament.manage", t)
    if silent and rnd.state == RoundState.CLOSED:
        raise ValidationError(
            _("Round %(number)d is closed: its results are out already.") % {"number": rnd.number}
        )
    if rnd.silent != silent:
        rnd.silent = silent
        rnd.save(update_fields=["silent"])
        bump_public_version(t)
        tournament_audit(
            by, "tournament.round.silent", rnd, t, {"silent": not silent}, {"silent": silent}
        )
        ratings_follow([rnd.pk])
    round.silent = silent
    return rnd


def forfeit_pairing(
    pairing: Pairing, winner_side: int, *, by: Any, reason: str
) -> ResultReport | None:
    """Record a forfeit win (through the match's override when there is a match), or
    with ``BOTH_FORFEITED`` a loss for both (the match, if any, is cancelled).  The
    override made, if any (a withdrawal keeps it, to take it back if undone)."""
    match = pairing.match if pairing.match_id is not None else None
    if match is not None and winner_side != BOTH_FORFEITED:
        score = (match.length, 0) if winner_side == 1 else (0, match.length)
        report = games_services.override_result(
            match, by=by, score1=score[0], score2=score[1], reason=reason, forfeit=True
        )
        pairing.forfeit_winner = winner_side
        pairing.save(update_fields=["forfeit_winner"])
        return report
    if match is not None and match.state != MatchState.CANCELLED:
        games_services.cancel_match(match, by=by, reason=reason)
        match.state = MatchState.CANCELLED
    pairing.forfeit_winner = winner_side
    pairing.save(update_fields=["forfeit_winner"])
    result_recorded(pairing)
    return None


@transaction.atomic
def forfeit(pairing: Pairing, *, by: Any, winner: int | None, reason: str) -> Pairing:
    """``winner`` (an entry id of the pairing) wins by forfeit; the match, if any, gets an
    override marked as a forfeit (games.services.override_result).  ``winner`` None:
    both forfeit (neither came), a loss for each and the match cancelled; not in a
    bracket, where someone has to go through."""
    # The tournament, then the pairing, then its match (base.locking).
    tournament_id = (
        Pairing.objects.filter(pk=pairing.pk).values_list("round__tournament_id", flat=True).get()
    )
    locking.row(Tournament.objects, pk=tournament_id)
    p = locking.row(
        Pairing.objects.select_related(
            "round__tournament__federation",
            "round__tournament__club",
            "match",
            "entry1__player",
            "entry2__player",
        ),
        pk=pairing.pk,
    )
    t = p.round.tournament
    permissions.require(by, "tournament.manage", t)
    require_state(t, (TournamentState.RUNNING,), _("Recording a forfeit"))
    if p.entry2_id is None:
        raise ValidationError(
            _("Table %(table)d is a bye: there is nobody to forfeit.") % {"table": p.table}
        )
    if p.round.state == RoundState.CLOSED:
        raise ValidationError(_("Round %(number)d is closed.") % {"number": p.round.number})
    if winner is not None and winner not in (p.entry1_id, p.entry2_id):
        raise ValidationError(
            _("The winner of a forfeit at table %(table)d is one of its two players.")
            % {"table": p.table}
        )
    fmt = registry.for_tournament(t)
    if winner is None and fmt.is_knockout(p.round.flight):
        raise ValidationError(
            _(
                "Table %(table)d is a knock-out match: one of its players has to go through, "
                "so award it to one of them."
            )
            % {"table": p.table}
        )
    if not reason.strip():
        raise ValidationError(_("A forfeit needs a written reason."))
    sides = {p.entry1_id: 1, p.entry2_id: 2}
    side = BOTH_FORFEITED if winner is None else sides[winner]
    if p.slot and adapters.is_decided(p) and fmt.is_knockout(p.round.flight):
        bracket = fmt.load_bracket(t)
        later = bracket.downstream(p.slot) if p.slot in bracket.matches else set()
        if Pairing.objects.filter(round__tournament=t, slot__in=later).exists():
            raise ValidationError(
                _("Table %(table)d: a later match already depends on this result.")
                % {"table": p.table}
            )
    before = {"forfeit_winner": p.forfeit_winner}
    forfeit_pairing(p, side, by=by, reason=reason)
    bump_public_version(t)
    tournament_audit(
        by, "tournament.forfeit", p, t, before, {"forfeit_winner": side, "reason": reason}
    )
    pairing.forfeit_winner = side
    return p


@transaction.atomic
def enter_result(pairing: Pairing, *, by: Any, score1: int, score2: int) -> ResultReport:
    """The organizer or arbiter enters a table's final score from the console: the
    games service makes it official at once, recorded as theirs (an organizer who
    plays at this table reports as a player: the opponent confirms)."""
    p = Pairing.objects.select_related("round__tournament", "match").filter(pk=pairing.pk).first()
    if p is None:
        raise ValidationError(_("This pairing no longer exists."))
    t = p.round.tournament
    permissions.require(by, "tournament.manage", t)
    require_state(t, (TournamentState.RUNNING,), _("Entering a result"))
    if p.match is None:
        raise ValidationError(_("Table %(table)d has no match to enter.") % {"table": p.table})
    if p.round.state == RoundState.CLOSED:
        raise ValidationError(_("Round %(number)d is closed.") % {"number": p.round.number})
    # Before the games service locks the match: the tournament's row comes first
    # (base.locking).  A result made official here shows at once.
    bump_public_version(t)
    return games_services.submit_report(p.match, by=by, score1=score1, score2=score2)


@transaction.atomic
def close_round(round: Round, *, by: Any) -> Round:
    """Close a round whose every pairing has its confirmed result (or is a bye or forfeit)."""
    rnd = lock_round_with_tournament(round)
    t = rnd.tournament
    permissions.require(by, "tournament.manage", t)
    if rnd.state == RoundState.CLOSED:
        raise ValidationError(_("Round %(number)d is closed already.") % {"number": rnd.number})
    if rnd.state != RoundState.STARTED:
        raise ValidationError(_("Round %(number)d has not started.") % {"number": rnd.number})
    pairings = list(rnd.pairings.select_related("match").order_by("table"))
    open_tables = [p.table for p in pairings if not adapters.is_decided(p)]
    if open_tables:
        raise ValidationError(
            _("Round %(number)d cannot close: no confirmed result at tables %(tables)s.")
            % {"number": rnd.number, "tables": ", ".join(map(str, open_tables))}
        )
    rnd.state = RoundState.CLOSED
    rnd.closed_at = timezone.now()
    rnd.save(update_fields=["state", "closed_at"])
    round.state, round.closed_at = rnd.state, rnd.closed_at
    bump_public_version(t)
    tournament_audit(
        by, "tournament.round.close", rnd, t, {"state": "started"}, {"state": "closed"}
    )
    request_standings(t.pk)
    return rnd


def _played_rounds(t: Tournament) -> int:
    """How many rounds have started (the standings may count fewer of them)."""
    return Round.objects.filter(tournament=t, state__in=queries.PLAYED_ROUND_STATES).count()
