"""The demo tournaments of `make run`: their promised shape, loaded twice without change."""

from __future__ import annotations

from collections import Counter

import pytest
from django.utils import timezone

from clubs import demo as clubs_demo
from games.models import Match, ResultStatus
from ratings import demo as ratings_demo
from ratings.models import RatingChange, RatingPool
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


def test_demo_matches_carry_their_tournaments_dates_and_the_history_spreads_over_days() -> None:
    """Every result is dated within its round and its tournament's days (never at the
    moment the demo was loaded, never in the future), so the rating history chart
    shows a line over several dates, not one vertical stroke."""
    loaded_at = timezone.now()
    clubs_demo.load()
    demo.load()
    ratings_demo.load()

    for tournament in Tournament.objects.filter(slug__in=[demo.SWISS_SLUG, demo.KNOCKOUT_SLUG]):
        rounds = list(Round.objects.filter(tournament=tournament).order_by("started_at"))
        assert len({timezone.localtime(r.started_at).date() for r in rounds}) > 1
        last_day = max(timezone.localtime(r.started_at).date() for r in rounds)
        assert tournament.starts_on == timezone.localtime(rounds[0].started_at).date()
        pairings = Pairing.objects.filter(
            round__tournament=tournament, match__finished_at__isnull=False
        ).select_related("round", "match")
        assert pairings.exists()
        for pairing in pairings:
            match, rnd = pairing.match, pairing.round
            finished = match.finished_at
            assert tournament.starts_on <= timezone.localtime(finished).date() <= last_day
            assert rnd.started_at < finished <= (rnd.closed_at or loaded_at)
            assert match.started_at == rnd.started_at
            report = match.reports.get(status="confirmed")
            assert finished < report.decided_at < loaded_at
        closed = [r for r in rounds if r.closed_at is not None]
        assert all(r.started_at < r.closed_at < loaded_at for r in closed)
        # Rounds follow each other: each starts after the one before it closed.
        for before, after in zip(closed, rounds[1:], strict=False):
            assert before.closed_at <= after.started_at or before.flight != after.flight

    swiss = Tournament.objects.get(slug=demo.SWISS_SLUG)
    pool = RatingPool.objects.get(
        rated_discipline__federation=swiss.federation, rated_discipline__discipline=swiss.discipline
    )
    history = RatingChange.objects.filter(pool=pool)
    swiss_matches = Match.objects.filter(pairing__round__tournament=swiss)
    assert history.filter(match__in=swiss_matches).count() == 2 * swiss_matches.count()
    for change in history.select_related("match"):
        assert change.played_at == change.match.finished_at
    days = {timezone.localtime(at).date() for at in history.values_list("played_at", flat=True)}
    assert len(days) >= 3  # three rounds a day
    # The player with the most rated matches (the one who lasted longest) played on
    # several days, so their chart is a line over several dates.
    busiest = Counter(history.values_list("player_id", flat=True)).most_common(1)[0][0]
    theirs = history.filter(player_id=busiest).values_list("played_at", flat=True)
    assert len({timezone.localtime(at).date() for at in theirs}) > 1

    short = Tournament.objects.get(slug=demo.KNOCKOUT_SLUG)
    short_history = RatingChange.objects.filter(
        pool__rated_discipline__federation=short.federation,
        pool__rated_discipline__discipline=short.discipline,
    ).values_list("played_at", flat=True)
    assert len({timezone.localtime(at).date() for at in short_history}) > 1
    assert max(short_history) < loaded_at
