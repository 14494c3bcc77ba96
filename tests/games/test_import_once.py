"""One file, one match: a match file imported into a federation (alone through
the import page, or in an archive) is refused the second time, whichever way
it comes, by its content's hash (``Match.source_hash``); a refused second
import leaves no rows.  Another federation imports its own copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.urls import reverse

from engine.records.matfile import parse_mat
from games import services
from games.models import ArchiveFileState, Game, Match, Turn
from games.services import matfiles
from tests.factories import DisciplineFactory
from tests.games.test_archive_import import (  # noqa: F401 (eager: a fixture)
    World,
    eager,
    files,
    mat,
    run_import,
    upload,
)
from tests.games.xg_writer import write_xg

pytestmark = pytest.mark.django_db

PLAYERS = ("Bob", "Mamedov Elchin")


@pytest.fixture(autouse=True)
def archive_root(settings: Any, tmp_path: Path) -> None:
    settings.ARCHIVE_ROOT = tmp_path / "archives"


def post(client: Any, world: World, name: str, data: bytes, language: str = "en") -> Any:
    """The import page's form, as the federation's admin sends it."""
    client.force_login(world.admin)
    return client.post(
        reverse("games:match_import"),
        {
            "player1": world.bob.pk,
            "player2": world.elchin.pk,
            "discipline": world.discipline.pk,
            "file": SimpleUploadedFile(name, data, content_type="application/octet-stream"),
        },
        HTTP_ACCEPT_LANGUAGE=language,
    )


def rows() -> tuple[int, int, int]:
    return Match.objects.count(), Game.objects.count(), Turn.objects.count()


@pytest.mark.parametrize("fmt", ["mat", "xg"])
def test_a_file_uploaded_twice_is_refused_the_second_time(client: Any, fmt: str) -> None:
    world = World()
    text = mat(11, PLAYERS)
    data = text if fmt == "mat" else write_xg(parse_mat(text.decode()))
    assert post(client, world, f"match.{fmt}", data).status_code == 302
    first = Match.objects.get()
    assert first.source_hash and len(first.source_hash) == 64
    before = rows()
    again = post(client, world, f"again.{fmt}", data)
    assert again.status_code == 200
    assert (
        f"This file was imported already, as match no. {first.pk} ({first})."
        in again.content.decode()
    )
    assert rows() == before


def test_line_ends_and_trailing_blank_lines_do_not_make_another_file(client: Any) -> None:
    world = World()
    text = mat(12, PLAYERS)
    assert post(client, world, "match.mat", text).status_code == 302
    windows = text.replace(b"\n", b"\r\n") + b"\r\n\r\n"
    refused = post(client, world, "match.mat", windows)
    assert "This file was imported already" in refused.content.decode()
    # A real change of content is another file (here: another match's text).
    assert post(client, world, "other.mat", mat(13, PLAYERS)).status_code == 302
    assert Match.objects.count() == 2


def test_the_refusal_is_in_the_uploader_s_language(client: Any) -> None:
    world = World()
    data = mat(14, PLAYERS)
    post(client, world, "match.mat", data)
    refused = post(client, world, "match.mat", data, language="ru")
    assert "Этот файл уже импортирован" in refused.content.decode()


def test_another_federation_imports_its_own_copy(client: Any) -> None:
    data = mat(15, PLAYERS)
    first, second = World(), World()
    assert post(client, first, "match.mat", data).status_code == 302
    assert post(client, second, "match.mat", data).status_code == 302
    assert Match.objects.count() == 2


def test_a_file_of_an_imported_archive_uploaded_alone_is_refused(
    client: Any,
    eager: None,  # noqa: F811 (the fixture imported above)
    django_capture_on_commit_callbacks: Any,
) -> None:
    world = World()
    data = mat(16, PLAYERS)
    archive = upload(world, [("x.mat", data)], django_capture_on_commit_callbacks)
    archive = run_import(world, archive, django_capture_on_commit_callbacks)
    assert archive.imported == 1
    archived = Match.objects.get()
    assert archived.source_hash == files(archive)["x.mat"].sha256
    refused = post(client, world, "x.mat", data)
    assert f"as match no. {archived.pk}" in refused.content.decode()
    assert Match.objects.count() == 1


def test_an_archive_s_file_uploaded_alone_before_is_a_duplicate_of_the_archive(
    client: Any,
    eager: None,  # noqa: F811 (the fixture imported above)
    django_capture_on_commit_callbacks: Any,
) -> None:
    world = World()
    data, other = mat(17, PLAYERS), mat(18, PLAYERS)
    assert post(client, world, "x.mat", data).status_code == 302
    archive = upload(world, [("x.mat", data), ("y.mat", other)], django_capture_on_commit_callbacks)
    # Known at the scan already, as a file of an earlier archive is.
    assert files(archive)["x.mat"].state == ArchiveFileState.DUPLICATE
    archive = run_import(world, archive, django_capture_on_commit_callbacks)
    assert (archive.imported, archive.duplicate) == (1, 1)
    assert Match.objects.count() == 2


def test_two_uploads_at_once_make_one_match_by_the_constraint(monkeypatch: Any) -> None:
    """Both uploads pass the check before reading; the database refuses the
    second's match at its insert, and the second is refused as a duplicate."""
    world = World()
    text = mat(19, PLAYERS).decode()
    digest = matfiles.content_hash(text.encode(), text=True)
    checks: list[str] = []
    real = matfiles.imported_already

    def not_yet(federation: Any, source_hash: str) -> ValidationError | None:
        checks.append(source_hash)
        return None if len(checks) <= 2 else real(federation, source_hash)

    monkeypatch.setattr(matfiles, "imported_already", not_yet)
    arguments = {
        "by": world.admin,
        "player1": world.bob,
        "player2": world.elchin,
        "discipline": world.discipline,
        "source_hash": digest,
    }
    first = services.import_mat(text, **arguments)
    before = rows()
    with pytest.raises(ValidationError) as refused:
        services.import_mat(text, **arguments)
    assert refused.value.code == "imported_already"
    assert f"as match no. {first.pk}" in refused.value.messages[0]
    assert len(checks) == 3  # before reading twice, then after the constraint refused
    assert rows() == before
    assert connection.in_atomic_block  # the test's transaction is usable still
    assert Match.objects.filter(source_hash=digest).count() == 1


def test_an_organizer_s_other_discipline_is_no_way_around(client: Any) -> None:
    """The content decides, not the discipline or the players chosen for it."""
    world = World()
    data = mat(20, PLAYERS)
    assert post(client, world, "match.mat", data).status_code == 302
    world.discipline = DisciplineFactory()
    refused = post(client, world, "match.mat", data)
    assert "This file was imported already" in refused.content.decode()


def test_matches_archived_before_the_field_take_their_files_hash(
    eager: None,  # noqa: F811 (the fixture imported above)
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The migration's step for matches imported before Match.source_hash."""
    import importlib

    from django.apps import apps

    world = World()
    archive = upload(world, [("x.mat", mat(21, PLAYERS))], django_capture_on_commit_callbacks)
    archive = run_import(world, archive, django_capture_on_commit_callbacks)
    Match.objects.update(source_hash="")
    migration = importlib.import_module("games.migrations.0012_match_source_hash")
    migration.hash_archived_matches(apps, None)
    assert Match.objects.get().source_hash == files(archive)["x.mat"].sha256
