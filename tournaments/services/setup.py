"""A tournament's settings and lifecycle: create, change, and move it through its
states (draft -> registration -> check_in -> running -> finished).

``SETTINGS_FIELDS`` is the one list of the settings a caller may give; the
console's form and the API's serializer take theirs from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from anyascii import anyascii
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from clubs import permissions
from clubs.models import Club, Discipline, Federation, checked_variant_options
from clubs.services import snapshot
from tournaments import adapters, core, webhooks
from tournaments.formats import flights, registry
from tournaments.models import (
    Entry,
    EntryStatus,
    Round,
    RoundState,
    Tournament,
    TournamentState,
)
from tournaments.services.common import (
    bump_public_version,
    core_error,
    lock_tournament,
    ratings_now,
    require_state,
    tournament_audit,
)
from tournaments.services.standings import compute_standings

# Settings a caller may give, and which of them may still change in each state.
# What the tournament is: its name and address, host, discipline and format (the
# API lists these beside the federation, the console's form chooses the host its way).
IDENTITY_FIELDS = ("name", "slug", "club", "discipline", "format")
# How it is played and what it publishes.
PLAY_FIELDS = (
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
    "variant_options",
    "is_public",
    "publish_pairings",
    "publish_results",
    "publish_standings",
    "qualifies_from",
    "qualifying_places",
    "webhook_url",
)
SETTINGS_FIELDS = IDENTITY_FIELDS + PLAY_FIELDS
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
    fmt = registry.find(t.format)  # an unknown format is the model's to refuse
    errors: dict[str, str] = fmt.settings_errors(t) if fmt is not None else {}
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
    if not t.variant_options:
        t.variant_options = {}  # the discipline's hold: nothing to check, no discipline read
    else:
        try:
            t.variant_options = checked_variant_options(t.discipline.variant, t.variant_options)
        except ValidationError as error:
            errors.update({k: v[0] for k, v in error.message_dict.items()})
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
    tournament_audit(by, "tournament.create", t, t, None, snapshot(t))
    return t


@transaction.atomic
def update_tournament(tournament: Tournament, *, by: Any, **settings: Any) -> Tournament:
    permissions.require(by, "tournament.manage", tournament)
    locked = lock_tournament(tournament)
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
        bump_public_version(tournament)
        tournament_audit(
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
    locked = lock_tournament(tournament)
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
    bump_public_version(tournament)
    tournament_audit(
        by, "tournament.state", tournament, tournament, {"state": old}, {"state": state}
    )
    return tournament


def _structure_check(t: Tournament, entries: Sequence[Entry]) -> None:
    """Build what the format needs from the draw, so bad settings show at the start."""
    drawn = adapters.drawn_entries(entries)
    if len(drawn) < 2:
        raise ValidationError(_("A tournament needs at least two players."))
    try:
        registry.for_tournament(t).check_draw(t, entries)
    except core.TournamentError as error:
        raise core_error(error) from error


@transaction.atomic
def start_tournament(tournament: Tournament, *, by: Any) -> Tournament:
    """Running: entries not checked in are withdrawn (when check-in was used), the
    seeds are fixed 1..n (by rating, or by hand then rating) and the draw is checked."""
    permissions.require(by, "tournament.manage", tournament)
    t = lock_tournament(tournament)
    require_state(
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
        ratings = ratings_now(t, [e.player for e in active])
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
    bump_public_version(tournament)
    tournament_audit(
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
    t = lock_tournament(tournament)
    require_state(t, (TournamentState.RUNNING,), _("Finishing the tournament"))
    open_rounds = list(
        Round.objects.filter(tournament=t)
        .exclude(state=RoundState.CLOSED)
        .order_by("flight", "number")
    )
    if open_rounds:
        raise ValidationError(
            _("Close these rounds first: %(rounds)s")
            % {"rounds": ", ".join(f"{flights.label(r.flight)} {r.number}" for r in open_rounds)}
        )
    tournament.state = TournamentState.FINISHED
    tournament.save(update_fields=["state"])
    bump_public_version(tournament)
    compute_standings(tournament)
    tournament_audit(
        by, "tournament.finish", tournament, tournament, {"state": "running"}, {"state": "finished"}
    )
    return tournament
