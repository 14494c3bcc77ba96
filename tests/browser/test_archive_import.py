"""A whole archive imported in a real browser: the federation's admin uploads a
zip, reviews the name nobody in the federation bears, starts the import, watches
the progress (the page polls it and reloads when the job ends) and reads the
report per file: imported, imported with warnings, refused (line and reason)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from clubs.models import Role
from games.models import ArchiveImport, ArchiveState
from games.services import archives
from tests.factories import DisciplineFactory, FederationFactory, PlayerFactory, UserFactory, grant
from tests.games.test_archive_import import ILLEGAL, WRONG_VALUE, mat, zipped

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"  # tests.factories.UserFactory's


@pytest.fixture
def eager() -> Iterator[None]:
    from config.celery import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


def test_upload_review_progress_and_report(
    live_server: Any, browser: Any, eager: None, settings: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    settings.ARCHIVE_ROOT = tmp_path / "archives"
    federation = FederationFactory()
    discipline = DisciplineFactory()
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, federation)
    PlayerFactory(federation=federation, name_native="Эльчин Мамедов", name_latin="Elchin Mamedov")
    anna = PlayerFactory(federation=federation, name_native="Анна", name_latin="Anna")
    PlayerFactory(federation=federation, name_native="Bob", name_latin="Bob")
    upload = zipped(
        [
            ("a.mat", mat(1, ("Мамедов Эльчин", "Zoe New"))),
            ("galaxy.mat", WRONG_VALUE.encode()),
            ("illegal.mat", ILLEGAL.encode()),
        ]
    )
    # The archive's jobs are run by the test, as a worker would, while the page watches.
    owed: list[tuple[Any, ...]] = []
    monkeypatch.setattr(archives, "owe", lambda task, *ids: owed.append((task, *ids)))

    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", admin.username)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("form.stack button[type=submit]")

    page.goto(live_server.url + "/matches/")
    with page.expect_navigation():
        page.click("#archives-link")
    page.select_option("#archive-form select[name=discipline]", str(discipline.pk))
    page.set_input_files(
        "#archive-form input[name=file]",
        files=[{"name": "club-2024.zip", "mimeType": "application/zip", "buffer": upload.read()}],
    )
    with page.expect_navigation():
        page.click("#archive-form button[type=submit]")
    assert [task for task, *_ids in owed] == ["games.scan_archive"]
    archive = ArchiveImport.objects.get()
    archives.scan_archive(archive.pk)
    owed.clear()
    page.reload()

    # Anna is proposed (the same name in the other script); Zoe New is nobody yet.
    assert "club-2024.zip" in page.locator("h1").inner_text()
    names = page.locator("#names")
    assert "Zoe New" in names.inner_text()
    zoe = archive.names.get(name="Zoe New")
    page.select_option(f"select[name=name-{zoe.pk}]", "new")
    with page.expect_navigation():
        page.click("#names-form button[name=start]")
    assert "The import has started." in page.locator("main").inner_text()
    assert page.locator("#progress [data-state-label]").inner_text() == "importing"
    # Two jobs share the files (settings.ARCHIVE_IMPORT_JOBS), as a worker's two processes.
    assert owed == [("games.import_archive", archive.pk, part, 2) for part in (0, 1)]

    # The jobs run; the page's poll sees them done and reloads with the report.
    archives.import_archive(archive.pk, 0, 2)
    archives.import_archive(archive.pk, 1, 2)
    page.wait_for_selector('#progress[data-state="done"]', timeout=20_000)
    report = page.locator("#report").inner_text()
    assert "imported with warnings" in report
    assert "line 6: These moves use more than the dice give (3-1)." in report
    assert page.locator("#progress [data-count=imported]").inner_text() == "1"
    assert page.locator("#progress [data-count=refused]").inner_text() == "1"
    archive.refresh_from_db()
    assert (archive.state, archive.imported, archive.warnings, archive.refused) == (
        ArchiveState.DONE,
        1,
        1,
        1,
    )
    assert archive.files.get(name="galaxy.mat").match.player1 == anna  # type: ignore[union-attr]
    context.close()
