"""Qualification: the top places of a finished tournament enter another one,
seeded by place."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from clubs import permissions
from tournaments import adapters, core
from tournaments.formats import flights
from tournaments.models import Entry, EntryStatus, Tournament, TournamentState
from tournaments.services.common import (
    OPEN_STATES,
    bump_public_version,
    core_error,
    lock_tournament,
    require_state,
    tournament_audit,
)
from tournaments.services.standings import standings_rows


def final_rows(tournament: Tournament) -> list[core.StandingRow]:
    """The tournament's placed rows of its main flight as core rows, for qualification."""
    rows, _tie_breaks, _key = standings_rows(tournament)
    return [
        core.StandingRow(r["place"], r["rank"], r["entry"], r["score"], r["tiebreaks"], r["by_lot"])
        for r in rows
        if r["flight"] == flights.MAIN and r["place"]
    ]


@transaction.atomic
def enter_qualifiers(target: Tournament, *, by: Any) -> list[Entry]:
    """Enter the top ``qualifying_places`` of ``target.qualifies_from``, seeded by place."""
    permissions.require(by, "tournament.manage", target)
    t = lock_tournament(target)
    require_state(t, OPEN_STATES, _("Entering the qualifiers"))
    if t.qualifies_from_id is None or not t.qualifying_places:
        raise ValidationError(
            _("Say which tournament qualifies players into this one, and how many places.")
        )
    source = Tournament.objects.select_related("federation").get(pk=t.qualifies_from_id)
    if source.state != TournamentState.FINISHED:
        raise ValidationError(
            _("%(source)s is not finished: its places are not final.") % {"source": source}
        )
    source_entries = {e.pk: e for e in adapters.entry_rows(source)}
    try:
        qualified = core.qualify(
            final_rows(source), t.qualifying_places, adapters.core_entries(source_entries.values())
        )
    except core.TournamentError as error:
        raise core_error(error) from error
    existing = {e.player_id: e for e in Entry.objects.filter(tournament=t)}
    taken = {e.seed for e in existing.values() if e.seed is not None}
    out: list[Entry] = []
    for q in qualified:
        src = source_entries[q.id]
        entry = existing.get(src.player_id)
        seed = q.seed if q.seed not in taken else None
        if entry is None:
            entry = Entry.objects.create(
                tournament=t,
                player=src.player,
                seed=seed,
                rating=src.rating,
                status=EntryStatus.CHECKED_IN
                if t.state == TournamentState.CHECK_IN
                else EntryStatus.REGISTERED,
            )
            if seed is not None:
                taken.add(seed)
        out.append(entry)
    bump_public_version(t)
    tournament_audit(
        by, "tournament.qualifiers", t, t, None, {"from": source.pk, "entries": [e.pk for e in out]}
    )
    return out
