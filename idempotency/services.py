"""How long a key is kept, and the clean-up of older ones."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.utils import timezone

from idempotency.models import IdempotencyKey


def key_lifetime() -> datetime.timedelta:
    return datetime.timedelta(hours=settings.IDEMPOTENCY_KEY_TTL_HOURS)


def oldest_live(now: datetime.datetime | None = None) -> datetime.datetime:
    """Keys created before this moment have expired: they are ignored, then deleted."""
    return (now or timezone.now()) - key_lifetime()


def expire_keys(now: datetime.datetime | None = None) -> int:
    """Delete the expired keys; return how many there were."""
    deleted, _by_model = IdempotencyKey.objects.filter(created_at__lt=oldest_live(now)).delete()
    return int(deleted)
