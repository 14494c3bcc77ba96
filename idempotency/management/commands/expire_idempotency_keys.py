"""Delete the Idempotency-Key records older than IDEMPOTENCY_KEY_TTL_HOURS."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from idempotency import services


class Command(BaseCommand):
    help = "Delete the expired Idempotency-Key records (the beat task does it every hour)."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"deleted {services.expire_keys()} expired idempotency keys")
