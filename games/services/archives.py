"""Whole archives of match files: a zip uploaded once, imported by Celery jobs.

1. ``upload_archive`` checks the zip from its directory alone (``MAX_MEMBERS``
   match files, ``MAX_TOTAL_BYTES`` uncompressed, no name climbing out of a
   folder), keeps it out of the public media, lists its files, owes the scan.
   Nothing is extracted to disk: members are read into memory, each at most
   ``settings.MATCH_FILE_MAX_BYTES`` whatever its header says.
2. ``scan_archive`` (task ``games.scan_archive``) reads of each file what the
   review needs: its content hash and the players' names (a ``.mat`` as far as
   game 1's score line; a file broken before it is refused, with its line); a
   content the federation imported already is a duplicate.  Each name gets a
   proposal among the federation's players (``clubs.queries.name_key``).
3. ``review_names``: the admin maps each name to a player, a new player, or
   leaves its files out; ``start_import`` creates the new players and owes
4. ``import_archive`` (task ``games.import_archive``; ``ARCHIVE_IMPORT_JOBS`` at
   once, each its share of the files, then what is left): each file is read
   and checked whole, once, and stored in its own transaction
   (``matfiles.store_record``): a refused file leaves no rows.  A file's
   outcome and the archive's counts are written together, so the counts are
   the progress and a job run twice imports each file once.  The content hash
   is unique among the federation's imported files (a constraint).
"""

from __future__ import annotations

import json
import logging
import re
import uuid
import zipfile
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO, Any, Final

from anyascii import anyascii
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files import File
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F, QuerySet
from django.db.models.functions import Mod
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from base.engine_messages import message_for
from base.locking import Busy
from base.tasks import owe
from clubs import permissions
from clubs import services as club_services
from clubs.models import Club, Discipline, Federation, Player
from clubs.queries import name_key
from engine.errors import EngineError
from engine.records.record import MatchRecord
from games.models import (
    ArchiveFile,
    ArchiveFileState,
    ArchiveImport,
    ArchiveName,
    ArchiveState,
    Match,
)
from games.services.matfiles import content_hash, store_record
from games.services.recording import RecordingError

MAX_MEMBERS: Final = 10_000
MAX_TOTAL_BYTES: Final = 1024 * 1024 * 1024  # uncompressed, all files together
MAX_ARCHIVE_BYTES: Final = 256 * 1024 * 1024  # the zip as uploaded
# Entries of the zip's directory, before it is read: the files, their folders and
# the ``__MACOSX`` companions a Mac adds to each.
MAX_ENTRIES: Final = 3 * MAX_MEMBERS
logger = logging.getLogger(__name__)

BATCH: Final = 100  # files read per transaction by the scan

FORMATS: Final = {".mat": "mat", ".txt": "mat", ".sgf": "sgf", ".xg": "xg"}
IMPORTED: Final = (ArchiveFileState.IMPORTED, ArchiveFileState.WARNINGS)

# Refusals of a file that are the archive's own (not the engine's nor a reader's).
REFUSALS: dict[str, Any] = {
    "unknown_format": gettext_lazy("Not a match file: only .mat, .txt, .sgf and .xg are read."),
    "file_too_large": gettext_lazy("The file is too large: %(size)s, at most %(limit)s."),
    "encrypted": gettext_lazy("The file is encrypted in the archive."),
    "unreadable": gettext_lazy("The file cannot be read from the archive (damaged)."),
    "not_text": gettext_lazy("This is not a text file: a .mat or .sgf file is plain text."),
    "empty_file": gettext_lazy("The file is empty."),
    "player_skipped": gettext_lazy("“%(name)s” was left out at the review of the names."),
    "same_player": gettext_lazy("Both sides are the same player, %(name)s."),
    # games.xgfile's own sentence (no data).
    "not_xg": gettext_lazy(
        "This is not an eXtreme Gammon match file (.xg), or the file is damaged."
    ),
}


class ArchiveRefused(ValidationError):
    """The whole archive refused at upload; ``code`` says why."""


# --- Upload: the zip's directory checked, the archive stored and listed.


def _climbs(name: str) -> bool:
    """A member name that would land outside a folder if anyone extracted it (an
    absolute path, a drive, a backslash, ``..``): only hostile archives hold one."""
    return (
        "\x00" in name
        or "\\" in name
        or name.startswith("/")
        or re.match(r"^[A-Za-z]:", name) is not None
        or ".." in name.split("/")
    )


def _skipped(info: zipfile.ZipInfo) -> bool:
    """Folders, and what archivers add beside the files (``__MACOSX``, ``.DS_Store``)."""
    base = info.filename.rsplit("/", 1)[-1]
    return (
        info.is_dir() or info.filename.startswith("__MACOSX/") or base.startswith(".") or not base
    )


def _members(archive: zipfile.ZipFile) -> list[tuple[int, zipfile.ZipInfo]]:
    """The archive's files with their place in its directory, checked from the
    directory alone (no member is read)."""
    infos = archive.infolist()
    if any(_climbs(info.filename) for info in infos):
        raise ArchiveRefused(
            _("The archive holds a file name that leaves its folder (such as “../”)."),
            code="archive_path",
        )
    members = [(index, info) for index, info in enumerate(infos) if not _skipped(info)]
    if not members:
        raise ArchiveRefused(_("The archive holds no files."), code="archive_empty")
    if len(members) > MAX_MEMBERS:
        raise ArchiveRefused(
            _("An archive holds at most %(limit)d files; this one has %(count)d.")
            % {"limit": MAX_MEMBERS, "count": len(members)},
            code="archive_too_many",
        )
    total = sum(info.file_size for _index, info in members)
    if total > MAX_TOTAL_BYTES:
        raise ArchiveRefused(
            _("The archive unpacks to %(size)s, at most %(limit)s.")
            % {"size": filesizeformat(total), "limit": filesizeformat(MAX_TOTAL_BYTES)},
            code="archive_too_large",
        )
    return members


def _count_entries(content: File[bytes]) -> None:
    """Refuse a directory of too many entries from the count its end record states,
    before ``zipfile`` reads them all into memory (a small zip can list millions)."""
    end = zipfile._EndRecData(content)  # type: ignore[attr-defined]  # stable since 2.x
    if end is None:
        raise zipfile.BadZipFile("no end of central directory")
    if end[zipfile._ECD_ENTRIES_TOTAL] > MAX_ENTRIES:  # type: ignore[attr-defined]
        raise ArchiveRefused(
            _("An archive holds at most %(limit)d files; this one has %(count)d.")
            % {"limit": MAX_MEMBERS, "count": end[zipfile._ECD_ENTRIES_TOTAL]},  # type: ignore[attr-defined]
            code="archive_too_many",
        )


# True while an import job stores one file: the only match whose result becomes
# official meanwhile is that file's (store_record creates one).
_STORING: ContextVar[bool] = ContextVar("archive_storing", default=False)


def storing() -> bool:
    """Whether an import job is storing a file now (no query): a result made official
    meanwhile is an archive's match, no tournament's, and the work it would owe
    elsewhere (its ratings, its analysis) waits for what the archive's admin
    chooses once the import is over."""
    return _STORING.get()


def archive_scope(archive: ArchiveImport) -> Federation | Club:
    return archive.club if archive.club is not None else archive.federation


def upload_archive(
    file: IO[bytes] | File[bytes],
    *,
    by: Any,
    federation: Federation,
    discipline: Discipline,
    club: Club | None = None,
) -> ArchiveImport:
    """Keep a zip of match files for import into ``federation`` (by its admin, or a
    club's), list its files, and owe their scan; ``ArchiveRefused`` for an archive
    that is not a zip or breaks a limit (nothing is kept)."""
    if club is not None and club.federation_id != federation.pk:
        raise ValidationError(_("The club is not in this federation."))
    permissions.require(by, "matches.import_archive", club if club is not None else federation)
    content = file if isinstance(file, File) else File(file)
    if content.size is not None and content.size > MAX_ARCHIVE_BYTES:
        raise ArchiveRefused(
            _("The archive is too large: %(size)s, at most %(limit)s.")
            % {"size": filesizeformat(content.size), "limit": filesizeformat(MAX_ARCHIVE_BYTES)},
            code="archive_too_large",
        )
    try:
        content.seek(0)
        _count_entries(content)
        content.seek(0)
        with zipfile.ZipFile(content) as opened:
            members = _members(opened)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as error:
        raise ArchiveRefused(
            _("This is not a zip archive, or the archive is damaged."), code="not_zip"
        ) from error
    content.seek(0)
    archive = ArchiveImport(
        federation=federation,
        club=club,
        discipline=discipline,
        uploaded_by=by,
        original_name=str(getattr(file, "name", "") or "")[-255:].rsplit("/", 1)[-1],
        files_total=len(members),
    )
    # A name of our own: the uploader's file name never becomes a path.
    archive.file.save(f"{uuid.uuid4().hex}.zip", content, save=False)
    try:
        with transaction.atomic():
            archive.save()
            ArchiveFile.objects.bulk_create(
                [
                    ArchiveFile(
                        archive=archive,
                        federation=federation,
                        index=index,
                        name=info.filename[-500:],
                        size=info.file_size,
                    )
                    for index, info in members
                ],
                batch_size=1000,
            )
            owe("games.scan_archive", archive.pk)
    except BaseException:
        archive.file.delete(save=False)
        raise
    return archive


# --- Reading one member: its bytes (bounded), its hash, its record.


@dataclass(frozen=True)
class Refusal:
    """Why a file is refused: where (its line, or game and turn in ``data``), a code,
    and the data its sentence needs (``refusal_message``)."""

    code: str
    data: dict[str, Any]
    line: int | None = None


class _Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.code)
        self.refusal = refusal


def _without_nul(value: Any) -> Any:
    # PostgreSQL's jsonb refuses the NUL character a hostile file may carry.
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    return value


def _jsonable(data: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = _without_nul(json.loads(json.dumps(dict(data), default=str)))
    return result


def refusal_of(error: Exception) -> Refusal:
    """A refusal from what a reader or the storing raised, kept as code and data so
    the sentence is made in the reader's language when shown."""
    if isinstance(error, _Refused):
        return error.refusal
    if isinstance(error, EngineError):
        data = {k: v for k, v in error.data.items() if k != "line"}
        line = error.data.get("line")
        return Refusal(error.code, _jsonable(data), line if isinstance(line, int) else None)
    cause = error.__cause__
    if isinstance(error, ValidationError) and isinstance(cause, RecordingError):
        # The match's own rules refused a turn (its discipline has no cube...).
        return Refusal(cause.code, _jsonable(cause.data))
    if isinstance(error, ValidationError) and isinstance(cause, EngineError):
        # An .xg reader's refusal: the engine's reason at a game and turn.
        where = {k: v for k, v in (getattr(error, "params", None) or {}).items()}
        data = {k: v for k, v in cause.data.items() if k != "line"}
        return Refusal(cause.code, _jsonable({**data, **where}))
    if isinstance(error, ValidationError | PermissionDenied):
        messages = error.messages if isinstance(error, ValidationError) else [str(error)]
        code = getattr(error, "code", None) or "not_importable"
        if code in REFUSALS:
            return Refusal(str(code), {})
        return Refusal(str(code), {"text": " ".join(str(m) for m in messages)})
    raise error


def refusal_message(file: ArchiveFile) -> str:
    """The sentence for a refused file, in the current language."""
    code, data, line = file.refusal_code, dict(file.refusal_data or {}), file.refusal_line
    if code in REFUSALS:
        if code == "file_too_large":
            data = {
                "size": filesizeformat(data.get("size", 0)),
                "limit": filesizeformat(data.get("limit", 0)),
            }
        return str(REFUSALS[code]) % data if data else str(REFUSALS[code])
    if "text" in data:
        # A reader's or the match's own refusal, in the language of the import.
        return str(data["text"])
    game, turn = data.pop("game", None), data.pop("turn", None)
    if line is not None:
        data["line"] = line
    text = message_for(EngineError(code, "", **data))
    if isinstance(game, int) and isinstance(turn, int) and turn:
        return _("game %(game)d, turn %(turn)d: %(reason)s") % {
            "game": game,
            "turn": turn,
            "reason": text,
        }
    if isinstance(game, int):
        return _("game %(game)d: %(reason)s") % {"game": game, "reason": text}
    return text


def _format(name: str) -> str | None:
    lowered = name.casefold()
    return next((fmt for ext, fmt in FORMATS.items() if lowered.endswith(ext)), None)


def _read_member(opened: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The member's bytes, never more than the limit of one match file whatever its
    header claims (a lying size stops the read at the limit)."""
    limit = settings.MATCH_FILE_MAX_BYTES
    too_large = _Refused(Refusal("file_too_large", {"size": info.file_size, "limit": limit}))
    if info.flag_bits & 0x1:
        raise _Refused(Refusal("encrypted", {}))
    if info.file_size > limit:
        raise too_large
    try:
        with opened.open(info) as member:
            data = member.read(limit + 1)
    except (
        zipfile.BadZipFile,
        zlib.error,
        NotImplementedError,  # zipfile's answer to a compression method it lacks
        RuntimeError,
        EOFError,
        OSError,
    ) as error:
        raise _Refused(Refusal("unreadable", {})) from error
    if len(data) > limit:
        raise _Refused(Refusal("file_too_large", {"size": len(data), "limit": limit}))
    if not data.strip():
        raise _Refused(Refusal("empty_file", {}))
    return data


def _text(data: bytes) -> str:
    if b"\x00" in data:
        raise _Refused(Refusal("not_text", {}))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # as old .mat files are


def read_names(fmt: str, data: bytes) -> list[str]:
    """The players' names of a member, reading no more of it than they need (an
    ``.xg`` file is read whole: its reader has no shorter way)."""
    if fmt == "xg":
        return _names(read_record(fmt, data).players)
    if fmt == "sgf":
        from engine.records.sgf import read_players as sgf_players

        return _names(sgf_players(_text(data)))
    from engine.records.matfile import read_players

    return _names(read_players(_text(data)))


def read_record(fmt: str, data: bytes) -> MatchRecord:
    """The checked record of a member (its reader checks every play)."""
    if fmt == "xg":
        from games.xgfile import read_xg

        return read_xg(data)
    if fmt == "sgf":
        from engine.records.sgf import parse_sgf

        return parse_sgf(_text(data))
    from engine.records.matfile import parse_mat

    return parse_mat(_text(data))


def _names(players: tuple[str, str]) -> list[str]:
    """The players' names as written, spaces collapsed, without control characters."""
    printable = ("".join(c for c in name if c.isprintable()) for name in players)
    return [" ".join(name.split())[:200] for name in printable]


# --- The scan: hashes, names, refusals; then the names' proposals.


@dataclass
class _Zip:
    opened: zipfile.ZipFile
    infos: list[zipfile.ZipInfo]

    def member(self, file: ArchiveFile) -> bytes:
        """The bytes of ``file``, found at its place in the directory."""
        info = self.infos[file.index] if file.index < len(self.infos) else None
        if info is None or info.filename[-500:] != file.name:
            raise _Refused(Refusal("unreadable", {}))
        return _read_member(self.opened, info)


@contextmanager
def _opened(archive: ArchiveImport) -> Iterator[_Zip | None]:
    """The stored zip (None, and the archive FAILED, if it is gone or damaged
    since the upload)."""
    try:
        handle = archive.file.open("rb")
        opened = zipfile.ZipFile(handle)
    except (OSError, zipfile.BadZipFile, ValueError):
        ArchiveImport.objects.filter(pk=archive.pk).exclude(state=ArchiveState.DONE).update(
            state=ArchiveState.FAILED, failure="archive_unreadable", finished_at=timezone.now()
        )
        yield None
        return
    try:
        yield _Zip(opened, opened.infolist())
    finally:
        opened.close()
        handle.close()


def _scan_one(
    stored: _Zip, file: ArchiveFile, known: dict[str, tuple[list[str], Refusal | None]]
) -> tuple[str, list[str], Refusal | None]:
    """(hash, names, refusal) of one member, read and checked once per content."""
    fmt = _format(file.name)
    try:
        if fmt is None:
            raise _Refused(Refusal("unknown_format", {}))
        data = stored.member(file)
    except _Refused as refused:
        return "", [], refused.refusal
    digest = content_hash(data, text=fmt != "xg")
    if digest not in known:
        try:
            known[digest] = (read_names(fmt, data), None)
        except Busy:
            raise
        except (EngineError, ValidationError, _Refused) as error:
            known[digest] = ([], refusal_of(error))
        except Exception:
            # A reader's bug on one hostile file refuses that file, not the archive.
            logger.exception("archive %s: reading %s failed", file.archive_id, file.name)
            known[digest] = ([], Refusal("unreadable", {}))
    names, refusal = known[digest]
    return digest, names, refusal


def scan_archive(archive_id: int) -> str:
    """Read every file of the archive once (idempotent: files read already are
    skipped), then propose a player for each name; UPLOADED becomes SCANNED."""
    archive = ArchiveImport.objects.filter(pk=archive_id).first()
    if archive is None or archive.state != ArchiveState.UPLOADED:
        return "nothing to scan"
    with _opened(archive) as stored:
        if stored is None:
            return "failed"
        # What a content gave already (a file twice in the archive is read once).
        known: dict[str, tuple[list[str], Refusal | None]] = {
            f.sha256: (f.names, _stored_refusal(f))
            for f in archive.files.filter(scanned=True).exclude(sha256="")
        }
        while True:
            batch = list(archive.files.filter(scanned=False).order_by("index")[:BATCH])
            if not batch:
                break
            _scan_batch(archive, stored, batch, known)
    _propose_names(archive)
    ArchiveImport.objects.filter(pk=archive.pk, state=ArchiveState.UPLOADED).update(
        state=ArchiveState.SCANNED
    )
    return "scanned"


def _stored_refusal(file: ArchiveFile) -> Refusal | None:
    if file.state != ArchiveFileState.REFUSED:
        return None
    return Refusal(file.refusal_code, file.refusal_data, file.refusal_line)


def _scan_batch(
    archive: ArchiveImport,
    stored: _Zip,
    batch: list[ArchiveFile],
    known: dict[str, tuple[list[str], Refusal | None]],
) -> None:
    for file in batch:
        digest, names, refusal = _scan_one(stored, file, known)
        file.sha256, file.names, file.scanned = digest, names, True
        if refusal is not None:
            _refuse(file, refusal)
    # Content the federation has as a match already, from an archive or a file
    # uploaded alone (every imported match keeps its file's hash).
    imported = set(
        Match.objects.filter(
            federation_id=archive.federation_id,
            source_hash__in=[f.sha256 for f in batch if f.sha256],
        ).values_list("source_hash", flat=True)
    )
    for file in batch:
        if file.sha256 in imported and file.state == ArchiveFileState.PENDING:
            file.state = ArchiveFileState.DUPLICATE
    with transaction.atomic():
        # Only files still unread are written: a second scan at once counts nothing twice.
        fresh = set(
            ArchiveFile.objects.select_for_update(of=("self",))
            .filter(pk__in=[f.pk for f in batch], scanned=False)
            .order_by()
            .values_list("pk", flat=True)
        )
        batch = [file for file in batch if file.pk in fresh]
        outcomes = Counter(file.state for file in batch)
        done = outcomes[ArchiveFileState.REFUSED] + outcomes[ArchiveFileState.DUPLICATE]
        # One plain update a file: a ``bulk_update`` of these seven fields builds a CASE
        # of seven hundred branches for a batch, which cost more than the reading.
        for file in batch:
            ArchiveFile.objects.filter(pk=file.pk).update(
                sha256=file.sha256,
                names=file.names,
                scanned=True,
                state=file.state,
                refusal_code=file.refusal_code,
                refusal_data=file.refusal_data,
                refusal_line=file.refusal_line,
            )
        ArchiveImport.objects.filter(pk=archive.pk).update(
            files_scanned=F("files_scanned") + len(batch),
            files_done=F("files_done") + done,
            refused=F("refused") + outcomes[ArchiveFileState.REFUSED],
            duplicate=F("duplicate") + outcomes[ArchiveFileState.DUPLICATE],
        )


def _refuse(file: ArchiveFile, refusal: Refusal) -> None:
    file.state = ArchiveFileState.REFUSED
    file.refusal_code, file.refusal_data, file.refusal_line = (
        refusal.code,
        refusal.data,
        refusal.line,
    )


def federation_players_by_key(federation_id: int) -> dict[str, list[Player]]:
    """The federation's active players by name key, from either spelling (one query)."""
    by_key: dict[str, list[Player]] = defaultdict(list)
    players = Player.objects.filter(federation_id=federation_id, merged_into__isnull=True)
    for player in players.order_by("name_latin", "id"):
        for key in {name_key(player.name_native), name_key(player.name_latin)} - {""}:
            by_key[key].append(player)
    return by_key


def _propose_names(archive: ArchiveImport) -> None:
    """One row per distinct name of the files to import, with the federation's
    players that bear it (in either script); exactly one is proposed as decided."""
    counts: Counter[str] = Counter()
    for names in archive.files.filter(state=ArchiveFileState.PENDING).values_list(
        "names", flat=True
    ):
        counts.update(set(names))
    by_key = federation_players_by_key(archive.federation_id)
    rows = []
    for name, files in sorted(counts.items()):
        candidates = by_key.get(name_key(name), []) if name_key(name) else []
        one = candidates[0] if len(candidates) == 1 else None
        rows.append(
            ArchiveName(
                archive=archive,
                name=name,
                files=files,
                candidates=[p.pk for p in candidates],
                decision=ArchiveName.Decision.PLAYER if one is not None else "",
                player=one,
            )
        )
    ArchiveName.objects.bulk_create(rows, ignore_conflicts=True)


# --- The review, and the start of the import.


def _locked(archive: ArchiveImport, states: tuple[str, ...], doing: str) -> ArchiveImport:
    # Archive rows are locked by these services only, before any match row.
    locked = ArchiveImport.objects.select_for_update().get(pk=archive.pk)
    if locked.state not in states:
        raise ValidationError(
            _("%(doing)s is not possible now: the archive is %(state)s.")
            % {"doing": doing, "state": locked.get_state_display()},
            code="archive_state",
        )
    return locked


@transaction.atomic
def review_names(
    archive: ArchiveImport, decisions: Mapping[str, Player | str], *, by: Any
) -> ArchiveImport:
    """The admin's choice for names of the archive: a player of the federation,
    ``"new"`` (a new player of that name, created when the import starts) or
    ``"skip"`` (the files naming them are refused).  Names not given keep theirs."""
    permissions.require(by, "matches.import_archive", archive_scope(archive))
    locked = _locked(
        archive, (ArchiveState.SCANNED, ArchiveState.REVIEWING), _("Reviewing the names")
    )
    rows = {row.name: row for row in locked.names.all()}
    changed = []
    for name, choice in decisions.items():
        row = rows.get(name)
        if row is None:
            raise ValidationError(_("No file of the archive names “%(name)s”.") % {"name": name})
        if isinstance(choice, Player):
            if choice.federation_id != locked.federation_id or choice.merged_into_id is not None:
                raise ValidationError(
                    _("%(player)s is not an active player of the federation.") % {"player": choice}
                )
            row.decision, row.player = ArchiveName.Decision.PLAYER, choice
        elif choice == ArchiveName.Decision.NEW:
            if not name.strip():
                raise ValidationError(
                    _("A player without a name cannot be created: choose who it is.")
                )
            row.decision, row.player = ArchiveName.Decision.NEW, None
        elif choice == ArchiveName.Decision.SKIP:
            row.decision, row.player = ArchiveName.Decision.SKIP, None
        else:
            raise ValidationError(_("Choose a player, a new player, or to leave them out."))
        changed.append(row)
    ArchiveName.objects.bulk_update(changed, ["decision", "player"])
    locked.state = ArchiveState.REVIEWING
    locked.save(update_fields=["state"])
    return locked


def _latin(names: list[str]) -> str:
    plain = [n for n in names if n.isascii()]
    return plain[0] if plain else anyascii(names[0]).replace("'", "")


@transaction.atomic
def start_import(archive: ArchiveImport, *, by: Any) -> ArchiveImport:
    """Create the new players (one per person: names that read alike in two
    scripts are one player) and owe the import; every name must be decided."""
    permissions.require(by, "matches.import_archive", archive_scope(archive))
    locked = _locked(
        archive, (ArchiveState.SCANNED, ArchiveState.REVIEWING), _("Starting the import")
    )
    rows = list(locked.names.all())
    undecided = [row.name or "—" for row in rows if not row.decision]
    if undecided:
        raise ValidationError(
            _("Decide who these names are first: %(names)s.") % {"names": ", ".join(undecided)},
            code="names_undecided",
        )
    new: dict[str, list[ArchiveName]] = defaultdict(list)
    for row in rows:
        if row.decision == ArchiveName.Decision.NEW:
            new[name_key(row.name)].append(row)
    for same in new.values():
        written = [row.name for row in same]
        native = next((n for n in written if not n.isascii()), written[0])
        player = club_services.create_player(
            by=by,
            club=locked.club,
            federation=locked.federation,
            name_native=native,
            name_latin=_latin(written),
        )
        for row in same:
            row.player = player
    ArchiveName.objects.bulk_update(rows, ["player"])
    locked.state = ArchiveState.IMPORTING
    locked.save(update_fields=["state"])
    jobs = settings.ARCHIVE_IMPORT_JOBS
    for part in range(jobs):
        owe("games.import_archive", locked.pk, part, jobs)
    return locked


# --- The import: each file in its own transaction.


def import_archive(archive_id: int, part: int = 0, parts: int = 1) -> str:
    """Import the archive's pending files (idempotent: a file is taken under its
    row's lock and only while pending); IMPORTING becomes DONE when none is left.

    ``parts`` jobs share the work (the worker pool's processes each read and
    check files at once): this one, ``part``, takes the files whose place in the
    archive is ``part`` modulo ``parts`` in order, then any file still pending,
    from the archive's end (a job that ended early helps the others, meeting
    them last).  A file another job holds is left to it."""
    archive = (
        ArchiveImport.objects.select_related("discipline", "federation", "uploaded_by")
        .filter(pk=archive_id)
        .first()
    )
    if archive is None or archive.state != ArchiveState.IMPORTING:
        return "nothing to import"
    players = {row.name: row for row in archive.names.select_related("player")}
    with _opened(archive) as stored:
        if stored is None:
            return "failed"
        pending = archive.files.filter(state=ArchiveFileState.PENDING)
        if parts > 1:
            share = pending.alias(place=Mod("index", parts)).filter(place=part)
            _import_in_order(archive, stored, players, share.order_by("index"), "index")
        _import_in_order(archive, stored, players, pending.order_by("-index"), "-index")
    if not archive.files.filter(state=ArchiveFileState.PENDING).exists():
        ArchiveImport.objects.filter(pk=archive.pk, state=ArchiveState.IMPORTING).update(
            state=ArchiveState.DONE, finished_at=timezone.now()
        )
    return "imported"


def _import_in_order(
    archive: ArchiveImport,
    stored: _Zip,
    players: Mapping[str, ArchiveName],
    files: QuerySet[ArchiveFile],
    order: str,
) -> None:
    """Import ``files`` a batch at a time, each batch after the last file taken
    (``order``: ``index`` or ``-index``)."""
    beyond = "index__lt" if order.startswith("-") else "index__gt"
    after: int | None = None
    while True:
        batch = files if after is None else files.filter(**{beyond: after})
        rows = list(batch.values_list("pk", "index")[:BATCH])
        if not rows:
            return
        for pk, index in rows:
            after = index
            _import_one(archive, stored, pk, players)


def _sides(file: ArchiveFile, players: Mapping[str, ArchiveName]) -> tuple[Player, Player]:
    sides = []
    for name in file.names:
        row = players.get(name)
        if row is None or row.player is None:
            raise _Refused(Refusal("player_skipped", {"name": name or "—"}))
        sides.append(row.player)
    if len(sides) != 2:
        raise _Refused(Refusal("unreadable", {}))
    if sides[0].pk == sides[1].pk:
        raise _Refused(Refusal("same_player", {"name": str(sides[0])}))
    return sides[0], sides[1]


def _import_one(
    archive: ArchiveImport,
    stored: _Zip,
    pk: int,
    players: Mapping[str, ArchiveName],
) -> None:
    with transaction.atomic():
        # Taken while another job holds it: that job imports it.  Only the file's row
        # is locked (``of``; no ordering, which would join the archive's row, locked
        # by the other jobs' counts, and skip every file).
        file = (
            ArchiveFile.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(pk=pk)
            .order_by()
            .first()
        )
        if file is None or file.state != ArchiveFileState.PENDING:
            return
        saved = False  # the file's row as it ends, written already
        if _imported_elsewhere(file):
            file.state = ArchiveFileState.DUPLICATE
        else:
            try:
                with transaction.atomic():  # a savepoint: a refused file leaves no rows
                    player1, player2 = _sides(file, players)
                    record = read_record(_format(file.name) or "", stored.member(file))
                    storing = _STORING.set(True)
                    try:
                        match = store_record(
                            record,
                            by=archive.uploaded_by,
                            player1=player1,
                            player2=player2,
                            discipline=archive.discipline,
                            federation=archive.federation,
                            archive=archive,
                            source_hash=file.sha256,
                            scored_otherwise=_(
                                "%(discipline)s scores games differently from the file."
                            ),
                        )
                    finally:
                        _STORING.reset(storing)
                    file.match, file.warning_count = match, len(record.warnings)
                    file.state = IMPORTED[1] if record.warnings else IMPORTED[0]
                    file.save(update_fields=["match", "warning_count", "state"])
                    saved = True
            except IntegrityError:
                # Another job, or a single upload, imported the same content
                # meanwhile (the constraints).
                if not (_imported_elsewhere(file) or _archived_elsewhere(file)):
                    raise
                file.match, file.warning_count = None, 0
                file.state = ArchiveFileState.DUPLICATE
            except (EngineError, ValidationError, PermissionDenied, _Refused) as error:
                if isinstance(error, Busy):
                    raise
                file.match, file.warning_count = None, 0
                _refuse(file, refusal_of(error))
            except DatabaseError:
                raise  # the database's trouble, not the file's: the task's retry decides
            except Exception:
                # A reader's or the storing's own bug: this file is refused (its rows
                # rolled back with the savepoint), the archive goes on, as in the scan.
                logger.exception("archive %s: importing %s failed", archive.pk, file.name)
                file.match, file.warning_count = None, 0
                _refuse(file, Refusal("unreadable", {}))
        if not saved:
            file.save()
        counted = {
            ArchiveFileState.IMPORTED: "imported",
            ArchiveFileState.WARNINGS: "warnings",
            ArchiveFileState.REFUSED: "refused",
            ArchiveFileState.DUPLICATE: "duplicate",
        }[ArchiveFileState(file.state)]
        ArchiveImport.objects.filter(pk=archive.pk).update(
            files_done=F("files_done") + 1, **{counted: F(counted) + 1}
        )


def _imported_elsewhere(file: ArchiveFile) -> bool:
    """A match of the federation was made from this content already: by an
    archive or by a file uploaded alone (``Match.source_hash``)."""
    return Match.objects.filter(federation_id=file.federation_id, source_hash=file.sha256).exists()


def _archived_elsewhere(file: ArchiveFile) -> bool:
    """Another archive's file of this content is imported (its match may have
    been deleted since: the files' own constraint still holds it)."""
    return (
        ArchiveFile.objects.filter(
            federation_id=file.federation_id, sha256=file.sha256, state__in=IMPORTED
        )
        .exclude(pk=file.pk)
        .exists()
    )
