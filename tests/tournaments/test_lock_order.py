"""A confirmation and a withdrawal of the same player at the same moment: no deadlock.

The player's opponent confirms their result (games: the report, then the
match) while the organizer withdraws the player (tournaments: the
tournament, the entry, then the same match).  Before the locks had one order
the confirmation also locked the tournament inside the games transaction, so
the two waited for each other until PostgreSQL killed one ("deadlock
detected").  Each thread has its own connection; a barrier starts them
together; the race is run many times.  PostgreSQL only: SQLite serialises
writers with its database lock, which tests nothing about row locks.
"""

from __future__ import annotations

import threading
from functools import partial

import pytest
from celery import current_app
from django.core.exceptions import ValidationError
from django.db import connection, connections

from base import locking
from games import services as games_services
from games.models import Match, ReportSource, ReportStatus, ResultReport, ResultStatus
from tests.locks import row_held
from tests.tournaments import builders
from tournaments import services
from tournaments.models import EntryStatus, Pairing, StandingsSnapshot

RACES = 20

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL (set DATABASE_URL): SQLite serialises writers itself",
    ),
]


def run_together(*actions):  # type: ignore[no-untyped-def]
    """Run each action in its own thread (its own connection), started by one barrier;
    what each returned or raised, in the order given."""
    barrier = threading.Barrier(len(actions))
    outcomes: list[object] = [None] * len(actions)

    def run(index: int) -> None:
        try:
            barrier.wait()
            outcomes[index] = actions[index]()
        except BaseException as error:  # kept for the assertions, not lost in the thread
            outcomes[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a thread is still waiting"
    return outcomes


@pytest.fixture
def eager():  # type: ignore[no-untyped-def]
    """The work queued on commit runs at once, in the committing thread."""
    saved = current_app.conf.task_always_eager, current_app.conf.task_eager_propagates
    current_app.conf.task_always_eager = current_app.conf.task_eager_propagates = True
    yield
    current_app.conf.task_always_eager, current_app.conf.task_eager_propagates = saved


def test_a_confirmation_and_a_withdrawal_of_the_same_player_never_deadlock(eager) -> None:  # type: ignore[no-untyped-def]
    orders: set[str] = set()
    for _race in range(RACES):
        federation, admin, _ = builders.federation_with_admin()
        t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=3)
        rnd = services.pair_next_round(t, by=admin)
        services.start_round(rnd, by=admin)
        pairing = Pairing.objects.select_related(
            "match__player1__user", "match__player2__user", "entry1"
        ).get(round=rnd, table=1)
        match = pairing.match
        assert match is not None
        report = games_services.submit_report(
            match, by=match.player1.user, score1=match.length, score2=1
        )

        confirmation, withdrawal = run_together(
            partial(games_services.confirm_report, report, by=match.player2.user),
            partial(services.withdraw, pairing.entry1, by=admin),
        )

        # Neither side failed on a lock: no deadlock, no lock timeout, no 500.
        assert not isinstance(withdrawal, BaseException), withdrawal
        if isinstance(confirmation, ValidationError):
            # The withdrawal came first: its forfeit superseded the open report,
            # and the confirmation was refused with a clear message.
            assert "can no longer be confirmed" in " ".join(confirmation.messages)
            orders.add("withdrawal first")
        else:
            assert not isinstance(confirmation, BaseException), confirmation
            orders.add("confirmation first")
        pairing.entry1.refresh_from_db()
        assert pairing.entry1.status == EntryStatus.WITHDRAWN
        match.refresh_from_db()
        assert match.result_status == ResultStatus.CONFIRMED
        official = ResultReport.objects.get(match=match, status=ReportStatus.CONFIRMED)
        if not isinstance(confirmation, BaseException):
            # The players' result stands: a decided match is not forfeited.
            assert official.pk == report.pk
            assert (match.score1, match.score2, match.forfeit) == (match.length, 1, False)
        else:
            assert official.source == ReportSource.OVERRIDE and match.forfeit

        # The result counts: the other table's result too, then the standings.
        other = Pairing.objects.select_related("match").get(round=rnd, table=2)
        builders.confirm_result(other, other.entry1_id)
        snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=1)
        rows = {row["entry"]: row for row in snapshot.rows}
        assert sum(row["wins"] for row in rows.values()) == 2
        assert rows[pairing.entry1_id]["withdrawn"]
        winner = pairing.entry1_id if official.score1 > official.score2 else pairing.entry2_id
        assert rows[winner]["wins"] == 1
    assert orders  # which orders were seen depends on the scheduler


def test_a_lock_held_too_long_is_a_busy_answer_not_a_500(client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DATABASE_LOCK_TIMEOUT = 0.2
    federation, admin, _ = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=3)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    match = Pairing.objects.get(round=rnd, table=1).match
    assert match is not None
    report = games_services.submit_report(
        match, by=match.player1.user, score1=match.length, score2=1
    )
    with row_held(Match, match.pk):
        with pytest.raises(locking.Busy) as busy:
            games_services.confirm_report(report, by=match.player2.user)
        assert busy.value.messages == [
            "Someone else is changing this right now. Please try again in a moment."
        ]
        client.force_login(match.player2.user)
        answer = client.post(f"/api/reports/{report.pk}/confirm/", HTTP_ACCEPT_LANGUAGE="en")
        assert answer.status_code == 503, answer.content
        assert "try again" in answer.json()["detail"]
    # Nothing was half-saved: the report is still open, and goes through now.
    games_services.confirm_report(report, by=match.player2.user)
    match.refresh_from_db()
    assert match.result_status == ResultStatus.CONFIRMED
