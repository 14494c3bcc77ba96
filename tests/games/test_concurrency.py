"""Fifty clients sending the same turn at once: exactly one is saved.

Each thread has its own database connection and calls record_turn for the
same next turn number at the same moment (a barrier).  The match row lock
and the one-live-turn-per-number constraint let one through; the other 49
get TurnConflict.  A match row locked by someone else for longer than the
lock timeout is a "busy, try again" answer (base.locking), not a wait without
end.  PostgreSQL only: SQLite serialises writers with its database lock,
which tests nothing about row locks (CI runs PostgreSQL).
"""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection, connections
from django.urls import reverse

from base import locking
from games import services
from games.models import Match, Turn, TurnKind
from tests.factories import MatchFactory
from tests.games.helpers import user_of
from tests.locks import row_held

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


def test_a_turn_kept_waiting_for_the_match_row_is_refused_as_busy(client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DATABASE_LOCK_TIMEOUT = 0.2
    match = MatchFactory()
    white = user_of(match, 0)
    opening = {"number": 1, "kind": TurnKind.OPENING, "dice": [3, 1]}
    with row_held(Match, match.pk):
        with pytest.raises(locking.Busy):
            services.record_turn(match, by=white, **opening)
        client.force_login(white)
        board = client.post(
            reverse("games:record", args=[match.pk]),
            json.dumps(opening),
            content_type="application/json",
        )
        assert board.status_code == 503 and board.json()["error"]["code"] == "busy"
        api = client.post(
            f"/api/matches/{match.pk}/turns/", json.dumps(opening), content_type="application/json"
        )
        assert api.status_code == 503, api.content
        assert api.json()["code"] == "busy" and api.json()["turn"] == 1
    # Nothing was half-saved: the same turn goes through now.
    services.record_turn(match, by=white, **opening)
    assert list(Turn.objects.filter(game__match=match).values_list("number", flat=True)) == [1]
