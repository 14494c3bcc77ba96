"""The one base of the product's Celery tasks: owed by a transaction, retried only
when the failure is transient, given ids and never objects.

A task is declared ``@shared_task(base=OwedTask, name="<app>.<what>")``.  The
name is what the outbox rows and the beat schedule (``CELERY_BEAT_SCHEDULE``)
refer to, so it never changes.

- **Owed on commit.**  Work that a write makes necessary is owed with
  ``owe(task, *ids)`` inside the write's transaction: the outbox
  (``outbox.services``) stores it with the write and sends it once the
  transaction commits, so a rollback owes nothing and an absent broker loses
  nothing.  ``task`` may be the task's registered name, so a module can owe a
  task that calls it back without importing the task module (no import
  circle).  This is the only way the product queues work.
- **Retried when transient.**  A lost connection, a deadlock or a lock not
  granted in time (``TRANSIENT``) is retried with exponential back-off (with
  jitter, capped); any other error is a bug or bad data that a retry would
  only repeat: it fails at once and the worker logs it.
- **Ids, loaded by id.**  The arguments are ids (and plain values), never model
  instances: the message may be delivered late, twice (the outbox delivers at
  least once) or after the row was deleted.  ``load`` answers None for a row
  that is gone, and the task then does nothing, so every task is idempotent.

The outbox's own drain (``outbox.tasks``) is not an ``OwedTask``: it is what
sends owed work, sits below this package, and runs on beat.
"""

from __future__ import annotations

from typing import Any, TypeVar

from celery import Task, current_app
from django.db import InterfaceError, OperationalError
from django.db.models import Model

from base.locking import Busy
from outbox import services as outbox

M = TypeVar("M", bound=Model)

# Failures that go away by themselves: a connection lost, a deadlock or a serialisation
# failure (Django's OperationalError and InterfaceError), a row lock not granted in time.
TRANSIENT: tuple[type[Exception], ...] = (OperationalError, InterfaceError, Busy)


class OwedTask(Task):  # type: ignore[misc]  # Celery ships no type hints
    """A task owed by a transaction (``owe``), retried on transient errors only."""

    autoretry_for = TRANSIENT
    # Up to 2, 4, 8, ... seconds (a random part of each, so two retries do not collide
    # again), never more than two minutes: at most about two minutes in all, then it fails.
    retry_backoff = 2
    retry_backoff_max = 120
    retry_jitter = True
    max_retries = 6


def owe(task: OwedTask | str, *ids: Any, countdown: float | None = None) -> None:
    """Owe ``task(*ids)`` in the current transaction; it is sent when that commits.

    ``task`` is an ``OwedTask`` or its registered name (checked now: a name
    nobody registered, or a task of another kind, is a bug of the caller).
    Owed again before it was sent (same task, same ids): owed once.
    ``countdown`` (seconds) asks the worker to run it no earlier than that.
    """
    owed = _registered(task) if isinstance(task, str) else task
    if not isinstance(owed, OwedTask):
        raise TypeError(f"{owed.name} is not an OwedTask: it cannot be owed on commit")
    outbox.queue_on_commit(owed, *ids, countdown=countdown)


def _registered(name: str) -> Any:
    """The task registered as ``name``; a process that has not needed it yet (a web
    server imports only the task modules its subscribers use) imports every app's."""
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    return current_app.tasks[name]


def load(model: type[M], pk: Any, *related: str) -> M | None:
    """The row of ``model`` with primary key ``pk`` (with ``related`` joined), or None if
    it is gone: a task given the id of a deleted row has nothing left to do."""
    rows = model._default_manager.filter(pk=pk)
    if related:
        rows = rows.select_related(*related)
    found: M | None = rows.first()
    return found
