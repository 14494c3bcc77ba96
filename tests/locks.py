"""A row held by another connection, for the tests of what a lock not granted in time does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connections, transaction


@contextmanager
def row_held(model: Any, pk: int) -> Iterator[None]:
    """While the block runs, another connection holds ``model``'s row ``pk`` locked
    (SELECT ... FOR UPDATE in an open transaction); it lets go when the block ends."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                model.objects.select_for_update().get(pk=pk)
                held.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(timeout=30), "the other connection never got the row"
        yield
    finally:
        release.set()
        holder.join(timeout=30)
