"""The periodic drain of the outbox (Celery beat, CELERY_BEAT_SCHEDULE).

A plain task, not a ``base.tasks.OwedTask``: the drain is what sends owed work,
so it is never owed itself, and a drain that fails is simply run again by the
next beat a minute later (the outbox sits below ``base`` and imports none of it).
"""

from __future__ import annotations

from celery import shared_task

from outbox import services

# A row younger than this is probably being sent by its own commit hook right now.
GRACE_SECONDS = 30


@shared_task(name="outbox.drain")
def drain_outbox() -> dict[str, int]:
    """Send the work that could not reach the broker when it was owed."""
    return dict(services.drain(older_than=GRACE_SECONDS))
