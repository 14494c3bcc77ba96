"""Importing a match file: it becomes a recorded match, checked play by play.

Each format has its reader (``engine.records.matfile`` for ``.mat``,
``games.xgfile`` for ``.xg``), which gives the engine's checked record;
``store_record`` stores any such record the one way.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from base.engine_messages import message_for, variant_label
from clubs.models import Discipline, Federation, Player
from engine.errors import EngineError
from engine.records import record as rec
from engine.records.notation import format_play
from engine.rules import game as eg
from games import adapters
from games.models import Match, MatchState, TurnKind
from games.services.bulk_recording import record_new_match
from games.services.matches import new_match
from games.services.recording import RecordingError, _finish_recorded_match, end_session

if TYPE_CHECKING:
    from games.models import ArchiveImport

_CUBE_KINDS = {
    rec.DOUBLE: TurnKind.DOUBLE,
    rec.TAKE: TurnKind.TAKE,
    rec.DROP: TurnKind.PASS,
    rec.BEAVER: TurnKind.BEAVER,
}


def content_hash(data: bytes, *, text: bool) -> str:
    """A match file's SHA-256, the same whether it is uploaded alone or in an
    archive; a text file's line ends and trailing blank lines count for nothing
    (the same match saved on Windows and elsewhere is one match)."""
    if text:
        data = data.replace(b"\r\n", b"\n").rstrip()
    return hashlib.sha256(data).hexdigest()


def imported_already(federation: Federation, source_hash: str) -> ValidationError | None:
    """The refusal of a file whose content became a match of ``federation``
    already (``Match.source_hash``), naming that match; None for a new file."""
    if not source_hash:
        return None
    found = (
        Match.objects.filter(federation=federation, source_hash=source_hash)
        .select_related("player1", "player2")
        .first()
    )
    if found is None:
        return None
    return ValidationError(
        _("This file was imported already, as match no. %(number)d (%(match)s).")
        % {"number": found.pk, "match": found},
        code="imported_already",
    )


def store_file(
    read: Callable[[], rec.MatchRecord],
    *,
    source_hash: str,
    federation: Federation | None,
    player1: Player,
    **stored: Any,
) -> Match:
    """Store the record ``read`` gives, in a transaction of its own, unless its
    file is imported already in the federation: checked before reading (no work
    for a second upload) and by the constraint at the insert (two uploads of one
    file at once: the second is refused the same way)."""
    home = federation or player1.federation
    refusal = imported_already(home, source_hash)
    if refusal is not None:
        raise refusal
    try:
        with transaction.atomic():
            return store_record(
                read(),
                player1=player1,
                federation=federation,
                source_hash=source_hash,
                **stored,
            )
    except IntegrityError:
        refusal = imported_already(home, source_hash)
        if refusal is None:
            raise
        raise refusal from None


def _mat_error(error: EngineError) -> ValidationError:
    return ValidationError(
        _("The match file is not valid: %(reason)s") % {"reason": message_for(error)},
        code=error.code,
    )


_DATE = re.compile(r"\s*(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})")
_TIME = re.compile(r"\s*(\d{1,2})[.:](\d{2})")


def event_moment(headers: Iterable[tuple[str, str]]) -> dt.datetime | None:
    """When the match was played, by the file's own header (``.mat`` ``EventDate``
    and ``EventTime``; an ``.sgf`` ``DT`` is read as ``EventDate``), in local time:
    the day's start when the file names no time (it tells a day; the day's files
    keep their order by id).  None when it names no date, an impossible one, or
    one still to come (a file cannot be played later than it is imported)."""
    found = {key.casefold(): value for key, value in headers}
    date = _DATE.match(found.get("eventdate", ""))
    if date is None:
        return None
    clock = _TIME.match(found.get("eventtime", ""))
    try:
        day = dt.date(int(date[1]), int(date[2]), int(date[3]))
        at = dt.time(int(clock[1]), int(clock[2])) if clock else dt.time()
    except ValueError:
        return None
    moment = timezone.make_aware(dt.datetime.combine(day, at))
    return moment if moment <= timezone.now() else None


def game_turns(game: rec.RecordedGame) -> list[adapters.TurnInput]:
    """A checked game as the turns players record: the opening roll, plays, cube
    actions, and a resignation (at the engine's level) with its acceptance.  A
    roll right before resigning (``rec.ROLL``) is not kept: the player resigns."""
    turns: list[adapters.TurnInput] = []
    for index, action in enumerate(game.actions):
        if index == 0:
            if action.kind != rec.PLAY or action.dice is None:
                raise ValidationError(
                    _("Game %(game)d does not start with an opening roll.") % {"game": game.number}
                )
            low, high = sorted(action.dice)
            opening = (high, low) if action.side == 0 else (low, high)
            turns.append(adapters.TurnInput(TurnKind.OPENING, opening))
        if action.kind == rec.PLAY:
            assert action.play is not None and action.dice is not None
            turns.append(
                adapters.TurnInput(
                    TurnKind.PLAY, action.dice, format_play(action.play), play=action.play
                )
            )
        elif action.kind in _CUBE_KINDS:
            turns.append(adapters.TurnInput(_CUBE_KINDS[action.kind]))
    if game.result.end == eg.END_RESIGN:
        turns.append(adapters.TurnInput(TurnKind.RESIGN, level=game.result.result_name))
        turns.append(adapters.TurnInput(TurnKind.ACCEPT))
    return turns


def import_mat(
    file_text: str,
    *,
    by: Any,
    player1: Player,
    player2: Player,
    discipline: Discipline,
    federation: Federation | None = None,
    source_hash: str = "",
) -> Match:
    """A ``.mat`` file becomes a recorded match between ``player1`` (the file's
    left column, White) and ``player2`` (``store_record``).  The engine reads the
    file and checks every play (``engine.records.matfile``); anything refused
    refuses the whole file: nothing is saved.  ``source_hash``, the uploaded
    file's ``content_hash``: a file the federation imported already is refused
    (``imported_already``)."""
    from engine.records import matfile

    def read() -> rec.MatchRecord:
        try:
            return matfile.parse_mat(file_text)
        except EngineError as error:
            raise _mat_error(error) from error

    return store_file(
        read,
        source_hash=source_hash,
        by=by,
        player1=player1,
        player2=player2,
        discipline=discipline,
        federation=federation,
        scored_otherwise=_("%(discipline)s scores games differently from a .mat file."),
    )


def store_record(
    parsed: rec.MatchRecord,
    *,
    by: Any,
    player1: Player,
    player2: Player,
    discipline: Discipline,
    federation: Federation | None,
    scored_otherwise: str,
    archive: ArchiveImport | None = None,
    source_hash: str = "",
) -> Match:
    """Store a record its reader checked as a recorded match between ``player1``
    (the record's side 0, White) and ``player2``; call inside an atomic block, which
    rolls back whatever this raises (it makes no savepoint of its own).

    The games go through ``record_new_match`` (``record_games`` for the match
    created here), which checks every turn against the engine again, as
    ``record_turn`` does, and writes each game at once.  The
    values stored are the engine's: what the file writes otherwise without
    changing who won the match (a capped or wrong ``Wins n``, a score line, an
    empty name, a player resigning the whole match) is kept as
    ``Match.import_warnings`` (line, code, data) and shown on the match page.  A
    match resigned as a whole goes to the resigner's opponent at the match length.
    A finished match opens its result report for both players to confirm (a money
    session is closed at its final score).  ``scored_otherwise``: the refusal when
    the discipline scores games otherwise than the file (``%(discipline)s``).

    The match is dated by the file (``event_moment``: started and finished then),
    else by its import; ``archive``, the archive it comes from, is kept on it."""
    variant = parsed.settings.variant
    if variant.name != discipline.variant:
        raise ValidationError(
            _("The match file is %(file)s, but %(discipline)s is another game.")
            % {"file": variant_label(variant.name), "discipline": discipline}
        )
    # The match and its whole record are one write in the caller's transaction
    # (``new_match``, ``record_new_match``: no savepoint, lock nor query of rows the
    # new match cannot have yet), its end and result written once.
    match = new_match(
        by=by,
        player1=player1,
        player2=player2,
        discipline=discipline,
        length=parsed.length,
        federation=federation,
        recorded=True,
        archive=archive,
        source_hash=source_hash,
    )
    if adapters.preset_for(match).name != parsed.settings.rules.preset.name:
        raise ValidationError(scored_otherwise % {"discipline": discipline})
    games = [game_turns(game) for game in parsed.games]
    warnings = [{"line": w.line, "code": w.code, "data": dict(w.data)} for w in parsed.warnings]
    moment = event_moment(parsed.settings.headers)
    # Dated by the file (in this transaction: the rating task owed by a result made
    # official by the record runs after the commit, so it reads the file's date).  A
    # match resigned as a whole or a money session ends below, and is dated then.
    dated: dict[str, Any] = {} if moment is None else {"started_at": moment}
    # Saved with the match's end when the record ends it.
    ended = {"import_warnings": warnings, **dated}
    if moment is not None:
        ended["finished_at"] = moment
    try:
        stored = record_new_match(match, games, imported_by=by, also=ended)
    except RecordingError as error:
        # The reader checked every play already: only the match's own rules differ.
        raise ValidationError(
            _("The match file is not valid: %(reason)s") % {"reason": error.reason},
            code=error.code,
        ) from error
    if not stored.finished:
        Match.objects.filter(pk=match.pk).update(import_warnings=warnings, **dated)
        match.refresh_from_db()
    if parsed.resigned is not None and match.state != MatchState.FINISHED:
        # The whole match resigned: it goes to the opponent (as a loss on time does).
        score = list(parsed.final_score)
        _finish_recorded_match(match, score[0], score[1])
        match.refresh_from_db()
    if match.length == 0 and match.state != MatchState.FINISHED:
        end_session(match, by=None)
        match.refresh_from_db()
    if moment is not None and match.finished_at is not None and match.finished_at != moment:
        Match.objects.filter(pk=match.pk).update(finished_at=moment)
        match.finished_at = moment
    return match
