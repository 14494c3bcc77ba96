"""Earlier standings follow a corrected result: every snapshot is the standings after
its first rounds played, whenever it was computed."""

from __future__ import annotations

import pytest

from tests.tournaments import builders
from tests.tournaments.builders import higher_seed, play_round
from tournaments import services
from tournaments.models import Entry, StandingsSnapshot

pytestmark = pytest.mark.django_db


def wins(snapshot: StandingsSnapshot) -> dict[int, int]:
    return {row["entry"]: row["wins"] for row in snapshot.rows}


def snapshot(t, after: int) -> StandingsSnapshot:  # type: ignore[no-untyped-def]
    return StandingsSnapshot.objects.get(tournament=t, after_round=after)


def test_a_corrected_first_round_result_corrects_every_later_snapshot() -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=3)
    first = play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    before = {n: wins(snapshot(t, n)) for n in (1, 2)}
    published = {n: snapshot(t, n).published_at for n in (1, 2)}
    assert all(published.values())

    corrected = first.pairings.get(table=1)
    favourite = higher_seed(corrected)
    underdog = corrected.entry2_id if favourite == corrected.entry1_id else corrected.entry1_id
    builders.override_result(corrected, underdog, admin)
    services.compute_standings(t)

    for n in (1, 2):
        after = wins(snapshot(t, n))
        assert after[underdog] == before[n][underdog] + 1
        assert after[favourite] == before[n][favourite] - 1
        assert snapshot(t, n).published_at == published[n]  # still published, same time
    # Nothing changed since: computing again writes nothing.
    stamps = list(StandingsSnapshot.objects.filter(tournament=t).values_list("computed_at"))
    services.compute_standings(t)
    assert list(StandingsSnapshot.objects.filter(tournament=t).values_list("computed_at")) == (
        stamps
    )


def test_earlier_snapshots_show_a_withdrawal_only_from_its_round_on() -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(6, "swiss", federation=federation, by=admin, rounds_planned=3)
    play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    play_round(services.pair_next_round(t, by=admin), admin)
    quitter = Entry.objects.get(tournament=t, seed=6)
    services.withdraw(quitter, by=admin)
    services.compute_standings(t)
    play_round(services.pair_next_round(t, by=admin), admin)
    # A late correction makes every earlier snapshot be computed again.
    first = t.rounds.get(number=1).pairings.get(table=1)
    builders.override_result(first, first.entry2_id, admin)
    services.compute_standings(t)

    def withdrawn(after: int) -> bool:
        return next(r for r in snapshot(t, after).rows if r["entry"] == quitter.pk)["withdrawn"]

    assert [withdrawn(n) for n in (1, 2, 3)] == [False, True, True]


def test_a_bye_counts_once_its_round_is_played() -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(5, "swiss", federation=federation, by=admin, rounds_planned=2)
    play_round(services.pair_next_round(t, by=admin), admin)
    second = services.pair_next_round(t, by=admin)
    bye = second.pairings.get(entry2__isnull=True).entry1_id
    # Paired, not started: the standings after round 1 do not have round 2's bye yet.
    standing = services.compute_standings(t)
    assert standing.after_round == 1
    assert next(r for r in standing.rows if r["entry"] == bye)["byes"] == 0
    play_round(second, admin)
    standing = services.compute_standings(t)
    assert next(r for r in standing.rows if r["entry"] == bye)["byes"] == 1
