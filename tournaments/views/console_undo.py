"""The console's undo steps: a withdrawal undone (``services.reinstate``) and a pairing
undone (``services.unpair_round``), each while the rules allow it.

``mark_undoable`` tells the console page which buttons to show, by the rule the
services refuse by (``reinstate_problem``, ``unpair_problem``).  Each button posts
with the version of what it acts on (the entry's status, the round's state) and
``confirm=1`` from the console's inline question; a post without it gets the
confirmation page (``console_steps.confirmation``).  A stale or repeated post is
told so, and nothing is done.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_POST

from clubs.views.accounts import signed_in
from tournaments import services
from tournaments.models import Entry, EntryStatus, Round, RoundState, Tournament
from tournaments.views import console_steps
from tournaments.views.common import get_managed, perform, stale, stale_entry

REINSTATE_WARNING = _lazy(
    "%(player)s plays again from the next round, and the matches the withdrawal "
    "forfeited await their results again."
)
UNPAIR_WARNING = _lazy(
    "The round and its pairings are deleted; pair it again when ready. Nothing has "
    "been played in it yet."
)


def mark_undoable(
    tournament: Tournament, entries: Sequence[Entry], rounds: Sequence[Round]
) -> None:
    """Set ``undoable`` on each withdrawn entry whose withdrawal can be undone, and on
    each round whose pairing can be: the console shows "Undo" only for those."""
    # A round paired after a withdrawal makes it final: told from the rounds at hand,
    # so the usual case (every earlier withdrawal) costs the page no query.
    newest = max((rnd.pk for rnd in rounds), default=0)
    for entry in entries:
        entry.undoable = (  # type: ignore[attr-defined]
            entry.status == EntryStatus.WITHDRAWN
            and bool(entry.withdrawal)
            and entry.withdrawal.get("newest_round", 0) >= newest
            and _reinstate_problem(tournament, entry) is None
        )
    for rnd in rounds:
        rnd.undoable = rnd.state == RoundState.PAIRED and (  # type: ignore[attr-defined]
            services.unpair_problem(rnd) is None
        )


def _reinstate_problem(tournament: Tournament, entry: Entry) -> str | None:
    entry.tournament = tournament  # no query for the tournament
    return services.reinstate_problem(entry)


def _entry(tournament: Tournament, eid: int) -> Entry | None:
    return Entry.objects.select_related("player").filter(pk=eid, tournament=tournament).first()


@signed_in
@require_POST
def entry_reinstate(request: HttpRequest, pk: int, eid: int) -> HttpResponse:
    """Undo a withdrawal, asked first."""
    tournament = get_managed(request, pk)
    entry = _entry(tournament, eid)
    if entry is None:
        return stale(request, tournament, _("This entry no longer exists."), "entries")
    changed = stale_entry(request, tournament, entry)
    if changed is not None:
        return changed
    asked = console_steps.confirmation(
        request,
        tournament,
        question=_("Undo the withdrawal of %(player)s?") % {"player": entry.player},
        warning=str(REINSTATE_WARNING) % {"player": entry.player},
        label=_("Yes, %(player)s plays again") % {"player": entry.player},
    )
    if asked is not None:
        return asked
    return perform(
        request,
        tournament,
        lambda: services.reinstate(entry, by=request.user),
        _("The withdrawal of %(player)s is undone.") % {"player": entry.player},
        "entries",
    )


@signed_in
@require_POST
def round_unpair(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    """Undo the pairing of a round not started, asked first."""
    tournament = get_managed(request, pk)
    rnd = Round.objects.filter(pk=rid, tournament=tournament).first()
    if rnd is None:
        # Undone already (a second post, another tab): the round is gone.
        return stale(request, tournament, _("This round is no longer paired."), "rounds")
    rnd.tournament = tournament
    label = console_steps.round_label(_("Round %(number)d"), rnd)
    if request.POST.get("round_state") != rnd.state:
        return stale(
            request,
            tournament,
            _("%(round)s is now %(state)s.") % {"round": label, "state": rnd.get_state_display()},
            f"round-{rnd.pk}",
        )
    asked = console_steps.confirmation(
        request,
        tournament,
        question=_("Undo the pairing of %(round)s?") % {"round": label},
        warning=str(UNPAIR_WARNING),
        label=_("Yes, undo the pairing"),
    )
    if asked is not None:
        return asked
    return perform(
        request,
        tournament,
        lambda: services.unpair_round(rnd, by=request.user),
        _("The pairing of %(round)s is undone: pair it again when ready.") % {"round": label},
        "rounds",
    )
