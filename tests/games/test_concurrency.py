"""Fifty clients sending the same turn at once: exactly one is saved.

Each thread has its own database connection and calls record_turn for the
same next turn number at the same moment (a barrier).  The match row lock
and the one-live-turn-per-number constraint let one through; the other 49
get TurnConflict.  PostgreSQL only: SQLite serialises writers with its
database lock, which tests nothing about row locks (CI runs PostgreSQL).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from games import services
from games.models import Turn, TurnKind
from tests.factories import MatchFactory
from tests.games.helpers import user_of

CLIENTS = 50

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL (set DATABASE_URL): SQLite serialises writers itself",
    ),
]


def test_fifty_concurrent_submissions_of_the_same_turn_save_exactly_one() -> None:
    match = MatchFactory()
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    barrier = threading.Barrier(CLIENTS)
    saved: list[int] = []
    conflicts: list[int] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def submit() -> None:
        try:
            barrier.wait()
            try:
                recorded = services.record_turn(
                    match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
                )
            except services.TurnConflict as conflict:
                with lock:
                    conflicts.append(conflict.expected)
            else:
                with lock:
                    saved.append(recorded.turn.pk)
        except BaseException as error:  # reported below, not lost in the thread
            with lock:
                failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert len(saved) == 1
    assert len(conflicts) == CLIENTS - 1
    assert set(conflicts) == {3}  # each loser is told the next free number
    turns = Turn.objects.filter(game__match=match, number=2)
    assert [turn.pk for turn in turns] == saved
    assert turns.get().position_id == "4HPwATCwZ/ABMA"
