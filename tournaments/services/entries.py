"""The field of a tournament: entering and removing players, check-in, seeds, and
withdrawals (a withdrawn player's open matches are lost by forfeit)."""

from __future__ import annotations

import datetime
import hashlib
import secrets
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anyascii import anyascii
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from clubs import permissions
from clubs.csv_io import club_key
from clubs.models import Club, Player
from clubs.queries import name_key
from clubs.services import create_player, snapshot
from games import services as games_services
from games.models import Match, ReportStatus, ResultReport
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
from tournaments.services.rounds import forfeit_pairing, give_match
from tournaments.services.standings import request_standings


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
    play is lost by forfeit (in a bracket the opponent advances).  What undoing it
    needs is kept on the entry (``reinstate``)."""
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
    # What undoing it needs (reinstate): the newest round now, as ids only grow.
    newest = Round.objects.filter(tournament=t).order_by("-pk").values_list("pk", flat=True)
    withdrawal: dict[str, Any] = {
        "status": entry.status,
        "newest_round": newest.first() or 0,
        "forfeits": [],
    }
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
            report = forfeit_pairing(
                p, side, by=None, reason=_("%(player)s withdrew.") % {"player": entry.player}
            )
            withdrawal["forfeits"].append(
                {
                    "pairing": p.pk,
                    "round": p.round_id,
                    "side": side,
                    "report": report.pk if report else None,
                }
            )
    entry.withdrawal = withdrawal
    entry.save(update_fields=["withdrawal"])
    tournament_audit(
        by,
        "tournament.entry.withdraw",
        entry,
        t,
        None,
        {"withdrawn_after_round": entry.withdrawn_after_round},
    )
    return entry


def _withdrawal_tables(entry: Entry, *, lock: bool = False) -> list[tuple[Pairing, dict[str, Any]]]:
    """The tables whose forfeits the withdrawal recorded, as they are now, each with
    what it recorded.  A round unpaired since has none left; a round whose pairings
    were edited since (``edit_pairings`` forfeits a withdrawn player's new table the
    same way) gives the entry's table there instead."""
    records = (entry.withdrawal or {}).get("forfeits", [])
    if not records:
        return []
    mine = Q(entry1_id=entry.pk) | Q(entry2_id=entry.pk)
    rows = (
        Pairing.objects.filter(
            Q(pk__in=[r["pairing"] for r in records])
            | (Q(round_id__in=[r["round"] for r in records]) & mine)
        )
        .select_related("round", "match", "entry1__player", "entry2__player")
        .order_by("pk")
    )
    pairings = locking.rows(rows) if lock else list(rows)
    by_pk = {p.pk: p for p in pairings}
    by_round = {p.round_id: p for p in pairings if entry.pk in (p.entry1_id, p.entry2_id)}
    tables = []
    for record in records:
        p = by_pk.get(record["pairing"]) or by_round.get(record["round"])
        if p is None or p.entry2_id is None:
            continue  # unpaired since, or a bye after an edit: nothing to take back
        if p.pk != record["pairing"]:
            side = 2 if p.entry1_id == entry.pk else 1
            record = {"pairing": p.pk, "round": p.round_id, "side": side, "report": None}
        tables.append((p, record))
    return tables


def reinstate_problem(entry: Entry) -> str | None:
    """Why ``entry``'s withdrawal can no longer be undone (None: it can).  The rules
    allow it until a round is paired after it (that round was paired without the
    player), and while every forfeit it recorded can be taken back: its round still
    open and the result unchanged since.  The console asks it to show the button;
    ``reinstate`` asks it again under the locks."""
    t = entry.tournament
    player = entry.player
    if entry.status != EntryStatus.WITHDRAWN:
        return _("%(player)s has not withdrawn.") % {"player": player}
    if t.state not in (*OPEN_STATES, TournamentState.RUNNING):
        return _("The tournament is %(state)s: its withdrawals stand.") % {
            "state": t.get_state_display()
        }
    withdrawal = entry.withdrawal
    if not withdrawal:
        return _(
            "The withdrawal of %(player)s left nothing to undo it by (made at the start for "
            "not checking in, or before withdrawals could be undone)."
        ) % {"player": player}
    later = (
        Round.objects.filter(tournament=t, pk__gt=withdrawal["newest_round"])
        .order_by("number", "flight")
        .first()
    )
    if later is not None:
        return _(
            "Round %(number)d was paired after %(player)s withdrew: the withdrawal stands "
            "(unpair that round first if it has not started)."
        ) % {"number": later.number, "player": player}
    withdrawn = set(
        Entry.objects.filter(tournament=t, status=EntryStatus.WITHDRAWN).values_list(
            "pk", flat=True
        )
    )
    for p, f in _withdrawal_tables(entry):
        where = {"table": p.table, "number": p.round.number}
        if {p.entry1_id, p.entry2_id} - {entry.pk} <= withdrawn:
            # The opponent withdrew later, their table already decided: undoing theirs
            # first leaves this one to take back cleanly.
            return (
                _(
                    "The opponent at table %(table)d of round %(number)d has withdrawn since: "
                    "undo that withdrawal first."
                )
                % where
            )
        if p.round.state == RoundState.CLOSED:
            return (
                _(
                    "Round %(number)d is closed with the forfeit at table %(table)d: the "
                    "withdrawal stands."
                )
                % where
            )
        changed = p.forfeit_winner != f["side"]
        if f["report"] is not None:
            # The override the withdrawal made is still the match's result and its
            # latest report (take_back_override asks again under the match's lock).
            match = p.match
            latest = match.reports.order_by("-id").first() if match is not None else None
            changed = changed or (
                latest is None
                or latest.pk != f["report"]
                or latest.status != ReportStatus.CONFIRMED
            )
        if changed:
            return (
                _(
                    "The result at table %(table)d of round %(number)d was changed after the "
                    "withdrawal: the withdrawal stands."
                )
                % where
            )
    return None


@transaction.atomic
def reinstate(entry: Entry, *, by: Any) -> Entry:
    """Undo a withdrawal while the rules allow it (``reinstate_problem``): the entry
    plays again, with its status from before, and the forfeits the withdrawal recorded
    are taken back (the tables await their results again).  Only a manager does it:
    unlike withdrawing, it changes the opponents' results."""
    permissions.require(by, "tournament.manage", entry.tournament)
    # The one order of base.locking: tournament, entry, then pairings and matches.
    t = lock_tournament(entry.tournament)
    entry = locking.row(Entry.objects.select_related("player"), pk=entry.pk)
    entry.tournament = t
    problem = reinstate_problem(entry)
    if problem is not None:
        raise ValidationError(problem)
    withdrawal = entry.withdrawal or {}
    tables = _withdrawal_tables(entry, lock=True)
    # Each override is taken back by the games service, which checks under the
    # match's lock that it is still the result: any refusal undoes everything.
    for p, f in tables:
        if f["report"] is not None:
            report = ResultReport.objects.filter(pk=f["report"]).first()
            if report is None:
                raise ValidationError(
                    _(
                        "The result at table %(table)d of round %(number)d was changed after "
                        "the withdrawal: the withdrawal stands."
                    )
                    % {"table": p.table, "number": p.round.number}
                )
            games_services.take_back_override(report, by=by)
        p.forfeit_winner = None
        p.save(update_fields=["forfeit_winner"])
        if p.match_id is None and p.round.state == RoundState.STARTED:
            # Forfeited before its round started, which then made it no match.
            give_match(t, p.round, p)
    before = {"status": entry.status, "withdrawn_after_round": entry.withdrawn_after_round}
    entry.status = withdrawal.get("status") or EntryStatus.CHECKED_IN
    entry.withdrawn_after_round = None
    entry.withdrawal = None
    entry.save(update_fields=["status", "withdrawn_after_round", "withdrawal"])
    bump_public_version(t)
    if tables:
        request_standings(t.pk)
    tournament_audit(
        by,
        "tournament.entry.reinstate",
        entry,
        t,
        before,
        {"status": entry.status, "forfeits_taken_back": [p.pk for p, _f in tables]},
    )
    return entry


# --- Registration at scale: a pasted list or a CSV, matched with a preview, then
# entered in one transaction; check-in of everyone or of a list; self check-in.

BULK_MAX_LINES = 1000


@dataclass(frozen=True)
class ListLine:
    """One line of a pasted list or a CSV row: a name, and optionally a club (by name)
    and a rating."""

    number: int
    name: str
    club: str = ""
    rating: float | None = None


@dataclass
class LinePreview:
    """What entering the list will do with one line.  ``kind``: MATCH (one existing
    player), CHOOSE (several look like this name), NEW (a new player is created),
    ENTERED (already in the tournament), TWICE (the same player on an earlier line)."""

    line: ListLine
    kind: str
    candidates: list[Player] = field(default_factory=list)
    club: Club | None = None
    error: str = ""

    def signature(self) -> str:
        ids = ",".join(str(p.pk) for p in self.candidates)
        club = self.club.pk if self.club is not None else ""
        return f"{self.line.number}:{self.kind}:{ids}:{club}:{self.error}"


MATCH, CHOOSE, NEW, ENTERED, TWICE = "match", "choose", "new", "entered", "twice"


def _federation_players_by_key(tournament: Tournament) -> dict[str, list[Player]]:
    """The federation's active players by name key, from either spelling (one query:
    a list of names can hold any of them, and a key cannot be searched in SQL)."""
    by_key: dict[str, list[Player]] = defaultdict(list)
    players = Player.objects.filter(
        federation_id=tournament.federation_id, merged_into__isnull=True
    ).only("id", "name_native", "name_latin", "user_id", "federation_id", "birth_year")
    for player in players.order_by("name_latin", "id"):
        for key in {name_key(player.name_native), name_key(player.name_latin)} - {""}:
            by_key[key].append(player)
    return by_key


def preview_list(tournament: Tournament, lines: Sequence[ListLine]) -> list[LinePreview]:
    """Each line matched against the federation's players across scripts ("Мамедов
    Эльчин" is "Elchin Mamedov"), in three queries whatever the number of lines."""
    if len(lines) > BULK_MAX_LINES:
        raise ValidationError(
            _("A list holds at most %(limit)d lines; this one has %(count)d. Split it.")
            % {"limit": BULK_MAX_LINES, "count": len(lines)}
        )
    by_key = _federation_players_by_key(tournament)
    entered = set(Entry.objects.filter(tournament=tournament).values_list("player_id", flat=True))
    clubs = {
        club_key(c.name): c
        for c in Club.objects.filter(federation_id=tournament.federation_id, is_active=True)
    }
    seen: set[int] = set()
    previews = []
    for line in lines:
        club = None
        error = ""
        if line.club:
            club = clubs.get(club_key(line.club))
            if club is None:
                error = _("No club “%(club)s” in the federation.") % {"club": line.club}
        candidates = by_key.get(name_key(line.name), [])
        if not candidates:
            kind = NEW
        elif len(candidates) > 1:
            kind = CHOOSE
        elif candidates[0].pk in entered:
            kind = ENTERED
        elif candidates[0].pk in seen:
            kind = TWICE
        else:
            kind = MATCH
            seen.add(candidates[0].pk)
        previews.append(LinePreview(line, kind, list(candidates), club, error))
    return previews


def preview_digest(tournament: Tournament, previews: Sequence[LinePreview]) -> str:
    """What the preview showed, in a few characters: the confirmation carries it, and a
    different answer at confirmation means the page is stale."""
    text = "|".join([tournament.state, *(p.signature() for p in previews)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@transaction.atomic
def add_entries(
    tournament: Tournament,
    players: Sequence[Player],
    *,
    by: Any,
    ratings: Mapping[int, float] | None = None,
) -> list[Entry]:
    """Enter many players at once before the tournament starts (a fixed number of
    queries plus one audit row per entry); any player refused refuses them all."""
    permissions.require(by, "tournament.manage", tournament)
    t = lock_tournament(tournament)
    require_state(t, OPEN_STATES, _("Entering players from a list"))
    ids = [p.pk for p in players]
    twice = sorted({str(p) for p in players if ids.count(p.pk) > 1})
    if twice:
        raise ValidationError(_("Listed twice: %(players)s.") % {"players": ", ".join(twice)})
    fresh = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
    merged = sorted(str(p) for p in players if p.pk not in fresh or not fresh[p.pk].is_active)
    if merged:
        raise ValidationError(
            _("Merged into another profile meanwhile: %(players)s. Preview the list again.")
            % {"players": ", ".join(merged)}
        )
    already = Entry.objects.filter(tournament=t, player_id__in=ids).select_related("player")
    entered = sorted(str(e.player) for e in already)
    if entered:
        raise ValidationError(_("Already entered: %(players)s.") % {"players": ", ".join(entered)})
    current = ratings_now(t, list(players))
    status = (
        EntryStatus.CHECKED_IN if t.state == TournamentState.CHECK_IN else EntryStatus.REGISTERED
    )
    entries = Entry.objects.bulk_create(
        [
            Entry(
                tournament=t,
                player=p,
                rating=(ratings or {}).get(p.pk, current.get(p.pk)),
                status=status,
            )
            for p in players
        ]
    )
    if entries:
        bump_public_version(t)
    for entry in entries:
        tournament_audit(by, "tournament.entry.add", entry, t, None, snapshot(entry))
    return entries


@transaction.atomic
def enter_list(
    tournament: Tournament,
    lines: Sequence[ListLine],
    choices: Mapping[int, int],
    *,
    by: Any,
    digest: str,
) -> list[Entry]:
    """Confirm a previewed list: players chosen where a line had several candidates
    (``choices``: line number -> player id), new players created in the federation
    (in the line's club), and every entry added, all in one transaction.  A preview
    that no longer holds (the tournament changed state, a player was merged, entered
    or created meanwhile) refuses the whole list."""
    permissions.require(by, "tournament.manage", tournament)
    t = lock_tournament(tournament)
    require_state(t, OPEN_STATES, _("Entering players from a list"))
    previews = preview_list(t, lines)
    if preview_digest(t, previews) != digest:
        raise ValidationError(
            _(
                "The tournament or its players changed since the preview (now %(state)s): "
                "nothing was entered. Check the new preview and confirm again."
            )
            % {"state": t.get_state_display()}
        )
    problems = []
    players: list[Player] = []
    ratings: dict[int, float] = {}
    new_lines: list[LinePreview] = []
    for preview in previews:
        line = preview.line
        if preview.error:
            problems.append(f"{line.number}: {preview.error}")
        elif preview.kind == CHOOSE:
            chosen = {p.pk: p for p in preview.candidates}.get(choices.get(line.number, 0))
            if chosen is None:
                problems.append(
                    _("%(line)d: choose which %(name)s is meant.")
                    % {"line": line.number, "name": line.name}
                )
            else:
                players.append(chosen)
        elif preview.kind == MATCH:
            players.append(preview.candidates[0])
        elif preview.kind == NEW:
            new_lines.append(preview)
        if line.rating is not None and preview.kind in (MATCH, CHOOSE) and players:
            ratings[players[-1].pk] = line.rating
    if problems:
        raise ValidationError(
            _("Nothing was entered; fix these lines: %(lines)s") % {"lines": "; ".join(problems)}
        )
    for preview in new_lines:
        scope = preview.club or t.federation
        if not permissions.can(by, "player.create", scope) and by is not None:
            raise ValidationError(
                _(
                    "Line %(line)d: %(name)s is not a player of the federation yet, and only "
                    "its admins create players. Nothing was entered."
                )
                % {"line": preview.line.number, "name": preview.line.name}
            )
        player = create_player(
            by=by,
            club=preview.club,
            federation=t.federation,
            name_native=preview.line.name,
            name_latin=latin_spelling(preview.line.name),
        )
        players.append(player)
        if preview.line.rating is not None:
            ratings[player.pk] = preview.line.rating
    return add_entries(t, players, by=by, ratings=ratings)


def latin_spelling(name: str) -> str:
    """The Latin name of a player typed in another script ("Мамедов" -> "Mamedov")."""
    return " ".join(anyascii(name).replace("'", "").split())[:200]


@transaction.atomic
def check_in_all(
    tournament: Tournament, *, by: Any, lines: Sequence[ListLine] | None = None
) -> int:
    """Check in every registered entry, or those named by ``lines`` (matched across
    scripts like a list of entries); returns how many were checked in.  A name that
    is no entry, or fits several, refuses the whole list."""
    permissions.require(by, "tournament.manage", tournament)
    t = lock_tournament(tournament)
    require_state(t, (TournamentState.REGISTRATION, TournamentState.CHECK_IN), _("Checking in"))
    entries = list(
        locking.rows(
            Entry.objects.filter(tournament=t)
            .exclude(status=EntryStatus.WITHDRAWN)
            .select_related("player")
        )
    )
    if lines is not None:
        if len(lines) > BULK_MAX_LINES:
            raise ValidationError(
                _("A list holds at most %(limit)d lines; this one has %(count)d. Split it.")
                % {"limit": BULK_MAX_LINES, "count": len(lines)}
            )
        by_key: dict[str, list[Entry]] = defaultdict(list)
        for e in entries:
            for key in {name_key(e.player.name_native), name_key(e.player.name_latin)} - {""}:
                by_key[key].append(e)
        chosen: dict[int, Entry] = {}
        problems = []
        for line in lines:
            found = by_key.get(name_key(line.name), [])
            if len(found) == 1:
                chosen[found[0].pk] = found[0]
            elif not found:
                problems.append(
                    _("%(line)d: %(name)s is not entered.")
                    % {"line": line.number, "name": line.name}
                )
            else:
                problems.append(
                    _("%(line)d: several entries are called %(name)s; check them in one by one.")
                    % {"line": line.number, "name": line.name}
                )
        if problems:
            raise ValidationError(
                _("Nobody was checked in; fix these lines: %(lines)s")
                % {"lines": "; ".join(problems)}
            )
        entries = list(chosen.values())
    waiting = [e for e in entries if e.status == EntryStatus.REGISTERED]
    if waiting:
        Entry.objects.filter(pk__in=[e.pk for e in waiting]).update(status=EntryStatus.CHECKED_IN)
        bump_public_version(t)
        tournament_audit(
            by,
            "tournament.entry.check_in_all",
            t,
            t,
            None,
            {"entries": [e.pk for e in waiting], "status": EntryStatus.CHECKED_IN},
        )
    return len(waiting)


@transaction.atomic
def open_self_check_in(
    tournament: Tournament, *, by: Any, opens_at: datetime.datetime, closes_at: datetime.datetime
) -> Tournament:
    """Open (or move) the window in which players check themselves in through the
    tournament's link; the link's token is made once and kept, so a printed QR code
    stays good when the window moves."""
    permissions.require(by, "tournament.manage", tournament)
    t = lock_tournament(tournament)
    require_state(
        t, (TournamentState.REGISTRATION, TournamentState.CHECK_IN), _("Opening self check-in")
    )
    if closes_at <= opens_at:
        raise ValidationError({"closes_at": _("The window must close after it opens.")})
    if closes_at <= timezone.now():
        raise ValidationError({"closes_at": _("The window would be over already.")})
    before = _window(t)
    t.self_check_in_opens_at = opens_at
    t.self_check_in_closes_at = closes_at
    if not t.self_check_in_token:
        t.self_check_in_token = secrets.token_urlsafe(24)
    t.save(
        update_fields=["self_check_in_opens_at", "self_check_in_closes_at", "self_check_in_token"]
    )
    tournament_audit(by, "tournament.self_check_in.open", t, t, before, _window(t))
    return t


@transaction.atomic
def close_self_check_in(tournament: Tournament, *, by: Any) -> Tournament:
    permissions.require(by, "tournament.manage", tournament)
    t = lock_tournament(tournament)
    before = _window(t)
    t.self_check_in_opens_at = None
    t.self_check_in_closes_at = None
    t.save(update_fields=["self_check_in_opens_at", "self_check_in_closes_at"])
    tournament_audit(by, "tournament.self_check_in.close", t, t, before, _window(t))
    return t


def _window(t: Tournament) -> dict[str, Any]:
    return {
        "opens_at": t.self_check_in_opens_at.isoformat() if t.self_check_in_opens_at else None,
        "closes_at": t.self_check_in_closes_at.isoformat() if t.self_check_in_closes_at else None,
    }


def self_check_in_is_open(t: Tournament, now: datetime.datetime | None = None) -> bool:
    now = now or timezone.now()
    return (
        t.self_check_in_opens_at is not None
        and t.self_check_in_closes_at is not None
        and t.self_check_in_opens_at <= now < t.self_check_in_closes_at
        and t.state in (TournamentState.REGISTRATION, TournamentState.CHECK_IN)
    )


@transaction.atomic
def self_check_in(tournament: Tournament, *, by: Any) -> Entry:
    """The signed-in player checks their own entry in, while the window is open."""
    t = lock_tournament(tournament)
    if not self_check_in_is_open(t):
        raise ValidationError(_("Self check-in is not open for this tournament now."))
    entry = (
        Entry.objects.filter(tournament=t, player__user_id=getattr(by, "pk", None))
        .select_related("player", "tournament")
        .first()
    )
    if entry is None:
        raise ValidationError(_("You are not entered in this tournament."))
    return check_in(entry, by=by)
