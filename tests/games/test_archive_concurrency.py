"""Archive imports running at once import each match once (PostgreSQL only).

Two archives share the same sixteen match files, and each is imported by its two
jobs (``part`` 0 and 1 of 2) at the same moment (four threads, each with its own connection, released
together by a barrier).  A job skips a file another job of the same archive
holds (its row lock); two jobs storing the same content for two archives meet
at the unique content hash of the federation's imported files, and the loser's
match is taken back (its file's savepoint) and reported as a duplicate.
SQLite serialises writers with its database lock, which tests nothing here.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from celery import current_app as celery_app
from django.db import connection, connections

from games.models import ArchiveFileState, ArchiveImport, ArchiveState, Match
from games.services import archives
from tests.games.test_archive_import import World, mat, zipped

# Enough files that a job asks for one while another job's transaction holds the
# archive's row (its counts, its matches' reference to it): taking a file must not
# lock or wait for that row, or the file is skipped and the archive never ends.
FILES = 16

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL (set DATABASE_URL): SQLite serialises writers itself",
    ),
]


@pytest.fixture
def eager() -> Iterator[None]:
    """Work the imports owe (ratings, standings) runs in this process, off the broker."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, False
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


def test_four_jobs_at_once_over_two_archives_import_each_match_once(
    eager: None, settings: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    settings.ARCHIVE_ROOT = tmp_path / "archives"
    # The archive's own jobs are run by the threads below, not queued.
    monkeypatch.setattr(archives, "owe", lambda task, *ids: None)
    world = World()
    members = [(f"{n}.mat", mat(20 + n, ("Bob", "Mamedov Elchin"))) for n in range(FILES)]
    ids = []
    for name in ("first.zip", "second.zip"):
        archive = archives.upload_archive(
            zipped(members, name),
            by=world.admin,
            federation=world.federation,
            discipline=world.discipline,
        )
        archives.scan_archive(archive.pk)
        archives.start_import(archive, by=world.admin)
        ids.append(archive.pk)

    barrier = threading.Barrier(4)
    failures: list[BaseException] = []

    def job(archive_id: int, part: int) -> None:
        try:
            barrier.wait()
            archives.import_archive(archive_id, part, 2)
        except BaseException as error:  # reported below, not lost in the thread
            failures.append(error)
        finally:
            connections.close_all()

    # Each archive's two jobs, as start_import owes them (ARCHIVE_IMPORT_JOBS = 2).
    threads = [threading.Thread(target=job, args=(pk, part)) for part in (0, 1) for pk in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    done = list(ArchiveImport.objects.filter(pk__in=ids))
    assert [a.state for a in done] == [ArchiveState.DONE, ArchiveState.DONE]
    assert [a.files_done for a in done] == [FILES, FILES]
    assert sum(a.imported for a in done) == FILES and sum(a.duplicate for a in done) == FILES
    assert Match.objects.filter(federation=world.federation).count() == FILES
    imported = ArchiveFileState.IMPORTED
    for archive in done:
        # Each count is what its files say: no file was counted by two jobs.
        states = list(archive.files.values_list("state", flat=True))
        assert states.count(imported) == archive.imported
        assert states.count(ArchiveFileState.DUPLICATE) == archive.duplicate
