"""The organizer console: a tournament's whole life on one page.

``/organize/`` lists the tournaments the user manages, ``/organize/new/``
creates one, ``/organize/<id>/`` is the console (state and the next step,
entries and seeds, rounds with pairings and results, standings, staff,
qualification).  Every button posts to its own small view that hands the
change to ``tournaments.services`` and returns to the console with the
service's answer as a message.  Forms carry the version of what they act on
(a state, a status, a digest): a stale page is told so and nothing is done.
A final or destructive step (finishing, withdrawing a player, publishing
standings) acts only with ``confirm=1``: the console asks inline, and a post
without it gets a page saying what will happen (``console_steps.confirmation``).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from clubs import permissions
from clubs import services as club_services
from clubs.filters import PlayerFilter
from clubs.forms import add_service_errors
from clubs.models import Player, Role, RoleAssignment
from clubs.views.accounts import signed_in
from tournaments import adapters, brackets, queries, services
from tournaments.formats import flights, registry
from tournaments.forms import (
    AddEntryForm,
    PairingsForm,
    PlayerSearchForm,
    SeedsForm,
    StaffForm,
    TournamentForm,
    host_choices,
)
from tournaments.models import (
    Entry,
    EntryStatus,
    Round,
    RoundState,
    StandingsSnapshot,
    Tournament,
    TournamentState,
)
from tournaments.views import console_steps, console_undo, results_inline
from tournaments.views.common import (
    console_url,
    error_text,
    get_managed,
    in_play_text,
    manageable,
    managed_tournaments,
    perform,
    stale,
    stale_entry,
    standings_tables,
)

SEARCH_LIMIT = 20
STATES = [s for s, _label in TournamentState.choices]


# --- The list and creation


@signed_in
def tournament_list(request: HttpRequest) -> HttpResponse:
    tournaments = manageable(request.user, managed_tournaments(request.user))
    return render(
        request,
        "tournaments/console_list.html",
        {"tournaments": tournaments, "may_create": bool(host_choices(request.user))},
    )


def _sources(user: Any, tournament: Tournament | None) -> QuerySet[Tournament]:
    """Tournaments whose top places may qualify into this one: others the user manages
    (of the same federation, once it is known)."""
    found = managed_tournaments(user).order_by("-starts_on", "-id")
    if tournament is not None:
        found = found.filter(federation_id=tournament.federation_id).exclude(pk=tournament.pk)
    return found


@signed_in
@require_http_methods(["GET", "POST"])
def tournament_new(request: HttpRequest) -> HttpResponse:
    user = request.user
    if not host_choices(user):
        raise PermissionDenied(_("You may not create tournaments."))
    form = TournamentForm(request.POST or None, user=user, sources=_sources(user, None))
    if request.method == "POST" and form.is_valid():
        federation, club = form.chosen_host()
        settings = form.settings()
        try:
            tournament = services.create_tournament(
                by=user,
                federation=federation,
                club=club,
                name=settings.pop("name"),
                discipline=settings.pop("discipline"),
                format=settings.pop("format"),
                **settings,
            )
        except ValidationError as error:
            add_service_errors(form, error)
        except PermissionDenied as error:
            form.add_error(None, error_text(error))
        else:
            messages.success(request, _("The tournament has been created."))
            return redirect("tournaments:console", pk=tournament.pk)
    return render(
        request,
        "tournaments/tournament_form.html",
        {"form": form, "tournament": None, "format_settings": registry.settings_by_field()},
        status=400 if request.method == "POST" else 200,
    )


@signed_in
@require_http_methods(["GET", "POST"])
def tournament_settings(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    user = request.user
    form = TournamentForm(
        request.POST or None,
        user=user,
        tournament=tournament,
        sources=_sources(user, tournament),
    )
    if request.method == "POST" and form.is_valid():
        changed = form.changed_settings()
        if not changed:
            messages.info(request, _("Nothing was changed."))
            return redirect("tournaments:console", pk=tournament.pk)
        try:
            services.update_tournament(tournament, by=user, **changed)
        except ValidationError as error:
            add_service_errors(form, error)
        except PermissionDenied as error:
            form.add_error(None, error_text(error))
        else:
            messages.success(request, _("The settings have been saved."))
            return redirect("tournaments:console", pk=tournament.pk)
    return render(
        request,
        "tournaments/tournament_form.html",
        {"form": form, "tournament": tournament, "format_settings": registry.settings_by_field()},
        status=400 if request.method == "POST" else 200,
    )


# --- The console page


def _search(request: HttpRequest, tournament: Tournament, entered: set[int]) -> dict[str, Any]:
    form = PlayerSearchForm(request.GET or None)
    found: list[Player] = []
    if form.is_valid() and form.cleaned_data["q"].strip():
        visible = permissions.visible_federations(request.user).values("id")
        players = Player.objects.filter(merged_into__isnull=True, federation_id__in=visible)
        players = PlayerFilter(
            {"name": form.cleaned_data["q"]}, queryset=players, request=request
        ).qs
        found = list(
            players.select_related("federation").order_by("name_latin", "id")[:SEARCH_LIMIT]
        )
        for player in found:
            player.entered = player.pk in entered  # type: ignore[attr-defined]
    return {
        "search_form": form,
        "found": found,
        "searched": form.is_valid() and bool(form.cleaned_data["q"].strip()),
    }


def _pairing_rows(tournament: Tournament, rounds: list[Round]) -> None:
    # The result forms of a started round's rows: results_inline.mark_rows.
    for rnd in rounds:
        rnd.label = console_steps.round_name(rnd)  # type: ignore[attr-defined]
        for pairing in rnd.pairings.all():
            outcome = adapters.pairing_outcome(pairing)
            pairing.winner_side = outcome[0] if outcome else None  # type: ignore[attr-defined]
            match = pairing.match
            pairing.confirmed = bool(match and match.result_status == "confirmed")  # type: ignore[attr-defined]


def console_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    entries = list(
        Entry.objects.filter(tournament=tournament)
        .select_related("player", "player__federation")
        .order_by("seed", "id")
    )
    rounds = list(queries.rounds_with_pairings(tournament))
    for rnd in rounds:
        rnd.tournament = tournament  # no query for the label
    _pairing_rows(tournament, rounds)
    console_undo.mark_undoable(tournament, entries, rounds)  # the Undo buttons
    # The inline result rows of started rounds (views.results_inline), the table the
    # last result sent the director on to focused: in the round table, or in the
    # bracket when the result came from one of its boxes.
    focus = results_inline.focus_from(request)
    in_bracket = results_inline.focus_in_bracket(request)
    results_inline.mark_rows(tournament, rounds, None if in_bracket else focus)
    snapshots = list(
        StandingsSnapshot.objects.filter(tournament=tournament).order_by("-after_round")
    )
    console_steps.mark_superseded(snapshots)
    assignments = list(
        RoleAssignment.objects.filter(
            scope_type=ContentType.objects.get_for_model(Tournament),
            scope_id=tournament.pk,
            role__in=[Role.ORGANIZER, Role.ARBITER],
        )
        .select_related("user")
        .order_by("role", "user__username")
    )
    active = [e for e in entries if e.status != EntryStatus.WITHDRAWN]
    seedable = tournament.state in services.OPEN_STATES
    latest = snapshots[0] if snapshots else None
    in_play = queries.standings_rounds(p for r in rounds for p in r.pairings.all()).in_play
    requested = tournament.standings_requested_at
    context: dict[str, Any] = {
        "tournament": tournament,
        "federation": tournament.federation,
        "states": _timeline(tournament.state),
        "steps": console_steps.next_steps(tournament, rounds, snapshots, entries),
        "entries": entries,
        "active_count": len(active),
        "checked_in_count": sum(e.status == EntryStatus.CHECKED_IN for e in entries),
        "running": tournament.state == TournamentState.RUNNING,
        "open_entries": tournament.state in services.OPEN_STATES
        or (
            tournament.state == TournamentState.RUNNING
            and registry.for_tournament(tournament).late_entries
        ),
        "checking_in": tournament.state in (TournamentState.REGISTRATION, TournamentState.CHECK_IN),
        "seeds_form": SeedsForm(entries=active) if seedable and active else None,
        "rounds": list(reversed(rounds)),
        "snapshots": snapshots,
        "latest": latest,
        "latest_tables": standings_tables(tournament, latest) if latest else [],
        # Started rounds the standings do not count yet, with how many results they have.
        "in_play": [
            in_play_text(
                console_steps.round_label(_("Round %(number)d"), r.round),
                r.official,
                r.pairings,
                show_count=True,
            )
            for r in in_play
        ],
        # Asked for (a result came in) and not landed yet: the table may be behind.
        "recomputing": requested is not None and (latest is None or latest.computed_at < requested),
        "brackets": _brackets(tournament, rounds, focus if in_bracket else None),
        "publish_warning": console_steps.PUBLISH_WARNING,
        "assignments": assignments,
        "staff_form": StaffForm(),
        "finished": tournament.state == TournamentState.FINISHED,
    }
    context.update(_search(request, tournament, {e.player_id for e in entries}))
    return context


def _brackets(
    tournament: Tournament, rounds: list[Round], focus: tuple[int, int] | None
) -> list[dict[str, Any]]:
    """Each bracket flight drawn as on the public page, every result shown (the
    director sees what the public may not yet), each open match box taking its
    result (``results_inline.mark_boxes``; ``rounds`` marked by ``mark_rows``)."""
    fmt = registry.for_tournament(tournament)
    if not fmt.has_bracket or tournament.state not in (
        TournamentState.RUNNING,
        TournamentState.FINISHED,
    ):
        return []
    out = []
    for flight in fmt.bracket_flights(tournament):
        columns = queries.bracket_view(tournament, flight)
        if columns:
            sections = brackets.draw_flight(columns)
            results_inline.mark_boxes(sections, flight, rounds, focus)
            out.append({"flight": flight, "title": flights.title(flight), "sections": sections})
    return out


def _timeline(state: str) -> list[dict[str, Any]]:
    current = STATES.index(state)
    return [
        {"state": s, "label": label, "done": k < current, "current": k == current}
        for k, (s, label) in enumerate(TournamentState.choices)
    ]


@signed_in
def console(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    return render(request, "tournaments/console.html", console_context(request, tournament))


# --- State


@signed_in
@require_POST
def change_state(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    target = request.POST.get("state", "")
    if request.POST.get("from_state") != tournament.state:
        return stale(
            request,
            tournament,
            _("The tournament is now in the state “%(state)s”.")
            % {"state": tournament.get_state_display()},
        )
    user = request.user
    if target == TournamentState.RUNNING:
        return perform(
            request,
            tournament,
            lambda: services.start_tournament(tournament, by=user),
            _("The tournament has started."),
        )
    if target == TournamentState.FINISHED:
        asked = console_steps.confirmation(
            request,
            tournament,
            question=_("Finish %(tournament)s?") % {"tournament": tournament.name},
            warning=str(console_steps.FINISH_WARNING),
            label=_("Yes, finish the tournament"),
        )
        if asked is not None:
            return asked
        return perform(
            request,
            tournament,
            lambda: services.finish_tournament(tournament, by=user),
            _("The tournament is finished."),
        )
    if target not in STATES:
        messages.error(request, _("Unknown state."))
        return redirect(console_url(tournament))
    label = dict(TournamentState.choices)[target]
    return perform(
        request,
        tournament,
        lambda: services.set_state(tournament, target, by=user),
        _("The tournament is now in the state “%(state)s”.") % {"state": label},
    )


# --- Entries


@signed_in
@require_POST
def entry_add(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    form = AddEntryForm(request.POST)
    player = None
    if form.is_valid():
        player = Player.objects.filter(pk=form.cleaned_data["player"]).first()
    if player is None:
        messages.error(request, _("No such player."))
        return redirect(console_url(tournament, "entries"))
    late = tournament.state == TournamentState.RUNNING
    try:
        services.add_entry(tournament, player, by=request.user, late=late)
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, error_text(error))
    else:
        done = _("%(player)s is entered late.") if late else _("%(player)s is entered.")
        messages.success(request, done % {"player": player})
    # Back to the same search, to enter the next player from it.
    query = (form.cleaned_data.get("q") or "").strip()
    url = console_url(tournament)
    return redirect(f"{url}?{urlencode({'q': query})}#add-player" if query else f"{url}#entries")


def _entry(tournament: Tournament, eid: int) -> Entry:
    entry = Entry.objects.select_related("player").filter(pk=eid, tournament=tournament).first()
    if entry is None:
        raise Http404(_("No such entry."))
    return entry


@signed_in
@require_POST
def entry_check_in(request: HttpRequest, pk: int, eid: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    entry = _entry(tournament, eid)
    changed = stale_entry(request, tournament, entry)
    if changed is not None:
        return changed
    return perform(
        request,
        tournament,
        lambda: services.check_in(entry, by=request.user),
        _("%(player)s is checked in.") % {"player": entry.player},
        "entries",
    )


@signed_in
@require_POST
def entry_withdraw(request: HttpRequest, pk: int, eid: int) -> HttpResponse:
    """Before the tournament runs the entry is removed; afterwards it is withdrawn."""
    tournament = get_managed(request, pk)
    entry = _entry(tournament, eid)
    changed = stale_entry(request, tournament, entry)
    if changed is not None:
        return changed
    if tournament.state in (TournamentState.RUNNING, TournamentState.FINISHED):
        asked = console_steps.confirmation(
            request,
            tournament,
            question=_("Withdraw %(player)s?") % {"player": entry.player},
            warning=str(console_steps.WITHDRAW_WARNING) % {"player": entry.player},
            label=_("Yes, withdraw %(player)s") % {"player": entry.player},
        )
        if asked is not None:
            return asked
        return perform(
            request,
            tournament,
            lambda: services.withdraw(entry, by=request.user),
            _("%(player)s has withdrawn.") % {"player": entry.player},
            "entries",
        )
    return perform(
        request,
        tournament,
        lambda: services.remove_entry(entry, by=request.user),
        _("%(player)s is no longer entered.") % {"player": entry.player},
        "entries",
    )


@signed_in
@require_POST
def seeds(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    user = request.user
    if "by_rating" in request.POST:
        return perform(
            request,
            tournament,
            lambda: services.seed_entries(tournament, by=user),
            _("The entries are seeded by rating."),
            "entries",
        )
    entries = list(
        Entry.objects.filter(tournament=tournament)
        .exclude(status=EntryStatus.WITHDRAWN)
        .select_related("player")
        .order_by("seed", "id")
    )
    form = SeedsForm(request.POST, entries=entries)
    if form.is_stale():
        return stale(request, tournament, _("The list of entries has changed."), "entries")
    if not form.is_valid():
        for errors in form.errors.values():
            for text in errors:
                messages.error(request, text)
        return redirect(console_url(tournament, "entries"))
    return perform(
        request,
        tournament,
        lambda: services.seed_entries(tournament, by=user, seeds=form.seeds()),
        _("The seeds have been saved."),
        "entries",
    )


# --- Rounds


def _round(tournament: Tournament, rid: int) -> Round:
    rnd = Round.objects.filter(pk=rid, tournament=tournament).first()
    if rnd is None:
        raise Http404(_("No such round."))
    rnd.tournament = tournament
    return rnd


def _round_is_stale(
    request: HttpRequest, tournament: Tournament, rnd: Round
) -> HttpResponse | None:
    if request.POST.get("round_state") != rnd.state:
        return stale(
            request,
            tournament,
            _("%(round)s is now %(state)s.")
            % {
                "round": console_steps.round_label(_("Round %(number)d"), rnd),
                "state": rnd.get_state_display(),
            },
            "rounds",
        )
    return None


@signed_in
@require_POST
def round_pair(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    flight = request.POST.get("flight") or flights.MAIN
    seen = request.POST.get("seen")
    if seen is not None and seen != str(Round.objects.filter(tournament=tournament).count()):
        return stale(request, tournament, _("Another round was paired meanwhile."), "rounds")
    try:
        rnd = services.pair_next_round(tournament, by=request.user, flight=flight)
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, error_text(error))
        return redirect(console_url(tournament, "rounds"))
    rnd.tournament = tournament
    messages.success(
        request,
        _("%(round)s is paired; check the pairings, then start it.")
        % {"round": console_steps.round_label(_("Round %(number)d"), rnd)},
    )
    return redirect(console_url(tournament, f"round-{rnd.pk}"))


def _round_action(request: HttpRequest, pk: int, rid: int, action: Any, done: str) -> HttpResponse:
    """Run a round service for the round of the posted form, unless the form is stale."""
    tournament = get_managed(request, pk)
    rnd = _round(tournament, rid)
    return _round_is_stale(request, tournament, rnd) or perform(
        request,
        tournament,
        lambda: action(rnd, by=request.user),
        done % {"round": console_steps.round_label(_("Round %(number)d"), rnd)},
        f"round-{rnd.pk}",
    )


@signed_in
@require_POST
def round_start(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    return _round_action(request, pk, rid, services.start_round, _("%(round)s has started."))


@signed_in
@require_POST
def round_close(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    return _round_action(request, pk, rid, services.close_round, _("%(round)s is closed."))


@signed_in
@require_POST
def round_silent(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    rnd = _round(tournament, rid)
    silent = request.POST.get("silent") == "1"
    if request.POST.get("was") != ("1" if rnd.silent else "0"):
        return stale(request, tournament, _("The round's silence was changed meanwhile."), "rounds")
    return perform(
        request,
        tournament,
        lambda: services.set_silent(rnd, silent, by=request.user),
        _("The round is silent: its results stay hidden until the standings are published.")
        if silent
        else _("The round is no longer silent."),
        f"round-{rnd.pk}",
    )


@signed_in
@require_http_methods(["GET", "POST"])
def pairings_edit(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    rnd = _round(tournament, rid)
    pairings = list(
        rnd.pairings.select_related("entry1__player", "entry2__player").order_by("table")
    )
    entries = list(
        Entry.objects.filter(tournament=tournament)
        .exclude(status=EntryStatus.WITHDRAWN)
        .select_related("player")
        .order_by("seed", "id")
    )
    form = PairingsForm(request.POST or None, round=rnd, pairings=pairings, entries=entries)
    status = 200
    if request.method == "POST":
        if form.is_stale():
            return stale(
                request, tournament, _("The pairings were changed meanwhile."), f"round-{rnd.pk}"
            )
        if form.is_valid():
            try:
                services.edit_pairings(rnd, form.cleaned_data["pairs"], by=request.user)
            except ValidationError as error:
                add_service_errors(form, error)
            except PermissionDenied as error:
                form.add_error(None, error_text(error))
            else:
                messages.success(request, _("The pairings have been saved."))
                return redirect(console_url(tournament, f"round-{rnd.pk}"))
        status = 400
    return render(
        request,
        "tournaments/pairings_form.html",
        {
            "tournament": tournament,
            "round": rnd,
            "round_label": console_steps.round_label(_("Round %(number)d"), rnd),
            "form": form,
            "editable": rnd.state == RoundState.PAIRED,
        },
        status=status,
    )


# --- Standings


@signed_in
@require_POST
def standings_compute(request: HttpRequest, pk: int) -> HttpResponse:
    """Compute the standings now (normally a task does it after each result)."""
    tournament = get_managed(request, pk)
    return perform(
        request,
        tournament,
        lambda: services.compute_standings(tournament),
        _("The standings have been computed."),
        "standings",
    )


@signed_in
@require_POST
def standings_publish(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    snapshot = StandingsSnapshot.objects.filter(pk=sid, tournament=tournament).first()
    if snapshot is None:
        raise Http404(_("No such standings."))
    if request.POST.get("digest", "") != snapshot.results_digest:
        return stale(
            request,
            tournament,
            _("The standings were recomputed after a result changed."),
            "standings",
        )
    asked = console_steps.confirmation(
        request,
        tournament,
        question=_("Publish the standings after round %(number)d?")
        % {"number": snapshot.after_round},
        warning=str(console_steps.PUBLISH_WARNING),
        label=_("Yes, publish them"),
    )
    if asked is not None:
        return asked
    return perform(
        request,
        tournament,
        lambda: services.publish_standings(snapshot, by=request.user),
        _("The standings after round %(number)d are published.") % {"number": snapshot.after_round},
        "standings",
    )


# --- Staff and qualification


@signed_in
@require_POST
def staff_add(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    form = StaffForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for text in errors:
                messages.error(request, text)
        return redirect(console_url(tournament, "staff"))
    person, role = form.cleaned_data["username"], form.cleaned_data["role"]
    if role == Role.ORGANIZER:
        done = _("%(user)s is now an organizer of this tournament.")
    else:
        done = _("%(user)s is now an arbiter of this tournament.")
    return perform(
        request,
        tournament,
        lambda: club_services.grant_role(person, role, tournament, by=request.user),
        done % {"user": person.get_username()},
        "staff",
    )


@signed_in
@require_POST
def staff_revoke(request: HttpRequest, pk: int, aid: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    assignment = (
        RoleAssignment.objects.select_related("user")
        .filter(
            pk=aid,
            scope_type=ContentType.objects.get_for_model(Tournament),
            scope_id=tournament.pk,
            role__in=[Role.ORGANIZER, Role.ARBITER],
        )
        .first()
    )
    if assignment is None:
        return stale(request, tournament, _("That appointment no longer exists."), "staff")
    return perform(
        request,
        tournament,
        lambda: club_services.revoke_role(assignment, by=request.user),
        _("%(user)s no longer has that role.") % {"user": assignment.user.get_username()},
        "staff",
    )


@signed_in
@require_POST
def qualifiers(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    try:
        entered = services.enter_qualifiers(tournament, by=request.user)
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, error_text(error))
    else:
        messages.success(request, _("Qualifiers entered: %(count)d.") % {"count": len(entered)})
    return redirect(console_url(tournament, "entries"))
