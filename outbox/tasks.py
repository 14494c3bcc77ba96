"""The periodic drain of the outbox (Celery beat, CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from outbox import services

# A row younger than this is probably being sent by its own commit hook right now.
GRACE_SECONDS = 30


@shared_task(name="outbox.drain")
def drain_outbox() -> dict[str, int]:
    """Send the work that could not reach the broker when it was owed."""
    return dict(services.drain(older_than=GRACE_SECONDS))
