"""Every change to tournaments, entries, rounds, pairings and standings.

Each function takes ``by`` (the acting user; None = the system: a task, a
command, the demo), checks the permission through clubs.permissions, does its
work in one transaction and writes the audit log.  Bad input raises Django's
ValidationError with a message saying what and where; a refused action
raises PermissionDenied.  The pairing and standings maths is the pure core's
(``tournaments.core``), reached through ``tournaments.adapters``.

Lifecycle: draft -> registration -> check_in -> running -> finished.  While
running, each flight's rounds are paired (``pair_next_round``), started (a
``games.Match`` per pairing), played (results confirmed in games) and closed.
Standings are computed by a Celery task after every confirmed result
(``request_standings``, coalesced), counting only the rounds closed or with
every result official (``queries.standings_rounds``), and published
automatically when the tournament publishes standings and no round is
silent, else when the organizer releases them (``publish_standings``).
"""

from __future__ import annotations

import copy
import datetime
import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from anyascii import anyascii
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from base import locking
from clubs import permissions
from clubs.models import Club, Discipline, Federation, Player
from clubs.services import audit, snapshot
from games import services as games_services
from games.models import Match, MatchState, ReportStatus, ResultReport, ResultStatus
from ratings.queries import current_ratings
from tournaments import adapters, core, queries, webhooks
from tournaments.models import (
    BOTH_FORFEITED,
    Entry,
    EntryStatus,
    Format,
    Pairing,
    Round,
    RoundState,
    StandingsSnapshot,
    Tournament,
    TournamentState,
    WebhookDelivery,
)

logger = logging.getLogger(__name__)

# Settings a caller may give, and which of them may still change in each state.
SETTINGS_FIELDS = (
    "name",
    "slug",
    "club",
    "discipline",
    "format",
    "starts_on",
    "rounds_planned",
    "max_losses",
    "groups",
    "qualifiers_per_group",
    "progressive_consolation",
    "last_chance",
    "seeding",
    "match_length",
    "match_lengths",
    "clock_mode",
    "clock_reserve_seconds",
    "clock_per_point_seconds",
    "clock_move_seconds",
    "bye_is_win",
    "tie_breaks",
    "remaining_ties",
    "recorded_matches",
    "is_public",
    "publish_pairings",
    "publish_results",
    "publish_standings",
    "qualifies_from",
    "qualifying_places",
    "webhook_url",
)
RUNNING_FIELDS = frozenset(
    {
        "name",
        "starts_on",
        "rounds_planned",
        "max_losses",
        "match_length",
        "match_lengths",
        "clock_mode",
        "clock_reserve_seconds",
        "clock_per_point_seconds",
        "clock_move_seconds",
        "tie_breaks",
        "remaining_ties",
        "recorded_matches",
        "is_public",
        "publish_pairings",
        "publish_results",
        "publish_standings",
        "webhook_url",
    }
)
FINISHED_FIELDS = frozenset(
    {"name", "is_public", "publish_pairings", "publish_results", "publish_standings", "webhook_url"}
)
# Formats that take late entries while running (paired from the next round).
LATE_ENTRY_FORMATS = frozenset({Format.SWISS, Format.CUP})
OPEN_STATES = (TournamentState.DRAFT, TournamentState.REGISTRATION, TournamentState.CHECK_IN)
# Started or closed: "played" for pairing and withdrawals; the standings count fewer
# rounds (``queries.standings_rounds``).
PLAYED_ROUND_STATES = queries.PLAYED_ROUND_STATES
# A standings request older than this whose task never ran (a lost message) is queued again.
STALE_REQUEST = datetime.timedelta(minutes=5)
SYSTEM_REASON_WITHDRAWN = "withdrawn"


# --- Helpers


def _flight_label(flight: str) -> str:
    labels = {
        "main": _("main flight"),
        "consolation": _("consolation"),
        "last_chance": _("last chance"),
        adapters.GROUP_FLIGHT: _("group stage"),
    }
    if flight.startswith(adapters.STAGE_PREFIX):
        return _("stage %(number)s") % {"number": flight.removeprefix(adapters.STAGE_PREFIX)}
    return labels.get(flight, flight)


def core_error(error: core.TournamentError) -> ValidationError:
    """The core's error code, worded for people."""
    data = error.data
    messages = {
        "too_few_entries": _("Too few players for this format."),
        "bad_group_count": _(
            "Every group needs at least two players: %(entries)s players cannot fill %(groups)s groups."
        ),
        "duplicate_seed": _("Two entries share seed %(seed)s."),
        "duplicate_entry": _("A player is entered twice."),
        "unknown_tiebreak": _("Unknown tie-break: %(tiebreak)s."),
        "no_valid_pairing": _(
            "No pairing of round %(round)s avoids a rematch: edit the pairings by hand."
        ),
        "event_finished": _("The event is complete: no further round is paired."),
        "nothing_to_pair": _("Fewer than two players are left to pair."),
        "tie_at_cut": _(
            "Players share a place at the qualifying cut: break the tie (by lot or a play-off) first."
        ),
        "not_enough_places": _("Fewer players are ranked than there are qualifying places."),
        "bad_setting": _("These settings do not fit the format: %(reason)s"),
    }
    template = messages.get(error.code, _("The tournament cannot do this: %(reason)s"))
    values = {"reason": error.reason, **{k: v for k, v in data.items() if k != "reason"}}
    try:
        message = template % values
    except (KeyError, TypeError, ValueError):
        message = template.split("%(")[0].rstrip(" :") + "."
    return ValidationError(message, code=error.code)


def _lock(tournament: Tournament) -> Tournament:
    locked = locking.row(
        Tournament.objects.select_related("federation", "club", "discipline"), pk=tournament.pk
    )
    # Keep the caller's object current.
    for field in ("state", "standings_requested_at"):
        setattr(tournament, field, getattr(locked, field))
    return locked


def _require_state(tournament: Tournament, states: Iterable[str], action: str) -> None:
    states = tuple(states)
    if tournament.state not in states:
        allowed = ", ".join(str(TournamentState(s).label) for s in states)
        raise ValidationError(
            _(
                "%(action)s is not possible while the tournament is %(state)s (only when: %(allowed)s)."
            )
            % {"action": action, "state": tournament.get_state_display(), "allowed": allowed}
        )


def _audit(
    by: Any, action: str, target: Any, tournament: Tournament, before: Any, after: Any
) -> None:
    audit(by, action, target, federation=tournament.federation, before=before, after=after)


def _unique_slug(federation: Federation, name: str, exclude: int | None = None) -> str:
    base = slugify(anyascii(name).replace("'", ""))[:70] or "tournament"
    taken = set(
        Tournament.objects.filter(federation=federation, slug__startswith=base)
        .exclude(pk=exclude)
        .values_list("slug", flat=True)
    )
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    return slug


def _ratings(tournament: Tournament, players: Sequence[Player]) -> dict[int, float]:
    """Current ratings of the players in the tournament's federation and discipline
    (players without one keep the rating given at entry)."""
    found = current_ratings(tournament.federation, tournament.discipline, [p.pk for p in players])
    return {int(k): float(v) for k, v in found.items()}


def _validate_lengths(value: Any) -> None:
    def positive(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and x >= 1

    if not isinstance(value, dict):
        raise ValidationError(
            {"match_lengths": _("Give the match lengths as a mapping by flight.")}
        )
    for flight, spec in value.items():
        if isinstance(spec, dict):
            bad = [
                k
                for k, v in spec.items()
                if not positive(v) or not (k in ("final", "default") or str(k).isdigit())
            ]
        else:
            bad = [] if positive(spec) else [flight]
        if bad:
            raise ValidationError(
                {
                    "match_lengths": _(
                        "Match lengths of %(flight)s: each is a positive number of points, "
                        'by round number, "final" or "default".'
                    )
                    % {"flight": flight}
                }
            )


def _validate_settings(t: Tournament) -> None:
    errors: dict[str, str] = {}
    if t.format == Format.SWISS and not t.rounds_planned and not t.max_losses:
        errors["rounds_planned"] = _("A Swiss needs a number of rounds or of losses.")
    if t.format == Format.CUP and not t.rounds_planned:
        errors["rounds_planned"] = _("A cup needs the number of rounds of each stage.")
    if t.format == Format.GROUPS_KNOCKOUT:
        if not t.groups:
            errors["groups"] = _("Say how many groups there are.")
        if not t.qualifiers_per_group:
            errors["qualifiers_per_group"] = _("Say how many players of each group go through.")
    if t.qualifies_from_id is not None and t.pk is not None and t.qualifies_from_id == t.pk:
        errors["qualifies_from"] = _("A tournament cannot qualify players into itself.")
    if t.qualifies_from_id is not None and not t.qualifying_places:
        errors["qualifying_places"] = _("Say how many places qualify.")
    if t.club_id is not None and t.club.federation_id != t.federation_id:
        errors["club"] = _("The host club belongs to another federation.")
    if not isinstance(t.tie_breaks, list) or not all(isinstance(c, str) for c in t.tie_breaks):
        errors["tie_breaks"] = _("Give the tie-breaks as a list of codes.")
    else:
        try:
            core.StandingsSettings(tiebreaks=tuple(t.tie_breaks))
        except core.TournamentError as error:
            errors["tie_breaks"] = (
                core_error(error).messages[0]
                + " "
                + _("Known codes: %(codes)s.") % {"codes": ", ".join(core.offered_codes())}
            )
    if t.webhook_url and not t.webhook_url.lower().startswith(("http://", "https://")):
        errors["webhook_url"] = _("A webhook address starts with http:// or https://.")
    elif t.webhook_url:
        problem = webhooks.literal_address_problem(t.webhook_url)
        if problem:
            errors["webhook_url"] = problem
    if errors:
        raise ValidationError(errors)
    _validate_lengths(t.match_lengths)


def _refuse_unavailable_tiebreaks(t: Tournament, values: Mapping[str, Any]) -> None:
    """A tie-break that is not offered may be kept by a tournament that has it, not added."""
    chosen = values.get("tie_breaks")
    if not isinstance(chosen, list):
        return  # not changed, or not a list: _validate_settings words that
    kept = t.tie_breaks if isinstance(t.tie_breaks, list) else []
    added = [c for c in chosen if c in core.UNAVAILABLE_CODES and c not in kept]
    if added:
        raise ValidationError(
            {
                "tie_breaks": _(
                    "The tie-break %(code)s is not offered: it needs analysed matches, "
                    "and no match is analysed yet. Offered codes: %(codes)s."
                )
                % {"code": added[0], "codes": ", ".join(core.offered_codes())}
            }
        )


def _apply(t: Tournament, values: Mapping[str, Any], allowed: Iterable[str]) -> None:
    allowed = set(allowed)
    unknown = set(values) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValidationError(
            _("Unknown settings: %(fields)s") % {"fields": ", ".join(sorted(unknown))}
        )
    _refuse_unavailable_tiebreaks(t, values)
    locked = [name for name in values if name not in allowed and getattr(t, name) != values[name]]
    if locked:
        raise ValidationError(
            {
                name: _("This setting cannot change while the tournament is %(state)s.")
                % {"state": t.get_state_display()}
                for name in locked
            }
        )
    for name, value in values.items():
        setattr(t, name, value)


def _save(t: Tournament) -> None:
    _validate_settings(t)
    t.full_clean()
    t.save()


# --- Tournaments


@transaction.atomic
def create_tournament(
    *,
    by: Any,
    federation: Federation,
    name: str,
    discipline: Discipline,
    format: str,
    club: Club | None = None,
    **settings: Any,
) -> Tournament:
    permissions.require(by, "tournament.create", club if club is not None else federation)
    t = Tournament(
        federation=federation, name=name, discipline=discipline, format=format, club=club
    )
    _apply(t, settings, SETTINGS_FIELDS)
    if not t.slug:
        t.slug = _unique_slug(federation, name)
    if by is not None and by.is_authenticated:
        t.created_by = by
    _save(t)
    _audit(by, "tournament.create", t, t, None, snapshot(t))
    return t


@transaction.atomic
def update_tournament(tournament: Tournament, *, by: Any, **settings: Any) -> Tournament:
    permissions.require(by, "tournament.manage", tournament)
    locked = _lock(tournament)
    tournament.state = locked.state
    before = snapshot(tournament)
    if tournament.state == TournamentState.RUNNING:
        allowed: Iterable[str] = RUNNING_FIELDS
    elif tournament.state == TournamentState.FINISHED:
        allowed = FINISHED_FIELDS
    else:
        allowed = SETTINGS_FIELDS
    _apply(tournament, settings, allowed)
    _save(tournament)
    after = snapshot(tournament)
    changed = {k: after[k] for k in after if before.get(k) != after[k]}
    if changed:
        _audit(
            by,
            "tournament.change",
            tournament,
            tournament,
            {k: before.get(k) for k in changed},
            changed,
        )
    return tournament


# Transitions set_state makes itself; running and finished have their own services.
TRANSITIONS = {
    TournamentState.DRAFT: {TournamentState.REGISTRATION},
    TournamentState.REGISTRATION: {TournamentState.DRAFT, TournamentState.CHECK_IN},
    TournamentState.CHECK_IN: {TournamentState.REGISTRATION},
}


@transaction.atomic
def set_state(tournament: Tournament, state: str, *, by: Any) -> Tournament:
    permissions.require(by, "tournament.manage", tournament)
    if state == TournamentState.RUNNING:
        return start_tournament(tournament, by=by)
    if state == TournamentState.FINISHED:
        return finish_tournament(tournament, by=by)
    locked = _lock(tournament)
    if state not in TournamentState.values:
        raise ValidationError(_("Unknown state: %(state)s") % {"state": state})
    if state not in TRANSITIONS.get(locked.state, set()):
        raise ValidationError(
            _("A tournament that is %(old)s cannot become %(new)s.")
            % {"old": locked.get_state_display(), "new": TournamentState(state).label}
        )
    old = locked.state
    tournament.state = state
    tournament.save(update_fields=["state"])
    _audit(by, "tournament.state", tournament, tournament, {"state": old}, {"state": state})
    return tournament


# --- Entries


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
    in Swiss and cups: paired from the next round with no wins); a player enters
    themself while registration is open."""
    permissions.require(by, "tournament.enter", (tournament, player))
    t = _lock(tournament)
    if t.state == TournamentState.FINISHED:
        raise ValidationError(_("The tournament is finished: no more entries."))
    if t.state == TournamentState.RUNNING:
        if not late:
            raise ValidationError(_("The tournament is running: a new player is a late entry."))
        if t.format not in LATE_ENTRY_FORMATS:
            raise ValidationError(
                _("Late entries join Swiss tournaments and cups only: a %(format)s has its draw.")
                % {"format": t.get_format_display()}
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
        rating = _ratings(t, [player]).get(player.pk)
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
    _audit(by, "tournament.entry.add", entry, t, None, snapshot(entry))
    return entry


@transaction.atomic
def remove_entry(entry: Entry, *, by: Any) -> None:
    permissions.require(by, "entry.change", entry)
    t = _lock(entry.tournament)
    _require_state(t, OPEN_STATES, _("Removing an entry"))
    _audit(by, "tournament.entry.remove", entry, t, snapshot(entry), None)
    entry.delete()


@transaction.atomic
def check_in(entry: Entry, *, by: Any) -> Entry:
    permissions.require(by, "entry.change", entry)
    t = _lock(entry.tournament)
    _require_state(t, (TournamentState.REGISTRATION, TournamentState.CHECK_IN), _("Checking in"))
    entry = locking.row(Entry.objects, pk=entry.pk)
    if entry.status == EntryStatus.WITHDRAWN:
        raise ValidationError(_("%(player)s has withdrawn.") % {"player": entry.player})
    if entry.status != EntryStatus.CHECKED_IN:
        entry.status = EntryStatus.CHECKED_IN
        entry.save(update_fields=["status"])
        _audit(by, "tournament.entry.check_in", entry, t, None, {"status": entry.status})
    return entry


@transaction.atomic
def seed_entries(
    tournament: Tournament, *, by: Any, seeds: Mapping[int, int] | None = None
) -> list[Entry]:
    """Hand seeds (entry id -> seed), or seeds by rating (highest first) when None."""
    permissions.require(by, "tournament.manage", tournament)
    t = _lock(tournament)
    _require_state(t, OPEN_STATES, _("Seeding"))
    entries = {e.pk: e for e in Entry.objects.filter(tournament=t).select_related("player")}
    if seeds is None:
        ratings = _ratings(t, [e.player for e in entries.values()])
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
    after = {pk: e.seed for pk, e in entries.items()}
    _audit(by, "tournament.seed", t, t, {"seeds": before}, {"seeds": after})
    return sorted(entries.values(), key=lambda e: (e.seed is None, e.seed or 0, e.pk))


def _structure_check(t: Tournament, entries: Sequence[Entry]) -> None:
    """Build what the format needs from the draw, so bad settings show at the start."""
    drawn = adapters.drawn_entries(entries)
    if len(drawn) < 2:
        raise ValidationError(_("A tournament needs at least two players."))
    try:
        if t.format in adapters.BRACKET_FORMATS:
            adapters.build_bracket(t, entries)
        elif t.format == Format.GROUPS_KNOCKOUT:
            adapters.group_schedule(t, entries)
            if (t.qualifiers_per_group or 0) * (t.groups or 0) < 2:
                raise ValidationError(_("A knock-out needs at least two qualifiers."))
            if any(
                len(g.entries) < (t.qualifiers_per_group or 0) for g in adapters.groups(t, entries)
            ):
                raise ValidationError(
                    _("A group has fewer players than the qualifiers it sends on.")
                )
        elif t.format == Format.ROUND_ROBIN:
            core.round_robin_rounds(drawn, rounds=t.rounds_planned)
        else:
            adapters.swiss_settings(t)
    except core.TournamentError as error:
        raise core_error(error) from error


@transaction.atomic
def start_tournament(tournament: Tournament, *, by: Any) -> Tournament:
    """Running: entries not checked in are withdrawn (when check-in was used), the
    seeds are fixed 1..n (by rating, or by hand then rating) and the draw is checked."""
    permissions.require(by, "tournament.manage", tournament)
    t = _lock(tournament)
    _require_state(
        t, (TournamentState.REGISTRATION, TournamentState.CHECK_IN), _("Starting the tournament")
    )
    entries = list(Entry.objects.filter(tournament=t).select_related("player").order_by("id"))
    if t.state == TournamentState.CHECK_IN:
        for e in entries:
            if e.status == EntryStatus.REGISTERED:
                e.status = EntryStatus.WITHDRAWN
                e.withdrawn_after_round = 0
    active = [e for e in entries if e.status != EntryStatus.WITHDRAWN]
    if t.seeding == "rating":
        ratings = _ratings(t, [e.player for e in active])
        for e in active:
            e.rating = ratings.get(e.player_id, e.rating)
    by_seed = "rating" if t.seeding == "rating" else "seed"
    try:
        order = core.initial_order([adapters.core_entry(e) for e in active], by_seed)
    except core.TournamentError as error:
        raise core_error(error) from error
    seed_of = {ce.id: k for k, ce in enumerate(order, start=1)}
    for e in entries:
        e.seed = seed_of.get(e.pk)
    _structure_check(t, entries)
    Entry.objects.filter(tournament=t).update(seed=None)
    Entry.objects.bulk_update(entries, ["seed", "rating", "status", "withdrawn_after_round"])
    old = t.state
    tournament.state = TournamentState.RUNNING
    tournament.save(update_fields=["state"])
    _audit(
        by,
        "tournament.start",
        tournament,
        tournament,
        {"state": old},
        {"state": tournament.state, "seeds": {e.pk: e.seed for e in entries if e.seed}},
    )
    return tournament


@transaction.atomic
def finish_tournament(tournament: Tournament, *, by: Any) -> Tournament:
    permissions.require(by, "tournament.manage", tournament)
    t = _lock(tournament)
    _require_state(t, (TournamentState.RUNNING,), _("Finishing the tournament"))
    open_rounds = list(
        Round.objects.filter(tournament=t)
        .exclude(state=RoundState.CLOSED)
        .order_by("flight", "number")
    )
    if open_rounds:
        raise ValidationError(
            _("Close these rounds first: %(rounds)s")
            % {"rounds": ", ".join(f"{_flight_label(r.flight)} {r.number}" for r in open_rounds)}
        )
    tournament.state = TournamentState.FINISHED
    tournament.save(update_fields=["state"])
    compute_standings(tournament)
    _audit(
        by, "tournament.finish", tournament, tournament, {"state": "running"}, {"state": "finished"}
    )
    return tournament


# --- Rounds and pairings


Plan = list[tuple[int, int | None, str]]  # (entry1, entry2 or None for a bye, slot)


def _swiss_plan(
    entries: Sequence[Entry],
    results: list[core.MatchResult],
    settings: core.SwissSettings,
    number: int,
) -> Plan:
    field = adapters.core_entries(entries)
    if core.swiss_finished(field, results, settings):
        raise core.PairingError("event_finished", "complete")
    rnd = core.pair_swiss_round(field, results, settings, round_number=number)
    return [(p.a, p.b, "") for p in rnd.pairings] + [(b, None, "") for b in rnd.byes]


def _cup_flight(t: Tournament, flight: str) -> str:
    if flight.startswith(adapters.STAGE_PREFIX):
        return flight
    stages = adapters.stage_flights(t)
    if not stages:
        return f"{adapters.STAGE_PREFIX}1"
    last = stages[-1]
    rounds = list(Round.objects.filter(tournament=t, flight=last).values_list("state", flat=True))
    done = all(state == RoundState.CLOSED for state in rounds)
    if len(rounds) >= (t.rounds_planned or 1) and done:
        return f"{adapters.STAGE_PREFIX}{len(stages) + 1}"
    return last  # its next round, or its open round (refused as still open)


def _flight_for(t: Tournament, flight: str) -> str:
    """The flight a request for ``flight`` pairs: groups before their knock-out, a cup's stage."""
    if t.format == Format.CUP:
        return _cup_flight(t, flight)
    if (
        t.format == Format.GROUPS_KNOCKOUT
        and flight == "main"
        and not Round.objects.filter(tournament=t, flight="main").exists()
        and not adapters.group_stage_complete(t)
    ):
        return adapters.GROUP_FLIGHT
    return flight


def _downstream_slots(bracket: core.Bracket, slot: str) -> set[str]:
    out: set[str] = set()
    todo = [slot]
    while todo:
        m = bracket.matches[todo.pop()]
        for target in (m.winner_to, m.loser_to):
            if target is not None and target[0] not in out:
                out.add(target[0])
                todo.append(target[0])
        for other in bracket.matches.values():
            if other.reset_of == m.id and other.id not in out:
                out.add(other.id)
                todo.append(other.id)
    return out


def _plan(t: Tournament, flight: str, number: int, entries: Sequence[Entry]) -> tuple[Plan, bool]:
    """The pairings of round ``number`` of ``flight`` (and whether it is the flight's final)."""
    if t.format == Format.SWISS:
        results = adapters.flight_results(t, "main")
        final = bool(t.rounds_planned) and number == t.rounds_planned
        return _swiss_plan(entries, results, adapters.swiss_settings(t), number), final
    if t.format == Format.CUP:
        results = adapters.flight_results(t, flight)
        settings = adapters.swiss_settings(t, rounds=t.rounds_planned)
        return _swiss_plan(entries, results, settings, number), False
    if t.format == Format.ROUND_ROBIN:
        schedule = core.round_robin_rounds(adapters.drawn_entries(entries), rounds=t.rounds_planned)
        if number > len(schedule):
            raise core.PairingError("event_finished", "complete")
        rnd = schedule[number - 1]
        plan: Plan = [(p.a, p.b, "") for p in rnd.pairings] + [(b, None, "") for b in rnd.byes]
        return plan, number == len(schedule)
    if flight == adapters.GROUP_FLIGHT:
        schedule = adapters.group_schedule(t, entries)
        if number > len(schedule):
            raise core.PairingError("event_finished", "complete")
        plan = []
        for name, rnd in schedule[number - 1]:
            plan += [(p.a, p.b, name) for p in rnd.pairings]
        for name, rnd in schedule[number - 1]:
            plan += [(b, None, name) for b in rnd.byes]
        return plan, False
    # Brackets: the matches of this flight that are ready and not yet paired.
    pairings = list(adapters.pairing_rows(t))
    if t.format == Format.GROUPS_KNOCKOUT and not adapters.group_stage_complete(t, pairings):
        raise ValidationError(_("The group stage is not complete yet."))
    bracket = adapters.load_bracket(t, entries, pairings)
    if flight not in bracket.flights():
        raise ValidationError(
            _("This tournament has no %(flight)s.") % {"flight": _flight_label(flight)}
        )
    paired = {p.slot for p in pairings if p.slot}
    ready = [
        mid
        for mid in bracket.ready()
        if bracket.matches[mid].flight == flight and mid not in paired
    ]
    if not ready:
        flight_done = all(
            bracket.status(mid) in ("decided", "bye", "void")
            for mid, m in bracket.matches.items()
            if m.flight == flight
        )
        if flight_done:
            raise core.PairingError("event_finished", "complete")
        raise ValidationError(
            _("No match of the %(flight)s is ready yet: it waits for results of other matches.")
            % {"flight": _flight_label(flight)},
            code="not_ready",
        )
    # One column at a time: a match that is ready early (two players with byes) waits
    # for the others of its stage, as rounds are played at a board.
    first_stage = min(bracket.stage[mid] for mid in ready)
    ready = [mid for mid in ready if bracket.stage[mid] == first_stage]
    sections = {"W": 0, "main": 0, "L": 1, "GF": 2}
    ready.sort(
        key=lambda mid: (
            bracket.stage[mid],
            sections.get(bracket.matches[mid].section, 0),
            bracket.matches[mid].index,
        )
    )
    plan = []
    for mid in ready:
        a, b = bracket.players(mid)
        assert isinstance(a, int) and isinstance(b, int)
        plan.append((a, b, mid))
    final_ids = {bracket.finals.get(flight)}
    final = any(mid in final_ids or bracket.matches[mid].section == "GF" for mid in ready)
    return plan, final


@transaction.atomic
def pair_next_round(
    tournament: Tournament, *, by: Any, flight: str = "main", silent: bool = False
) -> Round:
    """Pair the next round of ``flight`` from the core, for the tournament's format.

    Swiss and cups pair by records (no rematches; byes to the lowest record);
    round robins follow the Berger table; brackets pair the matches of the
    flight that became ready (consolation and last-chance drops included);
    groups then knock-out pair the group rounds, then the knock-out.
    ``silent``: results and standings stay hidden until released.
    """
    permissions.require(by, "tournament.manage", tournament)
    t = _lock(tournament)
    _require_state(t, (TournamentState.RUNNING,), _("Pairing a round"))
    flight = _flight_for(t, flight)
    previous = Round.objects.filter(tournament=t, flight=flight).order_by("-number").first()
    if previous is not None and previous.state != RoundState.CLOSED:
        raise ValidationError(
            _("Round %(number)d of the %(flight)s is still open: close it first.")
            % {"number": previous.number, "flight": _flight_label(flight)}
        )
    number = previous.number + 1 if previous else 1
    entries = adapters.entry_rows(t)
    try:
        plan, final = _plan(t, flight, number, entries)
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
    bracket = adapters.is_knockout(t, flight)
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
    _audit(
        by,
        "tournament.round.pair",
        rnd,
        t,
        None,
        {"flight": flight, "round": number, "pairings": [(a, b) for a, b, _s in plan]},
    )
    return rnd


def _round_with_tournament(rnd: Round) -> Round:
    # The tournament first (base.locking): closing a round then asks for standings.
    locking.row(Tournament.objects, pk=rnd.tournament_id)
    return locking.row(
        Round.objects.select_related(
            "tournament__federation", "tournament__club", "tournament__discipline"
        ),
        pk=rnd.pk,
    )


@transaction.atomic
def edit_pairings(round: Round, pairs: list[tuple[int, int | None]], *, by: Any) -> Round:
    """Replace the pairings of a round not yet started (entry ids; None = a bye).

    Every player of the round appears exactly once; nobody new comes in.
    Brackets follow their draw and cannot be edited.
    """
    rnd = _round_with_tournament(round)
    t = rnd.tournament
    permissions.require(by, "tournament.manage", t)
    if rnd.state != RoundState.PAIRED:
        raise ValidationError(
            _("Round %(number)d has started: its pairings are fixed.") % {"number": rnd.number}
        )
    if t.format in adapters.BRACKET_FORMATS or (
        t.format == Format.GROUPS_KNOCKOUT and rnd.flight == "main"
    ):
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
    if rnd.flight == adapters.GROUP_FLIGHT:
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
    _audit(by, "tournament.round.edit", rnd, t, {"pairings": before}, {"pairings": ordered})
    return rnd


def _sync_bracket_round(t: Tournament, rnd: Round) -> None:
    """Bring a paired bracket round in line with the bracket: a result corrected after
    the round was paired can change who plays in it."""
    bracket = adapters.load_bracket(t)
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
    rnd = _round_with_tournament(round)
    t = rnd.tournament
    permissions.require(by, "tournament.manage", t)
    _require_state(t, (TournamentState.RUNNING,), _("Starting a round"))
    if rnd.state != RoundState.PAIRED:
        raise ValidationError(_("Round %(number)d has started already.") % {"number": rnd.number})
    if _played_rounds(t):
        # The standings after the rounds so far are fixed before this one starts, so
        # every round keeps its snapshot even when the task has not run yet.
        try:
            compute_standings(t)
        except ValidationError as error:  # standings are a by-product: never block the round
            logger.warning("standings of tournament %s: %s", t.pk, error.messages)
    if (
        any(rnd.pairings.exclude(slot="").values_list("slot", flat=True))
        and (t.format in adapters.BRACKET_FORMATS or t.format == Format.GROUPS_KNOCKOUT)
        and rnd.flight != adapters.GROUP_FLIGHT
    ):
        _sync_bracket_round(t, rnd)
    pairings = list(
        rnd.pairings.select_related("entry1__player", "entry2__player").order_by("table")
    )
    for p in pairings:
        if p.entry2_id is None or p.forfeit_winner is not None or p.match_id is not None:
            continue
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
        )
        p.save(update_fields=["match"])
    rnd.state = RoundState.STARTED
    rnd.started_at = timezone.now()
    rnd.save(update_fields=["state", "started_at"])
    round.state, round.started_at = rnd.state, rnd.started_at
    _audit(by, "tournament.round.start", rnd, t, {"state": "paired"}, {"state": "started"})
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


@transaction.atomic
def set_silent(round: Round, silent: bool, *, by: Any) -> Round:
    """Make a round silent (its results and the standings stay hidden until released)
    or release it."""
    rnd = _round_with_tournament(round)
    t = rnd.tournament
    permissions.require(by, "tournament.manage", t)
    if silent and rnd.state == RoundState.CLOSED:
        raise ValidationError(
            _("Round %(number)d is closed: its results are out already.") % {"number": rnd.number}
        )
    if rnd.silent != silent:
        rnd.silent = silent
        rnd.save(update_fields=["silent"])
        _audit(by, "tournament.round.silent", rnd, t, {"silent": not silent}, {"silent": silent})
        _ratings_follow([rnd.pk])
    round.silent = silent
    return rnd


def _forfeit_pairing(pairing: Pairing, winner_side: int, *, by: Any, reason: str) -> None:
    """Record a forfeit win (through the match's override when there is a match), or
    with ``BOTH_FORFEITED`` a loss for both (the match, if any, is cancelled)."""
    match = pairing.match if pairing.match_id is not None else None
    if match is not None and winner_side != BOTH_FORFEITED:
        score = (match.length, 0) if winner_side == 1 else (0, match.length)
        games_services.override_result(
            match, by=by, score1=score[0], score2=score[1], reason=reason, forfeit=True
        )
        pairing.forfeit_winner = winner_side
        pairing.save(update_fields=["forfeit_winner"])
        return
    if match is not None and match.state != MatchState.CANCELLED:
        games_services.cancel_match(match, by=by, reason=reason)
        match.state = MatchState.CANCELLED
    pairing.forfeit_winner = winner_side
    pairing.save(update_fields=["forfeit_winner"])
    _result_recorded(pairing)


@transaction.atomic
def withdraw(entry: Entry, *, by: Any) -> Entry:
    """The entry leaves: not paired from the next round; any match it still has to
    play is lost by forfeit (in a bracket the opponent advances)."""
    permissions.require(by, "entry.change", entry)
    # Locks in the one order (base.locking): tournament, entry, pairings, matches.
    t = _lock(entry.tournament)
    _require_state(t, (*OPEN_STATES, TournamentState.RUNNING), _("Withdrawing"))
    entry = locking.row(Entry.objects.select_related("player"), pk=entry.pk)
    if entry.status == EntryStatus.WITHDRAWN:
        raise ValidationError(_("%(player)s has withdrawn already.") % {"player": entry.player})
    # The last round started, counted by the standings or not: a withdrawal during
    # round 6 forfeits the player's round-6 match, so the table after round 5 still
    # shows them playing and the one after round 6 shows them withdrawn.
    played = (
        Round.objects.filter(tournament=t, state__in=PLAYED_ROUND_STATES)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    entry.status = EntryStatus.WITHDRAWN
    entry.withdrawn_after_round = played or 0
    entry.save(update_fields=["status", "withdrawn_after_round"])
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
            _forfeit_pairing(
                p, side, by=None, reason=_("%(player)s withdrew.") % {"player": entry.player}
            )
    _audit(
        by,
        "tournament.entry.withdraw",
        entry,
        t,
        None,
        {"withdrawn_after_round": entry.withdrawn_after_round},
    )
    return entry


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
    _require_state(t, (TournamentState.RUNNING,), _("Recording a forfeit"))
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
    if winner is None and adapters.is_knockout(t, p.round.flight):
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
    if p.slot and adapters.is_decided(p) and adapters.is_knockout(t, p.round.flight):
        bracket = adapters.load_bracket(t)
        later = _downstream_slots(bracket, p.slot) if p.slot in bracket.matches else set()
        if Pairing.objects.filter(round__tournament=t, slot__in=later).exists():
            raise ValidationError(
                _("Table %(table)d: a later match already depends on this result.")
                % {"table": p.table}
            )
    before = {"forfeit_winner": p.forfeit_winner}
    _forfeit_pairing(p, side, by=by, reason=reason)
    _audit(by, "tournament.forfeit", p, t, before, {"forfeit_winner": side, "reason": reason})
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
    _require_state(t, (TournamentState.RUNNING,), _("Entering a result"))
    if p.match is None:
        raise ValidationError(_("Table %(table)d has no match to enter.") % {"table": p.table})
    if p.round.state == RoundState.CLOSED:
        raise ValidationError(_("Round %(number)d is closed.") % {"number": p.round.number})
    return games_services.submit_report(p.match, by=by, score1=score1, score2=score2)


@transaction.atomic
def close_round(round: Round, *, by: Any) -> Round:
    """Close a round whose every pairing has its confirmed result (or is a bye or forfeit)."""
    rnd = _round_with_tournament(round)
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
    _audit(by, "tournament.round.close", rnd, t, {"state": "started"}, {"state": "closed"})
    request_standings(t.pk)
    return rnd


# --- Standings


@transaction.atomic
def publish_standings(snapshot: StandingsSnapshot, *, by: Any) -> StandingsSnapshot:
    """Publish the standings and release the silent rounds they cover."""
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
    _ratings_follow(released)
    first = snap.published_at is None
    if first:
        snap.published_at = timezone.now()
        snap.save(update_fields=["published_at"])
    snapshot.published_at = snap.published_at
    _audit(
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


def _ratings_follow(round_ids: Sequence[int]) -> None:
    """Rounds made silent or released: their confirmed results stop or start counting
    in the ratings (``games.visibility.withheld_q``), so the pools catch up once this
    commits, oldest result first (the first recomputes from there, the rest then
    find their rows in place)."""
    from ratings.apps import on_result_changed

    confirmed = (
        Pairing.objects.filter(round_id__in=round_ids, match__result_status=ResultStatus.CONFIRMED)
        .order_by("match__finished_at", "match_id")
        .values_list("match_id", flat=True)
    )
    for match_id in confirmed:
        on_result_changed(match_id)


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
    locking.row(Tournament.objects, pk=tournament_id)
    pairing = (
        Pairing.objects.filter(match_id=match_id)
        .select_related("round__tournament", "match", "entry1__player", "entry2__player")
        .first()
    )
    if pairing is None:
        return
    confirmed_at = (
        ResultReport.objects.filter(match_id=match_id, status=ReportStatus.CONFIRMED)
        .order_by("-decided_at")
        .values_list("decided_at", flat=True)
        .first()
    )
    # A result withdrawn again before this ran: nothing to announce, standings still asked.
    _result_recorded(pairing, announce=confirmed_at is not None, unless_since=confirmed_at)


@transaction.atomic
def on_result_withdrawn(match_id: int) -> None:
    """A pairing's match was cancelled (``tasks.result_withdrawn_task``, queued on the
    games commit by ``receivers``): its result no longer counts, so the standings are
    asked for again."""
    tournament_id = _tournament_of_match(match_id)
    if tournament_id is not None:
        request_standings(tournament_id)


def _tournament_of_match(match_id: int) -> int | None:
    return (
        Pairing.objects.filter(match_id=match_id).values_list("round__tournament_id", flat=True)
    ).first()


def _result_recorded(
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
    from tournaments import tasks

    now = timezone.now()
    with transaction.atomic():
        locked = locking.rows(Tournament.objects.filter(pk=tournament_id))
        row = locked[0].standings_requested_at if locked else None
        Tournament.objects.filter(pk=tournament_id).update(standings_requested_at=now)
    if row is None or now - row > STALE_REQUEST:
        tasks.queue(tasks.compute_standings_task, tournament_id)


def _played_rounds(t: Tournament) -> int:
    """How many rounds have started (the standings may count fewer of them)."""
    return Round.objects.filter(tournament=t, state__in=PLAYED_ROUND_STATES).count()


def _counts(results: Iterable[core.MatchResult], bye_is_win: bool) -> dict[int, Counter[str]]:
    out: dict[int, Counter[str]] = {}
    for r in results:
        if r.b is None:
            c = out.setdefault(r.a, Counter())
            c["byes"] += 1
            if bye_is_win:
                c["wins"] += 1
            continue
        for p in (r.a, r.b):
            c = out.setdefault(p, Counter())
            if r.forfeit:
                c["forfeits"] += 1
            if r.winner == p:
                c["wins"] += 1
            else:
                c["losses"] += 1
    return out


def _row(
    entry: Entry,
    *,
    place: str,
    rank: int,
    score: int,
    tiebreaks: Mapping[str, Any] | None = None,
    by_lot: bool = False,
    counts: Mapping[str, int] | None = None,
    flight: str = "main",
    group: str = "",
) -> dict[str, Any]:
    counts = counts or {}
    return {
        "place": place,
        "rank": rank,
        "entry": entry.pk,
        "player": entry.player_id,
        "name": str(entry.player),
        "seed": entry.seed,
        "score": score,
        "tiebreaks": dict(tiebreaks or {}),
        "by_lot": by_lot,
        "wins": counts.get("wins", 0),
        "losses": counts.get("losses", 0),
        "byes": counts.get("byes", 0),
        "forfeits": counts.get("forfeits", 0),
        "withdrawn": entry.status == EntryStatus.WITHDRAWN,
        "late": entry.late,
        "flight": flight,
        "group": group,
    }


def _table_rows(
    rows: Sequence[core.StandingRow],
    by_id: Mapping[int, Entry],
    counts: Mapping[int, Counter[str]],
    **extra: Any,
) -> list[dict[str, Any]]:
    return [
        _row(
            by_id[r.entry],
            place=r.place,
            rank=r.rank,
            score=r.score,
            tiebreaks=r.tiebreaks,
            by_lot=r.by_lot,
            counts=counts.get(r.entry),
            **extra,
        )
        for r in rows
    ]


def bracket_rows(
    bracket: core.Bracket,
    by_id: Mapping[int, Entry],
    counts: Mapping[int, Counter[str]],
) -> list[dict[str, Any]]:
    """Places by flight: the champion, the players still in the running (no place
    yet), then the eliminated by how far they got ("5-8")."""
    out: list[dict[str, Any]] = []
    for flight in bracket.flights():
        players = {
            p
            for mid, m in bracket.matches.items()
            if m.flight == flight
            for p in bracket.players(mid)
            if isinstance(p, int)
        }
        placed = bracket.placements(flight)
        champion = bracket.champion(flight)
        eliminated = {p for label, group in placed for p in group if p != champion}
        alive = sorted(
            players - eliminated - {champion}, key=lambda p: (by_id[p].seed or 1 << 30, p)
        )
        rank = 1
        if champion is not None:
            out.append(
                _row(
                    by_id[champion],
                    place="1",
                    rank=1,
                    score=counts.get(champion, Counter())["wins"],
                    counts=counts.get(champion),
                    flight=flight,
                )
            )
            rank = 2
        for p in alive:
            out.append(
                _row(
                    by_id[p],
                    place="",
                    rank=rank,
                    score=counts.get(p, Counter())["wins"],
                    counts=counts.get(p),
                    flight=flight,
                )
            )
        start = rank + len(alive)
        for _label, group in placed:
            if champion is not None and group == [champion]:
                continue
            place = str(start) if len(group) == 1 else f"{start}-{start + len(group) - 1}"
            for p in group:
                out.append(
                    _row(
                        by_id[p],
                        place=place,
                        rank=start,
                        score=counts.get(p, Counter())["wins"],
                        counts=counts.get(p),
                        flight=flight,
                    )
                )
            start += len(group)
    return out


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
    by_id = {e.pk: e for e in entries}
    all_results = adapters.results(pairings)
    key = _standings_digest(t, entries, pairings)
    tie_breaks = list(t.tie_breaks or [])
    if t.format in adapters.BRACKET_FORMATS:
        counts = _counts(all_results, t.bye_is_win)
        return bracket_rows(adapters.load_bracket(t, entries, pairings), by_id, counts), [], key
    if t.format == Format.GROUPS_KNOCKOUT:
        rows: list[dict[str, Any]] = []
        group_pairings = [p for p in pairings if p.round.flight == adapters.GROUP_FLIGHT]
        knockout_pairings = [p for p in pairings if p.round.flight != adapters.GROUP_FLIGHT]
        if knockout_pairings or adapters.group_stage_complete(t, group_pairings):
            counts = _counts(adapters.results(knockout_pairings), t.bye_is_win)
            try:
                bracket = adapters.load_bracket(t, entries, pairings)
            except core.QualificationError:
                bracket = None  # a tie at the cut: the organizer breaks it first
            if bracket is not None:
                rows += bracket_rows(bracket, by_id, counts)
        group_counts = _counts(adapters.results(group_pairings), t.bye_is_win)
        for group, table in adapters.group_tables(t, entries, group_pairings):
            rows += _table_rows(
                table, by_id, group_counts, flight=adapters.GROUP_FLIGHT, group=group.name
            )
        return rows, ["DE", "SB", "PD"], key
    field = adapters.core_entries(entries)
    settings = adapters.standings_settings(t)
    if t.format == Format.CUP:
        stages = [
            adapters.results(p for p in pairings if p.round.flight == flight)
            for flight in adapters.stage_flights(t)
        ]
        table = core.cup_standings(field, stages, settings)
        return _table_rows(table, by_id, _counts(all_results, t.bye_is_win)), tie_breaks, key
    results = adapters.results(p for p in pairings if p.round.flight == "main")
    last_round: dict[int, int] | None = None
    if t.format == Format.SWISS and t.max_losses:
        # Eliminated after the N-th loss: later rounds are not theirs (no absences).
        records = core.swiss_records(field, results, adapters.swiss_settings(t))
        last_round = {pid: r.eliminated_in for pid, r in records.items() if r.eliminated_in}
    # The event's rounds so far (the default): rounds not reached count for nobody.
    table = core.compute_standings(field, results, settings, last_round=last_round)
    return _table_rows(table, by_id, _counts(results, t.bye_is_win)), tie_breaks, key


def compute_standings(tournament: Tournament) -> StandingsSnapshot | None:
    """The standings after the rounds counted so far, as a snapshot (one per round);
    None while no round counts yet.

    A round counts once it is closed or all its results are official, and only
    after every round started before it (``queries.standings_rounds``): the round
    in play never makes a snapshot nor changes one.  Idempotent: the snapshot
    keeps a digest of its inputs and is left untouched when nothing changed.
    Published at once when the tournament publishes its standings and no round
    is silent; otherwise it waits for the organizer.  A result corrected in an
    earlier round also corrects the earlier snapshots (their publication, if
    any, stands; only the latest one is announced).
    """
    t = Tournament.objects.select_related("federation", "club", "discipline").get(pk=tournament.pk)
    entries = adapters.entry_rows(t)
    pairings = list(adapters.pairing_rows(t))
    after = len(queries.standings_rounds(pairings).counted)
    stored = list(
        StandingsSnapshot.objects.filter(tournament=t).values_list("after_round", "results_digest")
    )
    beyond = [count for count, _digest in stored if count > after]
    if beyond:
        # A round stopped counting (a result of it was withdrawn before it closed):
        # the tables that counted it are not true any more.
        logger.info("standings of tournament %s after %s withdrawn", t.pk, beyond)
        StandingsSnapshot.objects.filter(tournament=t, after_round__in=beyond).delete()
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
    if not after:
        return None  # no table before a round counts
    existing = StandingsSnapshot.objects.filter(tournament=t, after_round=after).first()
    try:
        # The counted rounds only: a bye or forfeit set in a round not started yet
        # counts once that round counts.
        rows, tie_breaks, key = standings_rows(t, entries=entries, pairings=pairings, after=after)
    except core.TournamentError as error:
        raise core_error(error) from error
    if existing is not None and existing.results_digest == key:
        return existing
    silent = Round.objects.filter(tournament=t, silent=True).exists()
    publish = t.publish_standings and not silent
    with transaction.atomic():
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


# --- Qualification


def final_rows(tournament: Tournament) -> list[core.StandingRow]:
    """The tournament's placed rows of its main flight as core rows, for qualification."""
    rows, _tie_breaks, _key = standings_rows(tournament)
    return [
        core.StandingRow(r["place"], r["rank"], r["entry"], r["score"], r["tiebreaks"], r["by_lot"])
        for r in rows
        if r["flight"] == "main" and r["place"]
    ]


@transaction.atomic
def enter_qualifiers(target: Tournament, *, by: Any) -> list[Entry]:
    """Enter the top ``qualifying_places`` of ``target.qualifies_from``, seeded by place."""
    permissions.require(by, "tournament.manage", target)
    t = _lock(target)
    _require_state(t, OPEN_STATES, _("Entering the qualifiers"))
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
    _audit(
        by, "tournament.qualifiers", t, t, None, {"from": source.pk, "entries": [e.pk for e in out]}
    )
    return out
