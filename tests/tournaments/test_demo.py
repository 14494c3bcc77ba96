"""The demo tournaments of `make run`: their promised shape, loaded twice without change."""

from __future__ import annotations

from collections import Counter

import pytest

from clubs import demo as clubs_demo
from games.models import Match, ResultStatus
from tournaments import demo
from tournaments.models import Entry, Pairing, Round, StandingsSnapshot, Tournament

pytestmark = pytest.mark.django_db


def test_demo_tournaments_have_the_promised_shape_and_load_idempotently() -> None:
    clubs_demo.load()
    first = demo.load()
    assert [t.created for t in first] == [True, True]
    counts = (Tournament.objects.count(), Match.objects.count(), Pairing.objects.count())
    again = demo.load()
    assert [t.created for t in again] == [False, False]
    assert (Tournament.objects.count(), Match.objects.count(), Pairing.objects.count()) == counts

    swiss = Tournament.objects.get(slug=demo.SWISS_SLUG)
    assert (swiss.state, swiss.format, swiss.max_losses, swiss.discipline.code) == (
        "finished",
        "swiss",
        3,
        "long",
    )
    assert swiss.federation.slug == "fsnr"
    entries = Entry.objects.filter(tournament=swiss)
    assert entries.count() == 32
    assert set(entries.values_list("player__federation__slug", flat=True)) == {"fsnr"}
    assert set(Round.objects.filter(tournament=swiss).values_list("match_length", flat=True)) == {7}
    matches = Match.objects.filter(pairing__round__tournament=swiss)
    assert matches.exists()
    assert set(matches.values_list("result_status", flat=True)) == {ResultStatus.CONFIRMED}
    assert set(matches.values_list("length", flat=True)) == {7}
    # Swiss until three losses: at most one player finished with fewer than three.
    losses: Counter[int] = Counter()
    for p in Pairing.objects.filter(round__tournament=swiss, entry2__isnull=False).select_related(
        "match"
    ):
        losses[p.entry2_id if p.match.winner == 1 else p.entry1_id] += 1
    assert sum(1 for e in entries if losses[e.pk] < 3) <= 1
    rounds = Round.objects.filter(tournament=swiss).count()
    snapshots = StandingsSnapshot.objects.filter(tournament=swiss)
    assert snapshots.count() == rounds
    final = snapshots.get(after_round=rounds)
    assert final.published_at is not None and len(final.rows) == 32
    assert final.rows[0]["place"] == "1" and final.rows[0]["losses"] < 3

    knockout = Tournament.objects.get(slug=demo.KNOCKOUT_SLUG)
    assert (knockout.state, knockout.format, knockout.discipline.code) == (
        "running",
        "main_consolation",
        "short",
    )
    assert knockout.progressive_consolation and knockout.last_chance
    assert Entry.objects.filter(tournament=knockout).count() == 24
    lengths = dict(
        Round.objects.filter(tournament=knockout).values_list("flight", "match_length").distinct()
    )
    assert lengths == {"main": 9, "consolation": 7}
    statuses = Counter(
        Match.objects.filter(pairing__round__tournament=knockout).values_list(
            "result_status", flat=True
        )
    )
    assert statuses[ResultStatus.CONFIRMED] and statuses[ResultStatus.NONE]  # some still to come
