from __future__ import annotations

from celery import shared_task

from base.tasks import OwedTask
from games import services


@shared_task(base=OwedTask, name="games.confirm_overdue_reports")
def confirm_overdue_reports() -> int:
    """Make official the reports nobody answered by their deadline (idempotent)."""
    return services.confirm_overdue_reports()
