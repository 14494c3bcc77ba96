"""Matches, games, turns, result reports and disputes.

A match between two players is recorded game by game and, where the
players want, turn by turn through the rules engine.  Player 1 is the
engine's side 0 and plays White, player 2 Black, except where each game's
opening names the colours (Nauka i Zhizn: the higher thrower plays White).
A result becomes official only when it is confirmed: by the opponent of the
reporter (for an opponent without an account, by a club or federation
official), by an arbiter's decision, by an organizer's override with a
written reason, when an arbiter or organizer enters it, or when a match
recorded side by side ends; every version is kept.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from clubs.models import Discipline, Federation, Player
from engine.rules.variants import VariantOptions, variant_options

# Player 1 plays the engine's White, player 2 Black (side, winner, proposer...).
PLAYER_CHOICES = [(1, _("player 1")), (2, _("player 2"))]


class MatchState(models.TextChoices):
    SCHEDULED = "scheduled", _("scheduled")
    PLAYING = "playing", _("playing")
    FINISHED = "finished", _("finished")
    CANCELLED = "cancelled", _("cancelled")


class ResultStatus(models.TextChoices):
    NONE = "none", _("no result yet")
    PENDING = "pending", _("awaiting confirmation")
    DISPUTED = "disputed", _("disputed")
    CONFIRMED = "confirmed", _("confirmed")


class ClockMode(models.TextChoices):
    NONE = "none", _("no clock")
    DELAY = "delay", _("delay")
    INCREMENT = "increment", _("increment")


class TimeControl(models.Model):
    """A reserve (fixed plus per match point) and a delay or increment per move."""

    clock_mode = models.CharField(
        _("clock"), max_length=10, choices=ClockMode.choices, default=ClockMode.NONE
    )
    clock_reserve_seconds = models.PositiveIntegerField(_("reserve (seconds)"), default=0)
    clock_per_point_seconds = models.PositiveIntegerField(
        _("reserve per match point (seconds)"), default=0
    )
    clock_move_seconds = models.PositiveIntegerField(
        _("delay or increment per move (seconds)"), default=0
    )

    class Meta:
        abstract = True


class Match(TimeControl):
    player1 = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="matches_as_player1",
        verbose_name=_("player 1"),
    )
    player2 = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="matches_as_player2",
        verbose_name=_("player 2"),
    )
    discipline = models.ForeignKey(
        Discipline, on_delete=models.PROTECT, related_name="matches", verbose_name=_("discipline")
    )
    federation = models.ForeignKey(
        Federation,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="matches",
        verbose_name=_("federation"),
    )
    length = models.PositiveSmallIntegerField(
        _("match length"), help_text=_("Points to win; 0 for a money session.")
    )
    recorded = models.BooleanField(_("recorded move by move"), default=False)
    state = models.CharField(
        _("state"), max_length=10, choices=MatchState.choices, default=MatchState.SCHEDULED
    )
    result_status = models.CharField(
        _("result"), max_length=10, choices=ResultStatus.choices, default=ResultStatus.NONE
    )
    # The official result (from the confirmed report); empty until confirmed.
    score1 = models.PositiveSmallIntegerField(_("score of player 1"), null=True, blank=True)
    score2 = models.PositiveSmallIntegerField(_("score of player 2"), null=True, blank=True)
    winner = models.PositiveSmallIntegerField(
        _("winner"), null=True, blank=True, choices=PLAYER_CHOICES
    )
    forfeit = models.BooleanField(_("won by forfeit"), default=False)
    lost_on_time = models.BooleanField(_("lost on time"), default=False)
    # What an imported match file wrote otherwise than its plays give (a capped
    # or wrong "Wins n", a score line, an empty name, a resigned match): each
    # {"line", "code", "data"}, the sentence made when shown (base.engine_messages)
    # so that it reads in the viewer's language.
    import_warnings = models.JSONField(_("import warnings"), default=list, blank=True)
    # The archive a match was imported from (games.services.archives): a higher app
    # reads it (the ratings count such a match only if its archive was chosen to).
    archive = models.ForeignKey(
        "ArchiveImport",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="matches",
        verbose_name=_("imported from archive"),
    )
    # The imported file's content (games.services.matfiles.content_hash), so that
    # one file becomes one match in its federation, whether it came alone or in an
    # archive (the constraint decides between concurrent imports); empty otherwise.
    source_hash = models.CharField(
        _("imported file (SHA-256)"), max_length=64, blank=True, default=""
    )
    # The variant's options for this match (Soldiers' army and placement: a
    # tournament's house rules), over its discipline's; empty: the discipline's.
    variant_options = models.JSONField(_("variant options"), default=dict, blank=True)
    # Why the organizer cancelled the match (kept if a result is set on it later).
    cancel_reason = models.TextField(_("reason for cancelling"), blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True, verbose_name=_("cancelled at"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    # Scorer mode: one device enters both sides' actions (a game played over the
    # board).  Off, each player enters only their own side (games.permissions).
    # An arbiter switches it on as ``scorer``; or both players agree to it (one
    # proposes, ``scorer_proposed_by`` keeps their side until the other agrees),
    # and then ``scorer`` stays empty and either player enters for both.
    scorer_mode = models.BooleanField(_("scorer mode"), default=False)
    scorer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("scorer"),
    )
    scorer_proposed_by = models.PositiveSmallIntegerField(
        _("scorer mode proposed by"),
        null=True,
        blank=True,
        choices=PLAYER_CHOICES,
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(player1=models.F("player2")), name="match_two_different_players"
            ),
            models.UniqueConstraint(
                fields=["federation", "source_hash"],
                condition=~Q(source_hash=""),
                name="one_match_per_imported_file",
            ),
        ]
        # Rating pools read a discipline's matches in the order they finished.
        indexes = [models.Index(fields=["discipline", "finished_at"])]
        verbose_name = _("match")
        verbose_name_plural = _("matches")

    def __str__(self) -> str:
        length = _("money") if self.length == 0 else f"{self.length}"
        return f"{self.player1} — {self.player2} ({length})"

    @property
    def game_options(self) -> VariantOptions:
        """The options the engine's game rules take: the match's, else its discipline's."""
        if isinstance(self.variant_options, dict) and self.variant_options:
            return variant_options(self.variant_options)
        return self.discipline.game_options

    def player(self, number: int) -> Player:
        return self.player1 if number == 1 else self.player2

    def clock_reserve_ms(self) -> int:
        return 1000 * (self.clock_reserve_seconds + self.clock_per_point_seconds * self.length)


class GameEnd(models.TextChoices):
    BEAROFF = "bearoff", _("bear-off")
    PASS = "pass", _("double passed")
    RESIGN = "resign", _("resignation")
    TIME = "time", _("time")
    HIT = "hit", _("first hit")


class Game(models.Model):
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="games", verbose_name=_("match")
    )
    number = models.PositiveSmallIntegerField(_("game"), validators=[MinValueValidator(1)])
    score1_before = models.PositiveSmallIntegerField(
        default=0, verbose_name=_("score of player 1 before the game")
    )
    score2_before = models.PositiveSmallIntegerField(
        default=0, verbose_name=_("score of player 2 before the game")
    )
    crawford = models.BooleanField(_("Crawford game"), default=False)
    # Filled when the game ends.
    winner = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("winner"))
    result = models.CharField(_("result"), max_length=20, blank=True)
    multiplier = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("multiplier")
    )
    cube = models.PositiveIntegerField(default=1, verbose_name=_("cube"))
    points = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("points"))
    end = models.CharField(_("ended by"), max_length=10, choices=GameEnd.choices, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="game_number_once")]
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return f"{self.match} #{self.number}"

    @property
    def finished(self) -> bool:
        return self.winner is not None


class TurnKind(models.TextChoices):
    OPENING = "opening", _("opening roll")
    PLAY = "play", _("roll and play")
    DOUBLE = "double", _("double")
    TAKE = "take", _("take")
    PASS = "pass", _("pass")
    BEAVER = "beaver", _("beaver")
    RESIGN = "resign", _("resign")
    ACCEPT = "accept", _("accept resignation")
    REJECT = "reject", _("reject resignation")
    EXPLODE = "explode", _("explode the bomb")
    TIMEOUT = "timeout", _("loss on time")


class ClockSource(models.TextChoices):
    """Where a turn's clock readings come from."""

    # Charged by the server from its own time stamps (games.services.record_turn).
    SERVER = "server", _("server")
    # Read off the physical clock of a game played over the board, entered by an
    # arbiter or the scorer an arbiter appointed (games.permissions match.enter_clock).
    PHYSICAL = "physical", _("physical clock")


class Turn(models.Model):
    """One recorded action of a game, in order.  Undone turns stay, marked."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="turns", verbose_name=_("game")
    )
    number = models.PositiveIntegerField(_("turn"), validators=[MinValueValidator(1)])
    side = models.PositiveSmallIntegerField(_("side"), choices=PLAYER_CHOICES)
    kind = models.CharField(_("action"), max_length=10, choices=TurnKind.choices)
    dice = models.JSONField(_("dice"), default=list, blank=True)
    moves = models.CharField(_("moves"), max_length=200, blank=True)
    level = models.CharField(_("resignation level"), max_length=20, blank=True)
    # GNU Backgammon's Position ID of the position after the turn; empty in a
    # Soldiers game, whose classes and pins no Position ID holds: its canonical
    # position text (RULES §3.1) is in ``position_text`` instead.
    position_id = models.CharField(_("position after"), max_length=20, blank=True)
    position_text = models.CharField(_("position after, as text"), max_length=300, blank=True)
    clock1_ms = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("clock of player 1 (ms)")
    )
    clock2_ms = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("clock of player 2 (ms)")
    )
    clock_source = models.CharField(
        _("clock readings from"),
        max_length=10,
        choices=ClockSource.choices,
        default=ClockSource.SERVER,
    )
    # Who read the physical clock (empty for the server's own readings).
    clock_entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("clock readings entered by"),
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("recorded by"),
    )
    recorded_at = models.DateTimeField(auto_now_add=True, verbose_name=_("recorded at"))
    undone_at = models.DateTimeField(null=True, blank=True, verbose_name=_("undone at"))
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("undone by"),
    )

    class Meta:
        ordering = ["game", "number", "id"]
        constraints = [
            # The turn number guards concurrent submissions: one live turn per number.
            models.UniqueConstraint(
                fields=["game", "number"],
                condition=Q(undone_at__isnull=True),
                name="one_live_turn_per_number",
            )
        ]
        verbose_name = _("turn")
        verbose_name_plural = _("turns")

    def __str__(self) -> str:
        return f"{self.game} t{self.number} {self.kind}"


class ReportStatus(models.TextChoices):
    PENDING = "pending", _("awaiting confirmation")
    CONFIRMED = "confirmed", _("confirmed")
    DISPUTED = "disputed", _("disputed")
    REJECTED = "rejected", _("rejected by the arbiter")
    SUPERSEDED = "superseded", _("superseded")


class ReportSource(models.TextChoices):
    PLAYER = "player", _("player")
    RECORD = "record", _("move-by-move record")
    ARBITER = "arbiter", _("arbiter's decision")
    OVERRIDE = "override", _("organizer's override")
    # An arbiter or organizer who does not play in the match entered the result:
    # official at once, no confirmation step.
    OFFICIAL = "official", _("entered by the arbiter or organizer")


class ResultReport(models.Model):
    """One version of a match result; only a confirmed one counts."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="reports", verbose_name=_("match")
    )
    source = models.CharField(_("source"), max_length=10, choices=ReportSource.choices)
    reported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("reported by"),
    )
    # Which player reported (1 or 2); empty for arbiters and organizers.
    reporter_side = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("reporter's side")
    )
    score1 = models.PositiveSmallIntegerField(_("score of player 1"))
    score2 = models.PositiveSmallIntegerField(_("score of player 2"))
    games = models.JSONField(_("game log"), default=list, blank=True)
    mat_text = models.TextField(_("match file"), blank=True)
    reason = models.TextField(_("reason"), blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=ReportStatus.choices, default=ReportStatus.PENDING
    )
    deadline = models.DateTimeField(_("confirm by"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    decided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("decided at"))

    class Meta:
        ordering = ["match", "-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match"],
                condition=Q(status="confirmed"),
                name="one_confirmed_report_per_match",
            ),
            models.UniqueConstraint(
                fields=["match"],
                condition=Q(status__in=["pending", "disputed"]),
                name="one_open_report_per_match",
            ),
        ]
        verbose_name = _("result report")
        verbose_name_plural = _("result reports")

    def __str__(self) -> str:
        return f"{self.match}: {self.score1}–{self.score2} ({self.get_status_display()})"


class ResponseKind(models.TextChoices):
    CONFIRM = "confirm", _("confirmed")
    DISPUTE = "dispute", _("disputed")
    UPHOLD = "uphold", _("upheld by the arbiter")
    OVERTURN = "overturn", _("overturned by the arbiter")
    AUTO = "auto", _("confirmed after the deadline")
    # For a player without an account, by a club or federation official.
    OFFICIAL = "official", _("confirmed by an official")


class ReportResponse(models.Model):
    report = models.ForeignKey(
        ResultReport, on_delete=models.CASCADE, related_name="responses", verbose_name=_("report")
    )
    kind = models.CharField(_("response"), max_length=10, choices=ResponseKind.choices)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    reason = models.TextField(_("reason"), blank=True)
    at = models.DateTimeField(auto_now_add=True, verbose_name=_("when"))

    class Meta:
        ordering = ["report", "at", "id"]
        verbose_name = _("report response")
        verbose_name_plural = _("report responses")

    def __str__(self) -> str:
        return f"{self.report}: {self.get_kind_display()}"


class UndoRequest(models.Model):
    """A player's request to take back the last turn; the opponent agrees or not."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="undo_requests", verbose_name=_("match")
    )
    turn = models.ForeignKey(
        Turn, on_delete=models.CASCADE, related_name="undo_requests", verbose_name=_("turn")
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    requester_side = models.PositiveSmallIntegerField(verbose_name=_("requester's side"))
    agreed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("agreed by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed at"))

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("undo request")
        verbose_name_plural = _("undo requests")

    def __str__(self) -> str:
        return f"undo {self.turn}"


# --- Whole archives of match files (games.services.archives): a zip uploaded by a
# federation's or club's admin, scanned for its players' names, reviewed, imported.


class ArchiveState(models.TextChoices):
    UPLOADED = "uploaded", _("uploaded")
    SCANNED = "scanned", _("names read")
    REVIEWING = "reviewing", _("names being reviewed")
    IMPORTING = "importing", _("importing")
    DONE = "done", _("done")
    FAILED = "failed", _("failed")


class ArchiveStorage(FileSystemStorage):
    """Archives are kept out of MEDIA_ROOT, which the development server serves: a
    federation's matches are not public files.  The folder is the ``ARCHIVE_ROOT``
    setting (from the environment), read at each use (not once at start-up), so a
    setting changed later (a test's) is the one followed."""

    @property  # type: ignore[override]
    def base_location(self) -> str:
        return str(settings.ARCHIVE_ROOT)

    @property  # type: ignore[override]
    def location(self) -> str:
        return os.path.abspath(self.base_location)


def archive_storage() -> FileSystemStorage:
    return ArchiveStorage()


class ArchiveImport(models.Model):
    """A zip of match files and how far its import went; the counts are updated
    with each file (in that file's transaction) so a page can show the progress."""

    federation = models.ForeignKey(
        Federation,
        on_delete=models.PROTECT,
        related_name="archive_imports",
        verbose_name=_("federation"),
    )
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="archive_imports",
        verbose_name=_("club"),
    )
    discipline = models.ForeignKey(
        Discipline, on_delete=models.PROTECT, related_name="+", verbose_name=_("discipline")
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("uploaded by"),
    )
    file = models.FileField(_("archive"), upload_to="%Y/%m/", storage=archive_storage)
    original_name = models.CharField(_("file name"), max_length=255, blank=True)
    state = models.CharField(
        _("state"), max_length=10, choices=ArchiveState.choices, default=ArchiveState.UPLOADED
    )
    # Why the job failed (FAILED): a code, the sentence made when shown.
    failure = models.CharField(_("failure"), max_length=40, blank=True)
    files_total = models.PositiveIntegerField(_("files"), default=0)
    files_scanned = models.PositiveIntegerField(_("files read"), default=0)
    files_done = models.PositiveIntegerField(_("files done"), default=0)
    imported = models.PositiveIntegerField(_("imported"), default=0)
    warnings = models.PositiveIntegerField(_("imported with warnings"), default=0)
    refused = models.PositiveIntegerField(_("refused"), default=0)
    duplicate = models.PositiveIntegerField(_("already imported"), default=0)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("match archive")
        verbose_name_plural = _("match archives")

    def __str__(self) -> str:
        return self.original_name or f"archive {self.pk}"


class ArchiveFileState(models.TextChoices):
    PENDING = "pending", _("pending")
    IMPORTED = "imported", _("imported")
    WARNINGS = "warnings", _("imported with warnings")
    REFUSED = "refused", _("refused")
    DUPLICATE = "duplicate", _("already imported")


class ArchiveFile(models.Model):
    """One member of an archive and what became of it.  The content hash is unique
    among the federation's imported files (a constraint, so two jobs at once cannot
    both import a match): a match file is imported once."""

    archive = models.ForeignKey(
        ArchiveImport, on_delete=models.CASCADE, related_name="files", verbose_name=_("archive")
    )
    # The archive's federation again, for the constraint below.
    federation = models.ForeignKey(
        Federation, on_delete=models.CASCADE, related_name="+", verbose_name=_("federation")
    )
    index = models.PositiveIntegerField(_("position in the archive"))
    name = models.CharField(_("file name"), max_length=500)
    size = models.PositiveIntegerField(_("size"), default=0)
    sha256 = models.CharField(_("content hash"), max_length=64, blank=True)
    scanned = models.BooleanField(_("read"), default=False)
    names = models.JSONField(_("players as written"), default=list, blank=True)
    state = models.CharField(
        _("state"),
        max_length=10,
        choices=ArchiveFileState.choices,
        default=ArchiveFileState.PENDING,
    )
    match = models.ForeignKey(
        Match,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("match"),
    )
    # A refusal: where (line, or game and turn in the data) and why, as a code and
    # its data; the sentence is made when shown (games.services.archives).
    refusal_line = models.PositiveIntegerField(_("line"), null=True, blank=True)
    refusal_code = models.CharField(_("reason"), max_length=60, blank=True)
    refusal_data = models.JSONField(_("data of the reason"), default=dict, blank=True)
    warning_count = models.PositiveIntegerField(_("warnings"), default=0)

    class Meta:
        ordering = ["archive", "index"]
        constraints = [
            models.UniqueConstraint(fields=["archive", "index"], name="archive_file_index_once"),
            models.UniqueConstraint(
                fields=["federation", "sha256"],
                condition=Q(state__in=["imported", "warnings"]),
                name="archive_match_imported_once",
            ),
        ]
        indexes = [models.Index(fields=["federation", "sha256"])]
        verbose_name = _("archive file")
        verbose_name_plural = _("archive files")

    def __str__(self) -> str:
        return self.name


class ArchiveName(models.Model):
    """A player's name as the archive's files write it, and who it is: proposed
    from the federation's players across scripts, decided by the admin."""

    class Decision(models.TextChoices):
        UNDECIDED = "", _("to decide")
        PLAYER = "player", _("an existing player")
        NEW = "new", _("a new player")
        SKIP = "skip", _("do not import their matches")

    archive = models.ForeignKey(
        ArchiveImport, on_delete=models.CASCADE, related_name="names", verbose_name=_("archive")
    )
    name = models.CharField(_("name as written"), max_length=200, blank=True)
    files = models.PositiveIntegerField(_("files"), default=0)
    # The federation's players whose name reads alike (either script, any order).
    candidates = models.JSONField(_("players of that name"), default=list, blank=True)
    decision = models.CharField(
        _("decision"), max_length=10, choices=Decision.choices, blank=True, default=""
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("player"),
    )

    class Meta:
        ordering = ["archive", "name"]
        constraints = [
            models.UniqueConstraint(fields=["archive", "name"], name="archive_name_once")
        ]
        verbose_name = _("name in an archive")
        verbose_name_plural = _("names in an archive")

    def __str__(self) -> str:
        return self.name
