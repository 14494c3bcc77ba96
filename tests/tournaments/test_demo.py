"""The demo tournaments of `make run`: their promised shape, loaded twice without change."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db.models import Max, Min
from django.utils import timezone

from clubs import demo as clubs_demo
from games.models import Match, ResultStatus, Turn
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
    assert set(Round.objects.filter(tournament=swiss).values_list("match_length", flat=True)) == {
        demo.SWISS_MATCH_LENGTH
    }
    matches = Match.objects.filter(pairing__round__tournament=swiss)
    assert matches.exists()
    assert set(matches.values_list("result_status", flat=True)) == {ResultStatus.CONFIRMED}
    assert set(matches.values_list("length", flat=True)) == {demo.SWISS_MATCH_LENGTH}
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
    # The standings count the results the played games gave.
    assert {row["entry"]: row["losses"] for row in final.rows} == {
        e.pk: losses[e.pk] for e in entries
    }

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
        # a round started late in the evening may end after midnight
        last_day = max(timezone.localtime(r.closed_at or loaded_at).date() for r in rounds)
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
            # Its turns were played within the round, the last one as the match ended.
            times = Turn.objects.filter(game__match=match).aggregate(
                first=Min("recorded_at"), last=Max("recorded_at")
            )
            assert rnd.started_at < times["first"] and times["last"] == finished
            assert tournament.starts_on <= timezone.localtime(times["first"]).date()
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


def test_every_finished_demo_match_is_played_move_by_move_and_scored_by_its_games(client) -> None:  # type: ignore[no-untyped-def]
    """Every finished match of both tournaments has every game turn by turn, played by
    the demo player, and its official result is the engine's score of them (nothing
    entered by hand); the better rated player wins more often than not; one match of
    the current round is under way with a live score; a replay page shows the moves;
    the same seed plays the same games."""
    import random

    from games import adapters, demo_player
    from games.models import Game, MatchState, ReportSource, TurnKind

    clubs_demo.load()
    demo.load()
    ratings_of = dict(Entry.objects.values_list("pk", "rating"))
    finished = Pairing.objects.filter(
        round__tournament__slug__in=[demo.SWISS_SLUG, demo.KNOCKOUT_SLUG],
        match__state=MatchState.FINISHED,
    ).select_related("match")
    assert finished.count() > 100
    better_won = decided_by_rating = 0
    for pairing in finished:
        match = pairing.match
        assert match.recorded and match.result_status == ResultStatus.CONFIRMED
        games = list(match.games.order_by("number"))
        assert games and all(g.winner is not None for g in games)
        assert all(g.turns.filter(kind=TurnKind.PLAY).count() > 10 for g in games)
        record = adapters.engine_match(match, games)
        assert record.finished
        assert (match.score1, match.score2) == tuple(record.final_score)
        assert match.winner == record.winner + 1  # type: ignore[operator]
        report = match.reports.get(status="confirmed")
        assert report.source == ReportSource.RECORD
        assert (report.score1, report.score2) == (match.score1, match.score2)
        times = list(
            Turn.objects.filter(game__match=match)
            .order_by("game__number", "number")
            .values_list("recorded_at", flat=True)
        )
        assert match.started_at < times[0] and times == sorted(times)
        assert times[-1] <= match.finished_at < report.decided_at
        first, second = ratings_of[pairing.entry1_id], ratings_of[pairing.entry2_id]
        if first != second:
            decided_by_rating += 1
            better_won += match.winner == (1 if first > second else 2)
    # Plausible by strength: the better rated player wins most matches, not all.
    assert decided_by_rating // 2 < better_won < decided_by_rating

    knockout = Tournament.objects.get(slug=demo.KNOCKOUT_SLUG)
    live = Match.objects.get(
        pairing__round__tournament=knockout, recorded=True, state=MatchState.PLAYING
    )
    assert live.result_status == ResultStatus.NONE
    assert Game.objects.filter(match=live, winner__isnull=False).count() == demo.LIVE_GAMES
    last = Turn.objects.filter(game__match=live).order_by("-recorded_at").first()
    assert last is not None and live.started_at < last.recorded_at < timezone.now()
    unplayed = Match.objects.filter(
        pairing__round__tournament=knockout, result_status=ResultStatus.NONE
    ).exclude(pk=live.pk)
    assert unplayed.exists() and not Turn.objects.filter(game__match__in=unplayed).exists()

    shown = finished.filter(round__tournament=knockout).order_by("match_id").first().match  # type: ignore[union-attr]
    response = client.get(f"/matches/{shown.pk}/games/1/replay/")
    assert response.status_code == 200
    first_play = Turn.objects.filter(game__match=shown, game__number=1, kind=TurnKind.PLAY)
    assert first_play.first().moves in response.content.decode()  # type: ignore[union-attr]

    # The same seed plays the same games: the first one recorded again, elsewhere.
    pairing = Pairing.objects.select_related("round__tournament").get(match=shown)
    again = Match.objects.create(
        player1=shown.player1,
        player2=shown.player2,
        discipline=shown.discipline,
        federation=shown.federation,
        length=shown.length,
        recorded=True,
    )
    seed = f"{knockout.slug}:{pairing.round.flight}:{pairing.round.number}:{pairing.table}"
    sides = (
        demo._strength(ratings_of[pairing.entry1_id]),
        demo._strength(ratings_of[pairing.entry2_id]),
    )
    demo_player.play_match(again, random.Random(seed), sides, most_games=1)

    def first_game(match: Match) -> list[tuple[str, list[int], str]]:
        rows = Turn.objects.filter(game__match=match, game__number=1).order_by("number")
        return [(t.kind, t.dice, t.moves) for t in rows]

    assert first_game(again) == first_game(shown) and len(first_game(shown)) > 20


def test_demo_player_plays_long_nardy_to_the_end_preferring_its_heuristic() -> None:
    """A one-point long nardy match recorded to its end, and a player that never
    blunders beats one that always plays a random legal play most of the time."""
    import random

    from clubs.models import Discipline, Player
    from games import demo_player
    from games.models import MatchState

    clubs_demo.load()
    long = Discipline.objects.get(code="long")
    first, second = Player.objects.order_by("pk")[:2]
    wins = 0
    for seed in range(3):
        match = Match.objects.create(
            player1=first,
            player2=second,
            discipline=long,
            federation=first.federation,
            length=1,
            recorded=True,
        )
        recording = demo_player.play_match(
            match, random.Random(seed), (demo_player.Side(0.0), demo_player.Side(1.0))
        )
        match.refresh_from_db()
        assert recording.finished and match.state == MatchState.FINISHED
        assert match.result_status == ResultStatus.CONFIRMED
        wins += match.winner == 1
    assert wins >= 2
