"""Whole archives of match files (issue 16): a zip uploaded by a federation's
admin is scanned, its players' names reviewed, and imported by Celery jobs; a
refused file leaves no rows, a match file is imported once, hostile zips are
refused.  Every zip and match file is made here."""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import current_app as celery_app
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext

from clubs import permissions
from clubs.models import Player, Role
from engine.records.matfile import parse_mat
from games import services
from games.models import (
    ArchiveFile,
    ArchiveFileState,
    ArchiveImport,
    ArchiveName,
    ArchiveState,
    Game,
    Match,
    Turn,
)
from games.services import archives
from games.views import archives as archive_pages
from tests.engine.test_matfile import Dialect, random_match, write_mat
from tests.factories import (
    ClubFactory,
    DisciplineFactory,
    FederationFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.games.xg_writer import write_xg

pytestmark = pytest.mark.django_db

# An illegal play on line 6: 8/4 with a 3 and a 1.
ILLEGAL = """\
; [Event "Club night"]
 3 point match

 Game 1
 Anna : 0                  Bob : 0
  1) 31: 8/4 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point
"""

# Galaxy writes "Wins 2" for a dropped double worth 1: imported, with a warning.
WRONG_VALUE = """\
 3 point match

 Game 1
 Anna : 0                  Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 2 point

 Game 2
 Anna : 2                  Bob : 0
  1)                             64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point
"""


def mat(seed: int, players: tuple[str, str], length: int = 3) -> bytes:
    """A legal match written as GNU Backgammon writes a .mat file."""
    generated = random_match(seed, length=length, players=players, resign_rate=0.0)
    return write_mat(generated, Dialect("gnubg")).encode()


def zipped(members: list[tuple[str, bytes]], name: str = "archive.zip") -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members:
            archive.writestr(member, data)
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="application/zip")


@pytest.fixture(autouse=True)
def archive_root(settings: Any, tmp_path: Path) -> Path:
    settings.ARCHIVE_ROOT = tmp_path / "archives"
    return Path(settings.ARCHIVE_ROOT)


@pytest.fixture
def eager() -> Iterator[None]:
    """Celery runs the owed tasks at once, in this process, raising what they raise."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = conf.task_eager_propagates = True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


class World:
    def __init__(self) -> None:
        self.federation = FederationFactory()
        self.discipline = DisciplineFactory()
        self.admin = UserFactory()
        grant(self.admin, Role.FEDERATION_ADMIN, self.federation)
        # Written "Mamedov Elchin" in the files: the same person across scripts.
        self.elchin = PlayerFactory(
            federation=self.federation, name_native="Эльчин Мамедов", name_latin="Elchin Mamedov"
        )
        self.bob = PlayerFactory(federation=self.federation, name_native="Bob", name_latin="Bob")


@pytest.fixture
def world() -> World:
    return World()


def upload(
    world: World, members: list[tuple[str, bytes]], capture: Any, **kw: Any
) -> ArchiveImport:
    with capture(execute=True):
        archive = services.upload_archive(
            zipped(members),
            by=kw.get("by", world.admin),
            federation=world.federation,
            discipline=kw.get("discipline", world.discipline),
            club=kw.get("club"),
        )
    archive.refresh_from_db()
    return archive


def run_import(world: World, archive: ArchiveImport, capture: Any) -> ArchiveImport:
    with capture(execute=True):
        services.start_import(archive, by=world.admin)
    archive.refresh_from_db()
    return archive


def files(archive: ArchiveImport) -> dict[str, ArchiveFile]:
    return {f.name: f for f in archive.files.all()}


def test_an_archive_is_scanned_reviewed_and_imported_with_a_report_per_file(
    world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    record = parse_mat(mat(7, ("Bob", "Mamedov Elchin")).decode())
    members = [
        ("club/a.mat", mat(1, ("Mamedov Elchin", "Zoe New"))),
        ("club/b.txt", mat(2, ("Zoe New", "Мамедов Эльчин"))),
        ("club/", b""),
        ("__MACOSX/club/._a.mat", b"\x00\x05\x16\x07"),
        ("club/.DS_Store", b"\x00\x00"),
        ("galaxy.mat", WRONG_VALUE.encode()),
        ("illegal.mat", ILLEGAL.encode()),
        ("notes.pdf", b"%PDF-1.4"),
        ("copy/a.mat", mat(1, ("Mamedov Elchin", "Zoe New")).replace(b"\n", b"\r\n")),
        ("xg/c.xg", write_xg(record)),
    ]
    archive = upload(world, members, django_capture_on_commit_callbacks)

    # The scan read each file as far as its names: the one that is no match file
    # is refused already; the one with an illegal play is the import's to refuse.
    assert archive.state == ArchiveState.SCANNED
    assert (archive.files_total, archive.files_scanned) == (7, 7)
    assert (archive.refused, archive.files_done) == (1, 1)
    assert files(archive)["illegal.mat"].state == ArchiveFileState.PENDING
    names = {row.name: row for row in archive.names.all()}
    assert set(names) == {"Mamedov Elchin", "Zoe New", "Мамедов Эльчин", "Anna", "Bob"}
    # Across scripts and word order, one player of the federation: proposed as decided.
    for written in ("Mamedov Elchin", "Мамедов Эльчин"):
        assert (names[written].decision, names[written].player) == ("player", world.elchin)
    assert (names["Bob"].player, names["Zoe New"].decision, names["Anna"].decision) == (
        world.bob,
        "",
        "",
    )
    # The copy of a.mat counts: which of the two is imported is the import's to say.
    assert names["Zoe New"].files == 3 and names["Mamedov Elchin"].files == 3
    with pytest.raises(ValidationError) as undecided:
        services.start_import(archive, by=world.admin)
    assert "Anna" in str(undecided.value) and "Zoe New" in str(undecided.value)

    services.review_names(archive, {"Zoe New": "new", "Anna": "new"}, by=world.admin)
    archive = run_import(world, archive, django_capture_on_commit_callbacks)

    assert archive.state == ArchiveState.DONE and archive.finished_at is not None
    counts = (archive.imported, archive.warnings, archive.refused, archive.duplicate)
    assert counts == (3, 1, 2, 1)
    assert archive.files_done == archive.files_total == 7
    report = files(archive)
    zoe = Player.objects.get(federation=world.federation, name_latin="Zoe New")
    a = report["club/a.mat"]
    assert a.state == ArchiveFileState.IMPORTED and a.match is not None
    assert (a.match.player1, a.match.player2, a.match.federation) == (
        world.elchin,
        zoe,
        world.federation,
    )
    assert report["club/b.txt"].match.player2 == world.elchin  # type: ignore[union-attr]
    assert report["copy/a.mat"].state == ArchiveFileState.DUPLICATE  # CRLF: the same match
    assert report["copy/a.mat"].match is None
    galaxy = report["galaxy.mat"]
    assert galaxy.state == ArchiveFileState.WARNINGS and galaxy.match is not None
    assert galaxy.warning_count == len(galaxy.match.import_warnings) > 0
    xg = report["xg/c.xg"]
    assert xg.state == ArchiveFileState.IMPORTED
    assert (xg.match.player1, xg.match.player2) == (world.bob, world.elchin)  # type: ignore[union-attr]
    assert xg.match.games.count() == len(record.games)  # type: ignore[union-attr]
    illegal = report["illegal.mat"]
    assert (illegal.state, illegal.refusal_line, illegal.match) == ("refused", 6, None)
    assert archives.refusal_message(illegal).startswith("line 6: ")
    pdf = report["notes.pdf"]
    assert pdf.state == "refused"
    assert "only .mat, .txt, .sgf and .xg" in archives.refusal_message(pdf)
    assert Match.objects.filter(federation=world.federation).count() == 4
    progress = archive_pages.progress(ArchiveImport.objects.get(pk=archive.pk))
    assert (progress["percent"], progress["finished"], progress["state"]) == (100, True, "done")


def test_each_file_is_stored_in_a_few_statements_its_result_official_once(
    world: World,
    eager: None,
    django_capture_on_commit_callbacks: Any,
    heard: list[int],
    monkeypatch: Any,
) -> None:
    """An archive's match is created in the file's transaction, so nothing is locked or
    asked of rows it cannot have yet, and its result is written official at once
    (matfiles.store_record): the same rows as a record's report filed and confirmed."""
    members = [(f"m{n}.mat", mat(20 + n, ("Bob", "Mamedov Elchin"))) for n in range(3)]
    archive = upload(world, members, django_capture_on_commit_callbacks)
    statements: list[list[str]] = []
    import_one = archives._import_one

    def counted(*args: Any, **kwargs: Any) -> None:
        with CaptureQueriesContext(connection) as queries:
            import_one(*args, **kwargs)
        # The turns are one COPY on PostgreSQL (SQLite inserts them in batches).
        statements.append(
            [q["sql"] for q in queries.captured_queries if '"games_turn"' not in q["sql"]]
        )

    monkeypatch.setattr(archives, "_import_one", counted)
    archive = run_import(world, archive, django_capture_on_commit_callbacks)

    assert (archive.imported, archive.refused) == (3, 0)
    # The file taken and asked for a duplicate, a savepoint, the match, its games, its
    # report, its end, the file's outcome, the savepoint released, the archive's counts;
    # here the file's transaction is a savepoint of the test's too (two more), and the
    # first file reads the uploader's roles, kept for the others.
    assert [len(sql) for sql in statements] == [13, 12, 12], [s[:60] for s in statements[1]]
    matches = list(Match.objects.filter(archive=archive).order_by("pk"))
    for match in matches:
        assert (match.state, match.result_status) == ("finished", "confirmed")
        assert match.started_at is not None and match.finished_at is not None
        reports = list(match.reports.values_list("source", "status", "deadline", "reporter_side"))
        assert reports == [("record", "confirmed", None, None)]
        report = match.reports.get()
        assert report.decided_at is not None and report.reported_by is None
        assert (report.score1, report.score2) == (match.score1, match.score2)
        assert match.winner == (1 if match.score1 > match.score2 else 2)  # type: ignore[operator]
        assert [g["number"] for g in report.games] == list(range(1, match.games.count() + 1))
    assert sorted(heard) == [m.pk for m in matches]


def test_the_scan_refuses_a_file_that_breaks_before_its_names_the_import_the_rest(
    world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    """The scan reads a ``.mat`` only as far as game 1's score line: what breaks
    before it is refused at once with its line; a file that breaks later is read
    whole, and refused, by the import."""
    no_score = " 3 point match\n\n Game 1\n  1) 31: 8/5 6/5\n"
    members = [("no-score.mat", no_score.encode()), ("illegal.mat", ILLEGAL.encode())]
    archive = upload(world, members, django_capture_on_commit_callbacks)
    scanned = files(archive)
    assert (scanned["no-score.mat"].state, scanned["no-score.mat"].refusal_line) == (
        "refused",
        4,
    )
    assert scanned["no-score.mat"].refusal_code == "no_score_line"
    assert (scanned["illegal.mat"].state, scanned["illegal.mat"].names) == (
        "pending",
        ["Anna", "Bob"],
    )
    services.review_names(archive, {"Anna": world.elchin}, by=world.admin)
    archive = run_import(world, archive, django_capture_on_commit_callbacks)
    illegal = files(archive)["illegal.mat"]
    assert (illegal.state, illegal.refusal_line, archive.refused, archive.imported) == (
        "refused",
        6,
        2,
        0,
    )
    assert archive.state == ArchiveState.DONE


def test_a_file_refused_while_it_is_stored_leaves_no_rows(
    world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    """The match and its first games are written before the discipline refuses
    the cube: the file's savepoint takes them all back."""
    no_cube = DisciplineFactory(code="short-nocube", name="Short, no cube", cube=False)
    members = [("cube.mat", WRONG_VALUE.encode()), ("skipped.mat", mat(5, ("Bob", "Nobody")))]
    archive = upload(world, members, django_capture_on_commit_callbacks, discipline=no_cube)
    services.review_names(archive, {"Anna": world.elchin, "Nobody": "skip"}, by=world.admin)
    before = (Match.objects.count(), Game.objects.count(), Turn.objects.count())
    archive = run_import(world, archive, django_capture_on_commit_callbacks)
    refused = files(archive)["cube.mat"]
    assert (refused.state, refused.match, archive.refused, archive.imported) == (
        "refused",
        None,
        2,
        0,
    )
    assert "cube" in archives.refusal_message(refused).casefold()
    skipped = files(archive)["skipped.mat"]
    assert archives.refusal_message(skipped) == "“Nobody” was left out at the review of the names."
    assert (Match.objects.count(), Game.objects.count(), Turn.objects.count()) == before


def test_a_bug_while_a_file_is_stored_refuses_that_file_and_the_archive_goes_on(
    world: World, eager: None, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    """An unexpected error storing one file (a bug, not the file's fault) refuses
    that file with no rows left, and the others are imported: the archive ends."""
    members = [("a.mat", mat(5, ("Bob", "Anna"))), ("b.mat", mat(6, ("Anna", "Bob")))]
    archive = upload(world, members, django_capture_on_commit_callbacks)
    services.review_names(archive, {"Anna": world.elchin}, by=world.admin)
    real_store = archives.store_record
    calls: list[int] = []

    def failing_first(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            real_store(*args, **kwargs)  # rows written, then the bug
            raise TypeError("a bug")
        return real_store(*args, **kwargs)

    monkeypatch.setattr(archives, "store_record", failing_first)
    before = Match.objects.count()
    archive = run_import(world, archive, django_capture_on_commit_callbacks)
    states = sorted(f.state for f in files(archive).values())
    assert states == ["imported", "refused"]
    assert (archive.state, archive.imported, archive.refused) == ("done", 1, 1)
    assert Match.objects.count() == before + 1


def test_the_same_match_is_imported_once_across_archives(
    world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    data = mat(3, ("Bob", "Mamedov Elchin"))
    first = upload(world, [("x.mat", data), ("y.mat", data)], django_capture_on_commit_callbacks)
    first = run_import(world, first, django_capture_on_commit_callbacks)
    assert (first.imported, first.duplicate) == (1, 1)
    second = upload(world, [("again/x.mat", data)], django_capture_on_commit_callbacks)
    # Known at the scan: the federation imported this content already.
    assert (second.duplicate, second.files_done) == (1, 1)
    second = run_import(world, second, django_capture_on_commit_callbacks)
    assert second.state == ArchiveState.DONE
    assert files(second)["again/x.mat"].state == ArchiveFileState.DUPLICATE
    assert Match.objects.filter(federation=world.federation).count() == 1
    # Another federation's archive imports its own copy.
    other = World()
    third = upload(other, [("x.mat", data)], django_capture_on_commit_callbacks)
    third = run_import(other, third, django_capture_on_commit_callbacks)
    assert third.imported == 1


def test_two_jobs_at_once_import_a_match_once_by_the_constraint(
    world: World, eager: None, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    """The check before storing passes for both jobs; the database refuses the
    second: its match is taken back and the file is a duplicate."""
    data = mat(4, ("Bob", "Mamedov Elchin"))
    first = upload(world, [("x.mat", data)], django_capture_on_commit_callbacks)
    second = upload(world, [("x.mat", data)], django_capture_on_commit_callbacks)
    first = run_import(world, first, django_capture_on_commit_callbacks)
    assert first.imported == 1
    calls: list[int] = []

    def not_yet(file: ArchiveFile) -> bool:
        calls.append(file.pk)
        return len(calls) > 1  # before storing: no; after the constraint refused: yes

    monkeypatch.setattr(archives, "_imported_elsewhere", not_yet)
    ArchiveFile.objects.filter(archive=second).update(state=ArchiveFileState.PENDING)
    ArchiveImport.objects.filter(pk=second.pk).update(duplicate=0, files_done=0)
    second = run_import(world, second, django_capture_on_commit_callbacks)
    assert (second.imported, second.duplicate) == (0, 1)
    assert files(second)["x.mat"].match is None
    assert Match.objects.filter(federation=world.federation).count() == 1
    with pytest.raises(IntegrityError), transaction.atomic():
        ArchiveFile.objects.filter(archive=second).update(state=ArchiveFileState.IMPORTED)


def test_running_the_jobs_again_doubles_nothing(
    world: World, eager: None, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    members = [(f"{n}.mat", mat(10 + n, ("Bob", "Mamedov Elchin"))) for n in range(3)]
    archive = upload(world, members, django_capture_on_commit_callbacks)
    assert services.scan_archive(archive.pk) == "nothing to scan"
    # The job dies on the second file (a lost connection): the first stays imported.
    stored = archives.store_record
    seen: list[int] = []

    def flaky(*args: Any, **kwargs: Any) -> Match:
        seen.append(1)
        if len(seen) == 2:
            raise OperationalError("server closed the connection")
        return stored(*args, **kwargs)

    monkeypatch.setattr(archives, "store_record", flaky)
    with django_capture_on_commit_callbacks(execute=False):
        services.start_import(archive, by=world.admin)
    with pytest.raises(OperationalError):
        services.import_archive(archive.pk)
    archive.refresh_from_db()
    assert (archive.state, archive.imported, archive.files_done) == ("importing", 1, 1)
    # Retried (as Celery retries a transient error), then delivered twice more.
    for _again in range(3):
        services.import_archive(archive.pk)
    archive.refresh_from_db()
    assert (archive.state, archive.imported, archive.files_done) == ("done", 3, 3)
    assert Match.objects.filter(federation=world.federation).count() == 3
    assert services.import_archive(archive.pk) == "nothing to import"
    with pytest.raises(ValidationError):
        services.start_import(archive, by=world.admin)


@pytest.mark.parametrize(
    ("members", "code"),
    [
        ([("../evil.mat", b"x")], "archive_path"),
        ([("/etc/evil.mat", b"x")], "archive_path"),
        ([("a\\..\\evil.mat", b"x")], "archive_path"),
        ([("C:evil.mat", b"x")], "archive_path"),
        ([("only/", b"")], "archive_empty"),
    ],
)
def test_hostile_archives_are_refused_and_nothing_is_kept(
    world: World, archive_root: Path, members: list[tuple[str, bytes]], code: str
) -> None:
    with pytest.raises(archives.ArchiveRefused) as refused:
        services.upload_archive(
            zipped(members),
            by=world.admin,
            federation=world.federation,
            discipline=world.discipline,
        )
    assert refused.value.code == code
    assert not ArchiveImport.objects.exists()
    assert not archive_root.exists() or not any(archive_root.rglob("*.zip"))


def test_not_a_zip_too_many_files_and_too_large_are_refused(world: World, monkeypatch: Any) -> None:
    def refusal(upload: Any) -> str:
        with pytest.raises(archives.ArchiveRefused) as refused:
            services.upload_archive(
                upload, by=world.admin, federation=world.federation, discipline=world.discipline
            )
        return str(refused.value.code)

    assert refusal(SimpleUploadedFile("a.zip", b"PK\x03\x04 not really")) == "not_zip"
    assert refusal(SimpleUploadedFile("a.zip", b"")) == "not_zip"
    many = [(f"{n}.mat", b"") for n in range(archives.MAX_MEMBERS + 1)]
    assert refusal(zipped(many)) == "archive_too_many"
    # Counted from the directory's end record before it is read.
    monkeypatch.setattr(archives, "MAX_ENTRIES", 5)
    assert refusal(zipped([(f"{n}/", b"") for n in range(6)])) == "archive_too_many"
    monkeypatch.undo()
    # Unpacking to more than the bound, counted from the directory before reading.
    monkeypatch.setattr(archives, "MAX_TOTAL_BYTES", 1_000_000)
    big = [(f"{n}.mat", b"0" * 400_000) for n in range(3)]
    assert refusal(zipped(big)) == "archive_too_large"
    assert not ArchiveImport.objects.exists()


def test_a_bomb_member_is_refused_without_being_inflated(
    world: World, settings: Any, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    settings.MATCH_FILE_MAX_BYTES = 10_000
    members = [("bomb.mat", b"\x00" * 5_000_000), ("ok.mat", mat(5, ("Bob", "Mamedov Elchin")))]
    archive = upload(world, members, django_capture_on_commit_callbacks)
    bomb = files(archive)["bomb.mat"]
    assert (bomb.state, bomb.refusal_code) == ("refused", "file_too_large")
    assert "at most" in archives.refusal_message(bomb)
    archive = run_import(world, archive, django_capture_on_commit_callbacks)
    assert (archive.imported, archive.refused) == (1, 1)


def test_only_the_federations_admins_import_an_archive(
    world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    data = [("x.mat", mat(6, ("Bob", "Zed")))]
    other_admin = UserFactory()
    grant(other_admin, Role.FEDERATION_ADMIN, FederationFactory())
    player = PlayerFactory(federation=world.federation, user=UserFactory())
    for user in (other_admin, player.user, UserFactory()):
        with pytest.raises(PermissionDenied):
            services.upload_archive(
                zipped(data), by=user, federation=world.federation, discipline=world.discipline
            )
    archive = upload(world, data, django_capture_on_commit_callbacks)
    with pytest.raises(PermissionDenied):
        services.review_names(archive, {"Zed": "new"}, by=other_admin)
    services.review_names(archive, {"Zed": "new"}, by=world.admin)
    with pytest.raises(PermissionDenied):
        services.start_import(archive, by=other_admin)
    # A player of another federation is nobody's choice here.
    with pytest.raises(ValidationError):
        services.review_names(archive, {"Zed": PlayerFactory()}, by=world.admin)


def test_a_club_admin_imports_for_the_club_and_new_players_join_it(
    world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    club = ClubFactory(federation=world.federation)
    club_admin = UserFactory()
    grant(club_admin, Role.CLUB_ADMIN, club)
    data = [("x.mat", mat(8, ("Иван Петров", "Ivan Petrov"))), ("y.mat", mat(9, ("Zed", "Ann")))]
    with django_capture_on_commit_callbacks(execute=True):
        archive = services.upload_archive(
            zipped(data),
            by=club_admin,
            federation=world.federation,
            discipline=world.discipline,
            club=club,
        )
    services.review_names(
        archive,
        {"Иван Петров": "new", "Ivan Petrov": "new", "Zed": "new", "Ann": "new"},
        by=club_admin,
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.start_import(archive, by=club_admin)
    archive.refresh_from_db()
    # "Иван Петров" and "Ivan Petrov" are one new player: that file plays him twice.
    ivan = Player.objects.get(federation=world.federation, name_native="Иван Петров")
    assert ivan.name_latin == "Ivan Petrov"
    assert files(archive)["x.mat"].refusal_code == "same_player"
    assert (archive.imported, archive.refused) == (1, 1)
    zed = Player.objects.get(federation=world.federation, name_latin="Zed")
    assert zed.memberships.filter(club=club).exists()


ROLES = {"plain", "player", "club_admin", "fed_admin", "other_fed_admin", "site_admin"}
MATRIX = {
    ("matches.import_archive", "federation"): {"fed_admin", "site_admin"},
    ("matches.import_archive", "club"): {"club_admin", "fed_admin", "site_admin"},
}
COVERED = {action for action, _target in MATRIX}


def test_archive_permission_matrix() -> None:
    federation = FederationFactory()
    club = ClubFactory(federation=federation)
    users = {
        "anonymous": AnonymousUser(),
        "plain": UserFactory(),
        "player": PlayerFactory(federation=federation, user=UserFactory()).user,
        "club_admin": UserFactory(),
        "fed_admin": UserFactory(),
        "other_fed_admin": UserFactory(),
        "site_admin": UserFactory(is_superuser=True),
    }
    grant(users["club_admin"], Role.CLUB_ADMIN, club)
    grant(users["fed_admin"], Role.FEDERATION_ADMIN, federation)
    grant(users["other_fed_admin"], Role.FEDERATION_ADMIN, FederationFactory())
    targets = {"federation": federation, "club": club}
    wrong = [
        f"{role} {'should' if role in allowed else 'should not'}: {action} on {target}"
        for (action, target), allowed in MATRIX.items()
        for role, user in users.items()
        if permissions.can(user, action, targets[target]) is not (role in allowed)
    ]
    assert not wrong, wrong
    assert ArchiveName.Decision.NEW == "new"


def test_an_illegal_xg_play_is_reported_at_its_game_and_turn_in_the_readers_language(
    world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    from django.utils import translation

    from tests.games.test_xg_import import checked, first_play
    from tests.games.xg_writer import xg_archive, xg_records

    records = xg_records(checked(4))
    _index, record = first_play(records)
    struct.pack_into("<2i", record, 68, 0, -1)  # a step from a point the mover has no checker on
    archive = upload(
        world,
        [("bad.xg", xg_archive(b"".join(records))), ("junk.xg", b"RGMH not an xg")],
        django_capture_on_commit_callbacks,
    )
    report = files(archive)
    bad, junk = report["bad.xg"], report["junk.xg"]
    assert (bad.state, bad.refusal_line, junk.refusal_code) == ("refused", None, "not_xg")
    # Kept as the engine's code and data: the sentence is made when shown.
    assert "text" not in bad.refusal_data
    english = archives.refusal_message(bad)
    assert english.startswith("game 1, turn 3: ")
    with translation.override("ru"):
        # The engine's reason, rendered again from its code and data, reads in Russian.
        russian = archives.refusal_message(bad)
        assert russian.endswith(message_for_ru(bad)) and russian != english


def message_for_ru(file: ArchiveFile) -> str:
    """The engine's reason alone for ``file``'s refusal (in the active language)."""
    from base.engine_messages import message_for
    from engine.errors import EngineError

    data = {k: v for k, v in file.refusal_data.items() if k not in ("game", "turn")}
    return message_for(EngineError(file.refusal_code, "", **data))
