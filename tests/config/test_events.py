from __future__ import annotations

import pytest
from django.db import transaction

from base.events import Event, queue_on_commit


def test_subscribers_receive_the_payload_in_order() -> None:
    event = Event("games.result_confirmed", fields=("match_id",))
    seen: list[tuple[str, int]] = []
    event.subscribe(lambda match_id: seen.append(("first", match_id)))
    event.subscribe(lambda match_id: seen.append(("second", match_id)))
    event.send(match_id=7)
    assert seen == [("first", 7), ("second", 7)]


def test_payload_must_match_the_declared_fields() -> None:
    event = Event("games.result_confirmed", fields=("match_id",))
    with pytest.raises(TypeError, match=r"missing \['match_id'\], unexpected \['game'\]"):
        event.send(game=1)


class RecordingTask:
    name = "tests.recording"

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def delay(self, *args: object) -> None:
        self.calls.append(args)


@pytest.mark.django_db(transaction=True)
def test_queue_on_commit_waits_for_the_commit_and_skips_rollback() -> None:
    task = RecordingTask()
    with transaction.atomic():
        queue_on_commit(task, 1)
        assert task.calls == []
    assert task.calls == [(1,)]
    with pytest.raises(RuntimeError), transaction.atomic():
        queue_on_commit(task, 2)
        raise RuntimeError("roll back")
    assert task.calls == [(1,)]
