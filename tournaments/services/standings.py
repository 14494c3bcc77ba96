"""Standings: computed by a Celery task after every confirmed result
(``request_standings``, coalesced), counting only the rounds closed or with
every result official (``queries.standings_rounds``), kept as one snapshot per
round, and published automatically when the tournament publishes standings, no
round is silent and the rounds a table counts are closed (so at the close of a
round, never while it is played), else when the organizer releases them
(``publish_standings``).
What a confirmed or withdrawn result owes a tournament (``on_result_confirmed``,
``on_result_withdrawn``, run by the tasks) is here too.
"""

from __future__ import annotations

import copy
import datetime
import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from base import locking
from base.tasks import owe
from clubs import permissions
from games.models import ReportStatus, ResultReport, ResultStatus
from ratings import receivers as ratings_receivers
from tournaments import adapters, core, queries, webhooks
from tournaments.formats import registry
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    Round,
    RoundState,
    StandingsSnapshot,
    Tournament,
    WebhookDelivery,
)
from tournaments.services.common import bump_public_version, core_error, tournament_audit

logger = logging.getLogger(__name__)

# The task that computes the standings (tournaments.tasks), owed by its registered name.
COMPUTE_STANDINGS_TASK = "tournaments.compute_standings"
# A standings request older than this whose task never ran (a lost message) is queued again.
STALE_REQUEST = datetime.timedelta(minutes=5)


@transaction.atomic
def publish_standings(snapshot: StandingsSnapshot, *, by: Any) -> StandingsSnapshot:
    """Publish the standings and release the silent rounds they cover."""
    # The tournament's row first (base.locking; its version moves below), then the
    # snapshot's, as compute_standings takes them.
    tournament_id = (
        StandingsSnapshot.objects.filter(pk=snapshot.pk)
        .values_list("tournament_id", flat=True)
        .get()
    )
    locking.row(Tournament.objects, pk=tournament_id)
    snap = (
        StandingsSnapshot.objects.select_for_update(of=("self",))
        .select_related("tournament__federation", "tournament__club")
        .get(pk=snapshot.pk)
    )
    t = snap.tournament
    permissions.require(by, "tournament.manage", t)
    # The rounds the snapshot covers: the first ``after_round`` rounds counted (a
    # silent round still in play stays silent).
    counted = queries.standings_rounds(adapters.pairing_rows(t)).counted
    released = [r.pk for r in counted[: snap.after_round] if r.silent]
    Round.objects.filter(pk__in=released).update(silent=False)
    ratings_follow(released)
    first = snap.published_at is None
    if first:
        snap.published_at = timezone.now()
        snap.save(update_fields=["published_at"])
    if first or released:
        bump_public_version(t)
    snapshot.published_at = snap.published_at
    tournament_audit(
        by,
        "tournament.standings.publish",
        snap,
        t,
        None,
        {"after_round": snap.after_round, "released_rounds": released},
    )
    if first or released:
        _notify_standings(snap)
    return snap


def ratings_follow(round_ids: Sequence[int]) -> None:
    """Rounds made silent or released: their confirmed results stop or start counting
    in the ratings (``games.visibility.withheld_q``), so the pools catch up once this
    commits, oldest result first (the first recomputes from there, the rest then
    find their rows in place)."""
    confirmed = (
        Pairing.objects.filter(round_id__in=round_ids, match__result_status=ResultStatus.CONFIRMED)
        .order_by("match__finished_at", "match_id")
        .values_list("match_id", flat=True)
    )
    for match_id in confirmed:
        ratings_receivers.on_result_changed(match_id)


def _notify_standings(snap: StandingsSnapshot) -> None:
    webhooks.notify(
        snap.tournament,
        webhooks.STANDINGS_PUBLISHED,
        {"after_round": snap.after_round, "tie_breaks": snap.tie_breaks, "rows": snap.rows},
    )


@transaction.atomic
def on_result_confirmed(match_id: int) -> None:
    """A games result became official: if the match is a tournament pairing, ask for
    standings and announce the result (``tasks.result_confirmed_task``, queued on the
    games commit by ``receivers``).

    Safe to run twice: under the tournament's row lock, a result announced with
    the same data since it was confirmed is not announced again."""
    tournament_id = _tournament_of_match(match_id)
    if tournament_id is None:
        return
    tournament = locking.row(Tournament.objects, pk=tournament_id)
    pairing = (
        Pairing.objects.filter(match_id=match_id)
        .select_related("round__tournament", "match", "entry1__player", "entry2__player")
        .first()
    )
    if pairing is None:
        return
    bump_public_version(tournament)
    confirmed_at = (
        ResultReport.objects.filter(match_id=match_id, status=ReportStatus.CONFIRMED)
        .order_by("-decided_at")
        .values_list("decided_at", flat=True)
        .first()
    )
    # A result withdrawn again before this ran: nothing to announce, standings still asked.
    result_recorded(pairing, announce=confirmed_at is not None, unless_since=confirmed_at)


@transaction.atomic
def on_result_withdrawn(match_id: int) -> None:
    """A pairing's match was cancelled (``tasks.result_withdrawn_task``, queued on the
    games commit by ``receivers``): its result no longer counts, so the standings are
    asked for again."""
    tournament_id = _tournament_of_match(match_id)
    if tournament_id is not None:
        bump_public_version(locking.row(Tournament.objects, pk=tournament_id))
        request_standings(tournament_id)


@transaction.atomic
def on_analysis_changed(match_id: int) -> None:
    """A pairing's match was analysed (or its analysis replaced; ``tasks.
    analysis_changed_task``, queued on the analysis's commit by ``receivers``): its
    players' PR feeds the PR tie-break and the tournament page's best PRs, so the
    standings are asked for again (their digest holds the PRs: a table changes only
    if they changed) and the public pages are rendered again."""
    tournament_id = _tournament_of_match(match_id)
    if tournament_id is not None:
        bump_public_version(locking.row(Tournament.objects, pk=tournament_id))
        request_standings(tournament_id)


def _tournament_of_match(match_id: int) -> int | None:
    return (
        Pairing.objects.filter(match_id=match_id).values_list("round__tournament_id", flat=True)
    ).first()


def result_recorded(
    pairing: Pairing, *, announce: bool = True, unless_since: datetime.datetime | None = None
) -> None:
    """Ask for standings and announce the pairing's result (not for a silent round);
    ``unless_since``: not if the same announcement was made since then."""
    rnd = pairing.round
    request_standings(rnd.tournament_id)
    if rnd.silent:
        return
    match = pairing.match
    # winner None with forfeit: both forfeited.
    side, forfeit = adapters.pairing_outcome(pairing) or (None, False)
    data = {
        "flight": rnd.flight,
        "round": rnd.number,
        "table": pairing.table,
        "entry1": pairing.entry1_id,
        "entry2": pairing.entry2_id,
        "match": pairing.match_id,
        "score1": match.score1 if match is not None else None,
        "score2": match.score2 if match is not None else None,
        "winner": side,
        "forfeit": forfeit,
    }
    if not announce or (
        unless_since is not None and _announced_since(rnd.tournament, data, unless_since)
    ):
        return
    webhooks.notify(rnd.tournament, webhooks.RESULT_CONFIRMED, data)


def _announced_since(
    tournament: Tournament, data: dict[str, Any], since: datetime.datetime
) -> bool:
    """Whether the latest announcement of this match, made since ``since``, said ``data``
    (a second run of the same work; retries of a delivery are later attempts)."""
    latest = (
        WebhookDelivery.objects.filter(
            tournament=tournament,
            event=webhooks.RESULT_CONFIRMED,
            attempts=1,
            payload__data__match=data["match"],
        )
        .order_by("-created_at", "-pk")
        .values_list("created_at", "payload")
        .first()
    )
    return latest is not None and latest[0] >= since and latest[1].get("data") == data


def request_standings(tournament_id: int) -> None:
    """Mark that the standings need computing and queue the task on commit; a burst
    of results queues it once (the task clears the mark only if it is unchanged)."""
    now = timezone.now()
    with transaction.atomic():
        locked = locking.rows(Tournament.objects.filter(pk=tournament_id))
        row = locked[0].standings_requested_at if locked else None
        Tournament.objects.filter(pk=tournament_id).update(standings_requested_at=now)
    if row is None or now - row > STALE_REQUEST:
        owe(COMPUTE_STANDINGS_TASK, tournament_id)


def _as_after(
    entries: list[Entry], pairings: list[Pairing], count: int
) -> tuple[list[Entry], list[Pairing]]:
    """The entries and pairings as they stood after the first ``count`` rounds the
    standings count (``queries.standings_rounds``: in all flights, in the order they
    started): other rounds' pairings left out (the round in play's results too),
    late entries not yet paired left out, a withdrawal made later undone."""
    # The pairings carry their rounds (adapters.pairing_rows), and every round has pairings.
    counted = queries.standings_rounds(pairings).counted
    rounds = {r.pk for r in counted[:count]}
    pairings = [p for p in pairings if p.round_id in rounds]
    paired = {e for p in pairings for e in (p.entry1_id, p.entry2_id)}
    then = []
    for e in entries:
        if e.late and e.pk not in paired:
            continue
        if e.status == EntryStatus.WITHDRAWN and (e.withdrawn_after_round or 0) > count:
            e = copy.copy(e)
            e.status = EntryStatus.CHECKED_IN
        then.append(e)
    return then, pairings


def _standings_digest(t: Tournament, entries: list[Entry], pairings: list[Pairing]) -> str:
    """A digest of everything the standings are computed from (settings, entries, results)."""
    return adapters.digest(
        t.format,
        t.tie_breaks,
        t.bye_is_win,
        t.remaining_ties,
        t.rounds_planned,
        t.max_losses,
        [(e.pk, e.seed, e.rating, e.status, e.late, str(e.player)) for e in entries],
        [
            (p.round.flight, p.round.number, p.slot, r)
            for p in pairings
            for r in [adapters.match_result(p)]
            if r is not None
        ],
    )


def standings_rows(
    tournament: Tournament,
    *,
    entries: list[Entry] | None = None,
    pairings: list[Pairing] | None = None,
    after: int | None = None,
) -> tuple[list[dict[str, Any]], list[str], str]:
    """(rows, tie-breaks used, digest of the inputs) of the tournament's standings now,
    or after its first ``after`` rounds played.  ``entries`` and ``pairings``: the
    tournament's rows when the caller has them loaded already."""
    t = tournament
    entries = adapters.entry_rows(t) if entries is None else entries
    pairings = list(adapters.pairing_rows(t)) if pairings is None else pairings
    if after is not None:
        entries, pairings = _as_after(entries, pairings, after)
    key = _standings_digest(t, entries, pairings)
    rows, tie_breaks = registry.for_tournament(t).standings(t, entries, pairings)
    return rows, tie_breaks, key


def _publish_computed(t: Tournament, snapshot_id: int) -> StandingsSnapshot:
    """Publish a snapshot computed before its last round closed (the tournament
    publishes its standings): the close is what makes it public."""
    with transaction.atomic():
        # The tournament's row before the snapshot's (as publish_standings takes them).
        bump_public_version(t)
        snap = StandingsSnapshot.objects.select_for_update().get(pk=snapshot_id)
        if snap.published_at is None:
            snap.published_at = timezone.now()
            snap.save(update_fields=["published_at"])
            _notify_standings(snap)
    return snap


def compute_standings(tournament: Tournament) -> StandingsSnapshot | None:
    """The standings after the rounds counted so far, as a snapshot (one per round);
    None while no round counts yet.

    A round counts once it is closed or all its results are official, and only
    after every round started before it (``queries.standings_rounds``): the round
    in play never makes a snapshot nor changes one.  Idempotent: the snapshot
    keeps a digest of its inputs and is left untouched when nothing changed.
    Published at once when the tournament publishes its standings and no round
    is silent and every round it counts is closed (a complete round still open waits
    for its close); otherwise it waits for the organizer.  A result corrected in an
    earlier round also corrects the earlier snapshots (their publication, if
    any, stands; only the latest one is announced).
    """
    t = Tournament.objects.select_related("federation", "club", "discipline").get(pk=tournament.pk)
    entries = adapters.entry_rows(t)
    pairings = list(adapters.pairing_rows(t))
    counted = queries.standings_rounds(pairings).counted
    after = len(counted)
    stored = list(
        StandingsSnapshot.objects.filter(tournament=t).values_list("after_round", "results_digest")
    )
    beyond = [count for count, _digest in stored if count > after]
    if beyond:
        # A round stopped counting (a result of it was withdrawn before it closed):
        # the tables that counted it are not true any more.
        logger.info("standings of tournament %s after %s withdrawn", t.pk, beyond)
        StandingsSnapshot.objects.filter(tournament=t, after_round__in=beyond).delete()
    corrected = bool(beyond)
    for count, digest in stored:
        if count >= after:
            continue
        then_entries, then_pairings = _as_after(entries, pairings, count)
        if _standings_digest(t, then_entries, then_pairings) == digest:
            continue  # the usual case: nothing changed in those rounds
        try:
            rows, tie_breaks, key = standings_rows(t, entries=then_entries, pairings=then_pairings)
        except core.TournamentError as error:
            logger.warning("standings of tournament %s after %s: %s", t.pk, count, error)
            continue
        StandingsSnapshot.objects.filter(tournament=t, after_round=count).update(
            rows=rows, tie_breaks=tie_breaks, results_digest=key, computed_at=timezone.now()
        )
        corrected = True
    if corrected:
        bump_public_version(t)
    if not after:
        return None  # no table before a round counts
    existing = StandingsSnapshot.objects.filter(tournament=t, after_round=after).first()
    try:
        # The counted rounds only: a bye or forfeit set in a round not started yet
        # counts once that round counts.
        rows, tie_breaks, key = standings_rows(t, entries=entries, pairings=pairings, after=after)
    except core.TournamentError as error:
        raise core_error(error) from error
    # "Publish standings" publishes a table once its rounds are closed: a round whose
    # results are all in counts for the table before it closes, but the organizer may
    # still correct it, so its table waits for the close (close_round asks again).
    silent = Round.objects.filter(tournament=t, silent=True).exists()
    publish = (
        t.publish_standings and not silent and all(r.state == RoundState.CLOSED for r in counted)
    )
    if existing is not None and existing.results_digest == key:
        if publish and existing.published_at is None:
            return _publish_computed(t, existing.pk)
        return existing
    with transaction.atomic():
        # The tournament's row before the snapshot's (as publish_standings takes them).
        bump_public_version(t)
        snap, created = StandingsSnapshot.objects.select_for_update().get_or_create(
            tournament=t,
            after_round=after,
            defaults={"rows": rows, "tie_breaks": tie_breaks, "results_digest": key},
        )
        if not created:
            if snap.results_digest == key:
                return snap
            snap.rows, snap.tie_breaks, snap.results_digest = rows, tie_breaks, key
        if publish and snap.published_at is None:
            snap.published_at = timezone.now()
        snap.save()
        if snap.published_at is not None:
            _notify_standings(snap)
    return snap
