"""The periodic clean-up of expired idempotency keys (Celery beat, CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from base.tasks import OwedTask
from idempotency import services


@shared_task(base=OwedTask, name="idempotency.expire_keys")
def expire_idempotency_keys() -> int:
    return services.expire_keys()
