"""Explicit domain events between apps.

A lower app declares an event and sends it from a service; a higher app
subscribes in its ``AppConfig.ready``.  This keeps the dependency order of
DEVELOPERS.md (clubs <- games <- ratings <- tournaments): the sender never
imports its listeners.  Subscribers should only queue work (a Celery task,
through ``queue_on_commit``), never do it inline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Receiver = Callable[..., None]


class Event:
    def __init__(self, name: str, fields: tuple[str, ...]) -> None:
        self.name = name
        self.fields = frozenset(fields)
        self._receivers: list[Receiver] = []

    def subscribe(self, receiver: Receiver) -> Receiver:
        if receiver not in self._receivers:
            self._receivers.append(receiver)
        return receiver

    def unsubscribe(self, receiver: Receiver) -> None:
        self._receivers.remove(receiver)

    @property
    def receivers(self) -> tuple[Receiver, ...]:
        return tuple(self._receivers)

    def send(self, **payload: Any) -> None:
        if set(payload) != self.fields:
            missing = sorted(self.fields - set(payload))
            extra = sorted(set(payload) - self.fields)
            raise TypeError(f"event {self.name}: missing {missing}, unexpected {extra}")
        for receiver in self._receivers:
            receiver(**payload)

    def __repr__(self) -> str:
        return f"Event({self.name!r})"


def queue_on_commit(task: Any, *args: Any, countdown: float | None = None, **kwargs: Any) -> None:
    """Owe a Celery task in the current transaction; it is sent once that commits.

    The work is recorded in the transaction (``outbox``), so a broker that is
    down loses nothing and fails no request: the work is sent when it returns.
    Same task, same arguments, not sent yet: owed once.
    """
    from outbox import services

    services.queue_on_commit(task, *args, countdown=countdown, **kwargs)
