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
without it gets a page saying what will happen (``_confirmation``).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_http_methods, require_POST

from clubs import permissions
from clubs import services as club_services
from clubs.filters import PlayerFilter
from clubs.forms import add_service_errors
from clubs.models import Player, Role, RoleAssignment
from clubs.views.accounts import signed_in
from tournaments import adapters, brackets, queries, services
from tournaments.formats import flights, registry
from tournaments.formats.base import knockout_round_name
from tournaments.forms import (
    AddEntryForm,
    ForfeitForm,
    PairingsForm,
    PlayerSearchForm,
    ResultEntryForm,
    SeedsForm,
    StaffForm,
    TournamentForm,
    host_choices,
)
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
from tournaments.views import results_inline
from tournaments.views.common import (
    console_url,
    error_text,
    get_managed,
    in_play_text,
    manageable,
    managed_tournaments,
    perform,
    stale,
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


# What a final step does, said before it is done (the console asks to confirm it).
FINISH_WARNING = _lazy(
    "The tournament ends: no more rounds, results or entries, and the final "
    "standings stand. Finishing cannot be undone."
)
PUBLISH_WARNING = _lazy(
    "Everyone sees these standings, and the silent rounds they cover become public. "
    "Publishing cannot be undone."
)
WITHDRAW_WARNING = _lazy(
    "%(player)s is paired in no later round and loses the matches still to play by "
    "forfeit. A withdrawal cannot be undone."
)


def _next_steps(
    tournament: Tournament,
    rounds: list[Round],
    snapshots: list[StandingsSnapshot],
    entries: list[Entry],
) -> list[dict[str, Any]]:
    """The buttons that move the tournament on, the most likely one first: only the
    steps that can be taken now (no "pair round 4" after the last planned round)."""
    steps: list[dict[str, Any]] = []
    state = tournament.state

    def to_state(target: str, label: str, confirm: str = "") -> None:
        steps.append(
            {
                "action": reverse("tournaments:state", args=[tournament.pk]),
                "fields": {"state": target, "from_state": state},
                "label": label,
                "confirm": confirm,
            }
        )

    if state == TournamentState.DRAFT:
        to_state(TournamentState.REGISTRATION, _("Open registration"))
    elif state == TournamentState.REGISTRATION:
        to_state(TournamentState.CHECK_IN, _("Open check-in"))
        to_state(TournamentState.RUNNING, _("Start the tournament"))
        to_state(TournamentState.DRAFT, _("Back to draft"))
    elif state == TournamentState.CHECK_IN:
        to_state(TournamentState.RUNNING, _("Start the tournament"))
        to_state(TournamentState.REGISTRATION, _("Reopen registration"))
    elif state == TournamentState.RUNNING:
        open_rounds = [r for r in rounds if r.state != RoundState.CLOSED]
        for rnd in open_rounds:
            if rnd.state == RoundState.PAIRED:
                steps.append(
                    {
                        "action": reverse("tournaments:round_start", args=[tournament.pk, rnd.pk]),
                        "fields": {"round_state": rnd.state},
                        "label": round_label(_("Start round %(number)d"), rnd),
                    }
                )
            else:
                steps.append(
                    {
                        "action": reverse("tournaments:round_close", args=[tournament.pk, rnd.pk]),
                        "fields": {"round_state": rnd.state},
                        "label": round_label(_("Close round %(number)d"), rnd),
                    }
                )
        unpublished = [s for s in snapshots if s.published_at is None]
        if not open_rounds and unpublished:
            latest = unpublished[0]
            steps.append(
                {
                    "action": reverse(
                        "tournaments:standings_publish", args=[tournament.pk, latest.pk]
                    ),
                    "fields": {"digest": latest.results_digest},
                    "label": _("Publish the standings after round %(number)d")
                    % {"number": latest.after_round},
                    "confirm": str(PUBLISH_WARNING),
                }
            )
        fmt = registry.for_tournament(tournament)
        pairings = [p for r in rounds for p in r.pairings.all()]
        paired_flights = fmt.paired_flights(tournament)
        several = len(paired_flights) > 1
        if several:
            busy = {r.flight for r in open_rounds}
        else:  # no new round while a round is open, whatever flight the format paired
            busy = set(paired_flights) if open_rounds else set()
        pairable = []
        for flight in paired_flights:
            # The format's own rule for "no more rounds" (what pairing would answer).
            if flight in busy or not fmt.can_pair_next(tournament, flight, entries, pairings):
                continue
            pairable.append(flight)
            if fmt.next_round_number_known:
                played = sum(1 for r in rounds if r.flight == flight)
                text = _("Pair round %(number)d") % {"number": played + 1}
            else:
                text = _("Pair the next round")
            if several:
                text = f"{text} ({flights.label(flight)})"
            steps.append(
                {
                    "action": reverse("tournaments:round_pair", args=[tournament.pk]),
                    "fields": {"flight": flight, "seen": len(rounds)},
                    "label": text,
                }
            )
        if not open_rounds:
            to_state(TournamentState.FINISHED, _("Finish the tournament"), str(FINISH_WARNING))
            if not pairable or fmt.looks_finished(tournament, rounds):
                # The planned rounds are played: finishing comes first.
                steps.insert(0, steps.pop())
    for k, step in enumerate(steps):
        step["primary"] = k == 0
        step.setdefault("confirm", "")
    return steps


def round_name(rnd: Round) -> str:
    """The round's heading, as every page names it (the format's ``round_title``):
    "Round 3", "Semi-final", "Quarter-final · Consolation"."""
    tournament = rnd.tournament
    return registry.for_tournament(tournament).round_title(tournament, rnd.flight, rnd.number)


def _confirmation(
    request: HttpRequest, tournament: Tournament, *, question: str, warning: str, label: str
) -> HttpResponse | None:
    """A final or destructive step posted without ``confirm=1``: a page that says what
    will happen and posts the same form again with the confirmation (no script needed;
    the console's own forms ask inline and carry ``confirm=1``).  None once confirmed."""
    if request.POST.get("confirm") == "1":
        return None
    fields = [
        (name, value)
        for name, value in request.POST.items()
        if name not in ("csrfmiddlewaretoken", "confirm")
    ]
    return render(
        request,
        "tournaments/console_confirm.html",
        {
            "tournament": tournament,
            "question": question,
            "warning": warning,
            "label": label,
            "action": request.path,
            "fields": fields,
            "back": console_url(tournament),
        },
    )


def round_label(text: str, rnd: Round) -> str:
    """ "Round 3", "Round 3 (Semi-final)" or "Round 3 (Consolation)": what the round is
    in a bracket, and its flight unless it is the main flight where the organizer
    pairs no other."""
    label = text % {"number": rnd.number}
    fmt = registry.for_tournament(rnd.tournament)
    about = [knockout_round_name(fmt, rnd.tournament, rnd.flight, rnd.number)]
    paired = fmt.paired_flights(rnd.tournament)
    if not (rnd.flight == flights.MAIN and len(paired) == 1):
        about.append(flights.title(rnd.flight))
    said = [str(part) for part in about if part]
    return f"{label} ({' · '.join(said)})" if said else label


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
        rnd.label = round_name(rnd)  # type: ignore[attr-defined]
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
    # The inline result rows of started rounds (views.results_inline), the table the
    # last result sent the director on to focused.
    results_inline.mark_rows(tournament, rounds, results_inline.focus_from(request))
    snapshots = list(
        StandingsSnapshot.objects.filter(tournament=tournament).order_by("-after_round")
    )
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
        "steps": _next_steps(tournament, rounds, snapshots, entries),
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
                round_label(_("Round %(number)d"), r.round),
                r.official,
                r.pairings,
                show_count=True,
            )
            for r in in_play
        ],
        # Asked for (a result came in) and not landed yet: the table may be behind.
        "recomputing": requested is not None and (latest is None or latest.computed_at < requested),
        "brackets": _brackets(tournament),
        "publish_warning": PUBLISH_WARNING,
        "assignments": assignments,
        "staff_form": StaffForm(),
        "finished": tournament.state == TournamentState.FINISHED,
    }
    context.update(_search(request, tournament, {e.player_id for e in entries}))
    return context


def _brackets(tournament: Tournament) -> list[dict[str, Any]]:
    """Each bracket flight drawn as on the public page, every result shown (the
    director sees what the public may not yet)."""
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
            out.append(
                {
                    "flight": flight,
                    "title": flights.title(flight),
                    "sections": brackets.draw_flight(columns),
                }
            )
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
        asked = _confirmation(
            request,
            tournament,
            question=_("Finish %(tournament)s?") % {"tournament": tournament.name},
            warning=str(FINISH_WARNING),
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
    if request.POST.get("status") != entry.status:
        return stale(
            request,
            tournament,
            _("%(player)s is now %(status)s.")
            % {"player": entry.player, "status": entry.get_status_display()},
            "entries",
        )
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
    if request.POST.get("status") != entry.status:
        return stale(
            request,
            tournament,
            _("%(player)s is now %(status)s.")
            % {"player": entry.player, "status": entry.get_status_display()},
            "entries",
        )
    if tournament.state in (TournamentState.RUNNING, TournamentState.FINISHED):
        asked = _confirmation(
            request,
            tournament,
            question=_("Withdraw %(player)s?") % {"player": entry.player},
            warning=str(WITHDRAW_WARNING) % {"player": entry.player},
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
            % {"round": round_label(_("Round %(number)d"), rnd), "state": rnd.get_state_display()},
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
        % {"round": round_label(_("Round %(number)d"), rnd)},
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
        done % {"round": round_label(_("Round %(number)d"), rnd)},
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
            "round_label": round_label(_("Round %(number)d"), rnd),
            "form": form,
            "editable": rnd.state == RoundState.PAIRED,
        },
        status=status,
    )


def _played_pairing(tournament: Any, pid: int) -> Pairing:
    """A table of this tournament with two players (404 otherwise: a bye has no result)."""
    pairing = (
        Pairing.objects.select_related("round", "entry1__player", "entry2__player", "match")
        .filter(pk=pid, round__tournament=tournament)
        .first()
    )
    if pairing is None or pairing.is_bye:
        raise Http404(_("No such pairing."))
    return pairing


def _report_form_errors(request: HttpRequest, form: Any) -> None:
    """A table's form is a row of the console: its errors come back as messages."""
    for field, errors in form.errors.items():
        for text in errors:
            label = form.fields[field].label if field in form.fields else ""
            messages.error(request, f"{label}: {text}" if label else text)


@signed_in
@require_POST
def forfeit(request: HttpRequest, pk: int, pid: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    pairing = _played_pairing(tournament, pid)
    form = ForfeitForm(
        request.POST,
        pairing=pairing,
        allow_both=not registry.for_tournament(tournament).is_knockout(pairing.round.flight),
    )
    if not form.is_valid():
        _report_form_errors(request, form)
        return redirect(console_url(tournament, f"round-{pairing.round_id}"))
    winner = form.winner_entry()
    if winner is None:
        done = _("Table %(table)d: both players forfeit.") % {"table": pairing.table}
    else:
        name = pairing.entry1.player if winner == pairing.entry1_id else pairing.entry2.player
        done = _("Table %(table)d: %(player)s wins by forfeit.") % {
            "table": pairing.table,
            "player": name,
        }
    return perform(
        request,
        tournament,
        lambda: services.forfeit(
            pairing, by=request.user, winner=winner, reason=form.cleaned_data["reason"]
        ),
        done,
        f"round-{pairing.round_id}",
    )


@signed_in
@require_POST
def result(request: HttpRequest, pk: int, pid: int) -> HttpResponse:
    """Enter a table's final score: official at once (tournaments.services.enter_result)."""
    tournament = get_managed(request, pk)
    pairing = _played_pairing(tournament, pid)
    section = f"round-{pairing.round_id}"
    form = ResultEntryForm(request.POST, pairing=pairing)
    if not form.is_valid():
        _report_form_errors(request, form)
        return redirect(console_url(tournament, section))
    data = form.cleaned_data
    try:
        report = services.enter_result(
            pairing, by=request.user, score1=data["score1"], score2=data["score2"]
        )
    except (ValidationError, PermissionDenied) as error:
        messages.error(
            request,
            _("Table %(table)d: %(error)s") % {"table": pairing.table, "error": error_text(error)},
        )
    else:
        values = {"table": pairing.table, "score1": report.score1, "score2": report.score2}
        if report.status == "confirmed":
            messages.success(
                request, _("Table %(table)d: %(score1)d–%(score2)d is official.") % values
            )
        else:  # the organizer plays at this table: their opponent confirms
            messages.success(
                request,
                _("Table %(table)d: %(score1)d–%(score2)d is reported; your opponent confirms it.")
                % values,
            )
    return redirect(console_url(tournament, section))


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
    asked = _confirmation(
        request,
        tournament,
        question=_("Publish the standings after round %(number)d?")
        % {"number": snapshot.after_round},
        warning=str(PUBLISH_WARNING),
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
