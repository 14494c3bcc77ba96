"""The field of a tournament: entering and removing players, check-in, seeds, and
withdrawals (a withdrawn player's open matches are lost by forfeit)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from base import locking
from clubs import permissions
from clubs.models import Player
from clubs.services import snapshot
from games.models import Match
from tournaments import adapters, core, queries
from tournaments.formats import registry
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    Round,
    RoundState,
    Tournament,
    TournamentState,
)
from tournaments.services.common import (
    OPEN_STATES,
    bump_public_version,
    lock_tournament,
    ratings_now,
    require_state,
    tournament_audit,
)
from tournaments.services.rounds import forfeit_pairing


@transaction.atomic
def add_entry(
    tournament: Tournament,
    player: Player,
    *,
    by: Any,
    seed: int | None = None,
    late: bool = False,
    rating: float | None = None,
) -> Entry:
    """Enter a player: organizers at any time before the end (``late`` while running,
    in the formats that take them: paired from the next round with no wins); a player enters
    themself while registration is open."""
    permissions.require(by, "tournament.enter", (tournament, player))
    t = lock_tournament(tournament)
    if t.state == TournamentState.FINISHED:
        raise ValidationError(_("The tournament is finished: no more entries."))
    if t.state == TournamentState.RUNNING:
        if not late:
            raise ValidationError(_("The tournament is running: a new player is a late entry."))
        if not registry.for_tournament(t).late_entries:
            raise ValidationError(
                _("A %(format)s has its draw: late entries join only these formats: %(formats)s.")
                % {
                    "format": t.get_format_display(),
                    "formats": ", ".join(
                        str(fmt.label) for fmt in registry.all_formats() if fmt.late_entries
                    ),
                }
            )
    elif late:
        raise ValidationError(_("Only a running tournament takes late entries."))
    if not player.is_active:
        raise ValidationError(
            _("%(player)s was merged into another profile; enter that one.") % {"player": player}
        )
    if Entry.objects.filter(tournament=t, player=player).exists():
        raise ValidationError(_("%(player)s is already entered.") % {"player": player})
    if seed is not None:
        if seed < 1:
            raise ValidationError({"seed": _("A seed is a positive number.")})
        if t.state == TournamentState.RUNNING:
            raise ValidationError({"seed": _("Seeds are fixed once the tournament runs.")})
        if Entry.objects.filter(tournament=t, seed=seed).exists():
            raise ValidationError({"seed": _("Seed %(seed)d is taken.") % {"seed": seed}})
    if rating is None:
        rating = ratings_now(t, [player]).get(player.pk)
    checked_in = t.state in (TournamentState.CHECK_IN, TournamentState.RUNNING) and permissions.can(
        by, "tournament.manage", t
    )
    if by is None and t.state in (TournamentState.CHECK_IN, TournamentState.RUNNING):
        checked_in = True
    entry = Entry.objects.create(
        tournament=t,
        player=player,
        seed=seed,
        rating=rating,
        late=late,
        status=EntryStatus.CHECKED_IN if checked_in else EntryStatus.REGISTERED,
    )
    bump_public_version(t)
    tournament_audit(by, "tournament.entry.add", entry, t, None, snapshot(entry))
    return entry


@transaction.atomic
def remove_entry(entry: Entry, *, by: Any) -> None:
    permissions.require(by, "entry.change", entry)
    t = lock_tournament(entry.tournament)
    require_state(t, OPEN_STATES, _("Removing an entry"))
    tournament_audit(by, "tournament.entry.remove", entry, t, snapshot(entry), None)
    entry.delete()
    bump_public_version(t)


@transaction.atomic
def check_in(entry: Entry, *, by: Any) -> Entry:
    permissions.require(by, "entry.change", entry)
    t = lock_tournament(entry.tournament)
    require_state(t, (TournamentState.REGISTRATION, TournamentState.CHECK_IN), _("Checking in"))
    entry = locking.row(Entry.objects, pk=entry.pk)
    if entry.status == EntryStatus.WITHDRAWN:
        raise ValidationError(_("%(player)s has withdrawn.") % {"player": entry.player})
    if entry.status != EntryStatus.CHECKED_IN:
        entry.status = EntryStatus.CHECKED_IN
        entry.save(update_fields=["status"])
        bump_public_version(t)
        tournament_audit(by, "tournament.entry.check_in", entry, t, None, {"status": entry.status})
    return entry


@transaction.atomic
def seed_entries(
    tournament: Tournament, *, by: Any, seeds: Mapping[int, int] | None = None
) -> list[Entry]:
    """Hand seeds (entry id -> seed), or seeds by rating (highest first) when None."""
    permissions.require(by, "tournament.manage", tournament)
    t = lock_tournament(tournament)
    require_state(t, OPEN_STATES, _("Seeding"))
    entries = {e.pk: e for e in Entry.objects.filter(tournament=t).select_related("player")}
    if seeds is None:
        ratings = ratings_now(t, [e.player for e in entries.values()])
        for e in entries.values():
            e.rating = ratings.get(e.player_id, e.rating)
        active = [e for e in entries.values() if e.status != EntryStatus.WITHDRAWN]
        order = core.initial_order([adapters.core_entry(e) for e in active], "rating")
        new = {ce.id: k for k, ce in enumerate(order, start=1)}
    else:
        unknown = sorted(set(seeds) - set(entries))
        if unknown:
            raise ValidationError(
                _("Not entries of this tournament: %(ids)s")
                % {"ids": ", ".join(str(i) for i in unknown)}
            )
        values = [int(v) for v in seeds.values() if v is not None]
        if any(v < 1 for v in values):
            raise ValidationError(_("A seed is a positive number."))
        twice = sorted(v for v, n in Counter(values).items() if n > 1)
        if twice:
            raise ValidationError(
                _("Seeds given twice: %(seeds)s") % {"seeds": ", ".join(map(str, twice))}
            )
        new = {pk: (int(v) if v is not None else None) for pk, v in seeds.items()}
        kept = {e.seed for pk, e in entries.items() if pk not in new and e.seed is not None}
        clash = sorted(kept & set(values))
        if clash:
            raise ValidationError(
                _("Seeds already held by other entries: %(seeds)s")
                % {"seeds": ", ".join(map(str, clash))}
            )
    before = {pk: e.seed for pk, e in entries.items()}
    for pk, e in entries.items():
        if pk in new:
            e.seed = new[pk]
    Entry.objects.filter(tournament=t).update(seed=None)
    Entry.objects.bulk_update(entries.values(), ["seed", "rating"])
    bump_public_version(t)
    after = {pk: e.seed for pk, e in entries.items()}
    tournament_audit(by, "tournament.seed", t, t, {"seeds": before}, {"seeds": after})
    return sorted(entries.values(), key=lambda e: (e.seed is None, e.seed or 0, e.pk))


@transaction.atomic
def withdraw(entry: Entry, *, by: Any) -> Entry:
    """The entry leaves: not paired from the next round; any match it still has to
    play is lost by forfeit (in a bracket the opponent advances)."""
    permissions.require(by, "entry.change", entry)
    # Locks in the one order (base.locking): tournament, entry, pairings, matches.
    t = lock_tournament(entry.tournament)
    require_state(t, (*OPEN_STATES, TournamentState.RUNNING), _("Withdrawing"))
    entry = locking.row(Entry.objects.select_related("player"), pk=entry.pk)
    if entry.status == EntryStatus.WITHDRAWN:
        raise ValidationError(_("%(player)s has withdrawn already.") % {"player": entry.player})
    # The last round started, counted by the standings or not: a withdrawal during
    # round 6 forfeits the player's round-6 match, so the table after round 5 still
    # shows them playing and the one after round 6 shows them withdrawn.
    played = (
        Round.objects.filter(tournament=t, state__in=queries.PLAYED_ROUND_STATES)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    entry.status = EntryStatus.WITHDRAWN
    entry.withdrawn_after_round = played or 0
    entry.save(update_fields=["status", "withdrawn_after_round"])
    bump_public_version(t)
    if t.state == TournamentState.RUNNING:
        open_pairings = locking.rows(
            Pairing.objects.filter(round__tournament=t)
            .exclude(round__state=RoundState.CLOSED)
            .filter(entry2__isnull=False)
            .filter(Q(entry1_id=entry.pk) | Q(entry2_id=entry.pk))
            .select_related("round")
        )
        # Each match is read once locked: a result confirmed meanwhile stands.
        matches = {
            m.pk: m
            for m in locking.rows(
                Match.objects.filter(pk__in=[p.match_id for p in open_pairings if p.match_id])
            )
        }
        for p in open_pairings:
            p.match = matches.get(p.match_id) if p.match_id else None
            if adapters.is_decided(p):
                continue
            side = 2 if p.entry1_id == entry.pk else 1
            forfeit_pairing(
                p, side, by=None, reason=_("%(player)s withdrew.") % {"player": entry.player}
            )
    tournament_audit(
        by,
        "tournament.entry.withdraw",
        entry,
        t,
        None,
        {"withdrawn_after_round": entry.withdrawn_after_round},
    )
    return entry
