"""Importing players and clubs from CSV files, and the rows an export writes.

``import_players`` and ``import_clubs`` check the ``federation.import``
permission, validate the file with ``clubs.csv_io`` and save every good row
in one transaction; bad rows are reported and never saved.  With
``dry_run=True`` they report exactly what the import would do and save
nothing.

Players are written in bulk (a federation's whole register is thousands of
rows), applying the rules of ``clubs.services``: the same permission rules
(``player.create``, ``player.change`` per updated player,
``membership.change`` per club) and one audit entry per created or changed
player and per added membership, shaped as the services write them.  Clubs
are few, so each goes through ``services.create_club`` / ``update_club`` in
its own savepoint; their dry run runs the same calls and rolls them back.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from anyascii import anyascii
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from clubs import csv_io, permissions, services
from clubs.csv_io import RowError
from clubs.models import AuditEntry, Club, Federation, Membership, Player

BATCH = 500
UPDATES_SHOWN = 200  # updated rows listed in a report; the count covers them all


@dataclass(frozen=True)
class RowUpdate:
    """A row that matches an existing player or club, and what it changes."""

    row: int
    key: str  # membership number or club name
    target: str
    changes: tuple[str, ...]  # field names that change; empty when nothing does


@dataclass
class ImportReport:
    kind: str  # "players" or "clubs"
    dry_run: bool
    file_error: str = ""
    total: int = 0
    created: int = 0
    updated: int = 0  # rows matching an existing player or club (changed or not)
    unchanged: int = 0  # of the updated rows, those that change nothing
    memberships: int = 0  # memberships added
    errors: list[RowError] = field(default_factory=list)
    updates: list[RowUpdate] = field(default_factory=list)  # at most UPDATES_SHOWN
    ignored_columns: list[str] = field(default_factory=list)
    encoding: str = ""
    delimiter: str = ""

    @property
    def rejected_rows(self) -> list[int]:
        return sorted({error.row for error in self.errors})

    @property
    def good_rows(self) -> int:
        return self.created + self.updated

    @property
    def more_updates(self) -> int:
        return max(0, self.updated - len(self.updates))

    def note_update(self, update: RowUpdate) -> None:
        self.updated += 1
        if not update.changes:
            self.unchanged += 1
        if len(self.updates) < UPDATES_SHOWN:
            self.updates.append(update)

    def fail(self, message: str) -> ImportReport:
        """Nothing is imported: the counts go, the reason stays."""
        self.file_error = message
        self.created = self.updated = self.unchanged = self.memberships = 0
        self.updates = []
        return self


def _start_report(kind: str, dry_run: bool, parsed: csv_io.Parsed[Any]) -> ImportReport:
    return ImportReport(
        kind=kind,
        dry_run=dry_run,
        total=parsed.total,
        errors=list(parsed.errors),
        ignored_columns=parsed.ignored_columns,
        encoding=parsed.encoding,
        delimiter=parsed.delimiter,
    )


def _row_errors(row: int, error: ValidationError) -> list[RowError]:
    if not hasattr(error, "error_dict"):
        return [RowError(row, "", message, "invalid") for message in error.messages]
    return [
        RowError(row, "" if name == NON_FIELD_ERRORS else name, message, "invalid")
        for name, messages in error.message_dict.items()
        for message in messages
    ]


def _sort_errors(report: ImportReport) -> ImportReport:
    report.errors.sort(key=lambda error: error.row)
    return report


# --- Players


@dataclass
class _PlayerPlan:
    create: list[tuple[csv_io.PlayerRow, Player]] = field(default_factory=list)
    change: list[tuple[Player, dict[str, Any]]] = field(default_factory=list)
    join: list[Membership] = field(default_factory=list)


def _club_lookup(clubs: Iterable[Club]) -> dict[str, Club]:
    lookup: dict[str, Club] = {}
    for club in clubs:
        lookup[csv_io.club_key(club.slug)] = club
    for club in clubs:  # a name wins over another club's slug
        lookup[csv_io.club_key(club.name)] = club
    return lookup


def _field_value(player: Player, name: str) -> Any:
    value = getattr(player, name)
    return value.code if name == "country" else value


Span = tuple[datetime.date, datetime.date | None]  # a membership's start and end


def _new_membership(
    row: csv_io.PlayerRow, player: Player, spans: list[Span], today: datetime.date
) -> Membership | RowError | None:
    """The membership the row adds (None: no club, or a current member already).

    ``spans`` are the player's memberships of that club so far.
    """
    if row.club is None or any(s <= today and (e is None or e >= today) for s, e in spans):
        return None
    start = row.member_since or today
    overlap = next((span for span in spans if span[1] is None or span[1] >= start), None)
    if overlap is not None:
        return RowError(
            row.row,
            "",
            _("A membership of %(club)s from %(start)s overlaps the one from %(old)s.")
            % {"club": row.club.name, "start": start, "old": overlap[0]},
            "membership_overlap",
        )
    return Membership(player=player, club=row.club, start=start)


def _plan_players(
    federation: Federation,
    rows: list[csv_io.PlayerRow],
    by: Any,
    report: ImportReport,
    today: datetime.date,
) -> _PlayerPlan:
    existing = {
        player.membership_number: player
        for player in Player.objects.filter(federation=federation).exclude(membership_number="")
    }
    spans: dict[tuple[int, int], list[Span]] = defaultdict(list)
    for player_id, club_id, start, end in Membership.objects.filter(
        club__federation=federation
    ).values_list("player_id", "club_id", "start", "end"):
        spans[player_id, club_id].append((start, end))
    plan = _PlayerPlan()
    may_create = by is None or permissions.can(by, "player.create", federation)
    for row in rows:
        changes: dict[str, Any] = {}
        player = existing.get(row.membership_number) if row.membership_number else None
        if player is not None:
            player.federation = federation  # already known: no query in the rules
            if by is not None and not permissions.can(by, "player.change", player):
                report.errors.append(
                    RowError(
                        row.row, "", _("You may not change %(player)s.") % {"player": player},
                        "not_allowed",
                    )
                )  # fmt: skip
                continue
            changes = {
                name: value
                for name, value in row.values.items()
                if _field_value(player, name) != value
            }
        elif not may_create:
            report.errors.append(
                RowError(row.row, "", _("You may not add players here."), "not_allowed")
            )
            continue
        else:
            player = Player(federation=federation, **row.creation_values())
            try:
                # The country was checked by csv_io (the field's own check scans every country).
                player.clean_fields(exclude=["federation", "user", "merged_into", "country"])
            except ValidationError as error:
                report.errors.extend(_row_errors(row.row, error))
                continue
        spans_here = spans.get((player.pk, row.club.pk), []) if player.pk and row.club else []
        membership = _new_membership(row, player, spans_here, today)
        if isinstance(membership, RowError):
            report.errors.append(membership)
            continue
        if player.pk is None:
            plan.create.append((row, player))
            report.created += 1
        else:
            if changes:
                plan.change.append((player, changes))
            report.note_update(
                RowUpdate(row.row, row.membership_number, str(player), tuple(sorted(changes)))
            )
        if membership is not None:
            plan.join.append(membership)
            report.memberships += 1
    return plan


def _check_clubs(by: Any, memberships: list[Membership]) -> None:
    for club in {membership.club.pk: membership.club for membership in memberships}.values():
        permissions.require(by, "membership.change", club)


def _audit_entry(
    by: Any, action: str, target: models.Model, federation: Federation, before: Any, after: Any
) -> AuditEntry:
    return AuditEntry(
        actor=by if by is not None and by.is_authenticated else None,
        action=action,
        target_type=ContentType.objects.get_for_model(type(target)),
        target_id=target.pk,
        target_repr=str(target)[:250],
        federation=federation,
        before=before,
        after=after,
    )


def _write_players(federation: Federation, plan: _PlayerPlan, by: Any) -> None:
    entries: list[AuditEntry] = []
    new = [player for _row, player in plan.create]
    Player.objects.bulk_create(new, batch_size=BATCH)
    for player in new:
        entries.append(
            _audit_entry(by, "player.create", player, federation, None, services.snapshot(player))
        )
    now = timezone.now()
    changed: list[Player] = []
    for player, changes in plan.change:
        before = services.snapshot(player)
        for name, value in changes.items():
            setattr(player, name, value)
        player.updated_at = now
        after = services.snapshot(player)
        keys = [key for key in after if before.get(key) != after.get(key)]
        entries.append(
            _audit_entry(
                by,
                "player.change",
                player,
                federation,
                {key: before[key] for key in keys},
                {key: after[key] for key in keys},
            )
        )
        changed.append(player)
    fields = sorted({name for _player, changes in plan.change for name in changes})
    if changed:
        Player.objects.bulk_update(changed, [*fields, "updated_at"], batch_size=BATCH)
    Membership.objects.bulk_create(plan.join, batch_size=BATCH)
    for membership in plan.join:
        entries.append(
            _audit_entry(
                by, "membership.create", membership, federation, None, services.snapshot(membership)
            )
        )
    AuditEntry.objects.bulk_create(entries, batch_size=BATCH)


def import_players(
    federation: Federation, file_bytes: bytes, *, by: Any, dry_run: bool
) -> ImportReport:
    """Import (or with ``dry_run``, only check) a players file into ``federation``."""
    permissions.require(by, "federation.import", federation)
    today = timezone.localdate()
    clubs = _club_lookup(list(Club.objects.filter(federation=federation)))
    for club in clubs.values():
        club.federation = federation
    try:
        parsed = csv_io.parse_players(file_bytes, clubs=clubs, today=today)
    except csv_io.FileError as error:
        return ImportReport(kind="players", dry_run=dry_run, file_error=error.message)
    report = _start_report("players", dry_run, parsed)
    plan = _plan_players(federation, parsed.rows, by, report, today)
    if plan.create:
        permissions.require(by, "player.create", federation)
    _check_clubs(by, plan.join)
    if not dry_run:
        try:
            with transaction.atomic():
                _write_players(federation, plan, by)
        except IntegrityError:
            return _sort_errors(report.fail(_concurrent_change()))
    return _sort_errors(report)


def _concurrent_change() -> str:
    return _(
        "The data changed while the file was being imported (someone else saved a player "
        "or a club at the same time). Nothing was saved: import the file again."
    )


# --- Clubs


def _unique_slug(name: str, taken: set[str]) -> str:
    base = slugify(anyascii(name))[:70].strip("-") or "club"
    slug, suffix = base, 2
    while slug in taken:
        slug, suffix = f"{base}-{suffix}", suffix + 1
    taken.add(slug)
    return slug


class _DryRun(Exception):
    """Raised at the end of a dry run, to roll everything back."""


def import_clubs(
    federation: Federation, file_bytes: bytes, *, by: Any, dry_run: bool
) -> ImportReport:
    """Import (or with ``dry_run``, only check) a clubs file into ``federation``."""
    permissions.require(by, "federation.import", federation)
    try:
        parsed = csv_io.parse_clubs(file_bytes)
    except csv_io.FileError as error:
        return ImportReport(kind="clubs", dry_run=dry_run, file_error=error.message)
    report = _start_report("clubs", dry_run, parsed)
    try:
        with transaction.atomic():
            _write_clubs(federation, parsed.rows, by, report)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    except IntegrityError:
        return _sort_errors(report.fail(_concurrent_change()))
    return _sort_errors(report)


def _write_clubs(
    federation: Federation, rows: list[csv_io.ClubRow], by: Any, report: ImportReport
) -> None:
    clubs = list(Club.objects.filter(federation=federation))
    by_name = {csv_io.club_key(club.name): club for club in clubs}
    slugs = {club.slug for club in clubs}
    for row in rows:
        club = by_name.get(csv_io.club_key(row.values["name"]))
        try:
            if club is None:
                services.create_club(
                    federation, by=by, slug=_unique_slug(row.values["name"], slugs), **row.values
                )
                report.created += 1
                continue
            club.federation = federation
            changes = {k: v for k, v in row.values.items() if getattr(club, k) != v}
            if changes:
                services.update_club(club, by=by, **changes)
            report.note_update(RowUpdate(row.row, club.name, str(club), tuple(sorted(changes))))
        except ValidationError as error:
            report.errors.extend(_row_errors(row.row, error))
        except PermissionDenied as error:
            report.errors.append(RowError(row.row, "", str(error), "not_allowed"))


# --- The rows an export writes (the same columns as the import)


def player_rows(players: models.QuerySet[Player]) -> Iterator[dict[str, Any]]:
    """Export rows of ``players`` (merged duplicates left out), with the current
    club of each player's own federation and its start."""
    today = timezone.localdate()
    players = (
        players.filter(merged_into__isnull=True)
        .prefetch_related(None)  # the caller's own look-ups (the admin's) are replaced
        .prefetch_related(
            models.Prefetch(
                "memberships",
                queryset=Membership.objects.current(today)
                .select_related("club")
                .order_by("-start", "-id"),
                to_attr="current_memberships",
            )
        )
        .order_by("membership_number", "id")
    )
    for player in players.iterator(chunk_size=2000):
        own = [
            m for m in player.current_memberships if m.club.federation_id == player.federation_id
        ]
        membership = own[0] if own else None
        yield {
            "membership_number": player.membership_number,
            "name_native": player.name_native,
            "name_latin": player.name_latin,
            "birth_year": player.birth_year,
            "gender": player.gender,
            "country": player.country.code,
            "club": membership.club.name if membership else "",
            "member_since": membership.start if membership else None,
        }


def club_rows(clubs: models.QuerySet[Club]) -> Iterator[dict[str, Any]]:
    for club in clubs.order_by("name"):
        yield {
            key: getattr(club, key)
            for key in ("name", "city", "address", "email", "phone", "website")
        }
