"""Explicit domain events between apps.

A lower app declares an event and sends it from a service; a higher app
subscribes in its ``AppConfig.ready``, with the functions of its
``receivers`` module.  This keeps the dependency order of DEVELOPERS.md
(clubs <- games <- ratings <- tournaments): the sender never imports its
listeners.  A subscriber runs inside the sender's transaction, so it only
queues work (a task owed on commit with ``base.tasks.owe``; a plain read may
decide which), never does it inline: it would lock rows of a higher app
while the sender holds its own, against the order of ``base.locking``.
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
