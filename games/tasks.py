from __future__ import annotations

from celery import shared_task

from base.tasks import OwedTask
from games import services


@shared_task(base=OwedTask, name="games.confirm_overdue_reports")
def confirm_overdue_reports() -> int:
    """Make official the reports nobody answered by their deadline (idempotent)."""
    return services.confirm_overdue_reports()


@shared_task(base=OwedTask, name="games.scan_archive")
def scan_archive(archive_id: int) -> str:
    """Read an uploaded archive's files and propose its players (owed by the upload;
    idempotent: files read already are skipped, a scanned archive is left alone)."""
    return services.scan_archive(archive_id)


@shared_task(base=OwedTask, name="games.import_archive")
def import_archive(archive_id: int, part: int = 0, parts: int = 1) -> str:
    """Import an archive's pending files, each in its own transaction (owed by
    ``start_import``; idempotent: each file is imported once, under its row's lock)."""
    return services.import_archive(archive_id, part, parts)
