"""The ratings services against the database: what is rated, the incremental path,
corrections, lists, merges and the read-only queries."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.utils import timezone

from clubs import services as clubs_services
from clubs.models import AuditEntry, FederationDiscipline, Player, Role
from config.celery import app as celery_app
from games import services as games_services
from games.models import Match, MatchState, ResultStatus
from ratings import queries, services
from ratings.core import FibsSettings, Glicko2Settings, RatedMatch, recompute
from ratings.core.periods import day_period
from ratings.models import PlayerRating, RatingChange, RatingList, RatingPool
from tests.factories import (
    DisciplineFactory,
    FederationFactory,
    MatchFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.games.helpers import user_of

pytestmark = pytest.mark.django_db

BASE = dt.datetime(2024, 3, 4, 12, 0, tzinfo=dt.UTC)


# --- helpers shared with test_tasks.py and test_equivalence.py -------------------------


@pytest.fixture
def eager() -> Iterator[None]:
    """Celery runs tasks in the caller (as a worker would, without one)."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


def rated_discipline(system: str = "fibs", **fields: Any) -> FederationDiscipline:
    return FederationDiscipline.objects.create(
        federation=FederationFactory(),
        discipline=DisciplineFactory(),
        rating_system=system,
        **fields,
    )


def players_of(rated: FederationDiscipline, count: int) -> list[Player]:
    return [PlayerFactory(federation=rated.federation) for _ in range(count)]


def confirmed(
    one: Player,
    two: Player,
    *,
    at: dt.datetime,
    winner: int = 1,
    length: int = 5,
    rated: FederationDiscipline | None = None,
    **fields: Any,
) -> Match:
    """A match whose result is official, written directly (the services are tested elsewhere)."""
    discipline = rated.discipline if rated is not None else DisciplineFactory()
    return Match.objects.create(
        player1=one,
        player2=two,
        discipline=discipline,
        federation=one.federation,
        length=length,
        state=MatchState.FINISHED,
        result_status=ResultStatus.CONFIRMED,
        winner=winner,
        score1=length if winner == 1 else 0,
        score2=length if winner == 2 else 0,
        finished_at=at,
        **fields,
    )


def rating_values(pool: RatingPool) -> list[tuple[Any, ...]]:
    return list(
        PlayerRating.objects.filter(pool=pool)
        .order_by("player_id")
        .values_list(
            "player_id", "rating", "experience", "rd", "volatility", "matches", "last_played_at"
        )
    )


def history_values(pool: RatingPool) -> list[tuple[Any, ...]]:
    fields = [
        f.attname for f in RatingChange._meta.concrete_fields if f.attname not in ("id", "pool_id")
    ]
    return list(
        RatingChange.objects.filter(pool=pool)
        .order_by("played_at", "match_id", "player_id")
        .values_list(*fields)
    )


def core_matches(pool: RatingPool, matches: list[Match]) -> list[RatedMatch]:
    """The matches as the pure core takes them (to compare with the stored results)."""
    days = pool.rated_discipline.glicko_period_days
    out = []
    for m in sorted(matches, key=lambda m: (m.finished_at, m.pk)):
        won, lost = (m.player1_id, m.player2_id) if m.winner == 1 else (m.player2_id, m.player1_id)
        local = timezone.localtime(m.finished_at).date()
        out.append(RatedMatch(m.pk, m.finished_at, won, lost, m.length, day_period(local, days)))
    return out


def pool_of(rated: FederationDiscipline) -> RatingPool:
    return services.ensure_pool(rated)


# --- what is rated -----------------------------------------------------------------


def test_a_result_confirmed_through_games_services_updates_the_pool(
    eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    match = MatchFactory(recorded=False, length=11)
    rated = FederationDiscipline.objects.create(
        federation=match.federation, discipline=match.discipline
    )
    report = games_services.submit_report(match, by=user_of(match, 0), score1=11, score2=4)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        games_services.confirm_report(report, by=user_of(match, 1))
    assert len(callbacks) == 1

    pool = RatingPool.objects.get(rated_discipline=rated)
    rows = {row.player_id: row for row in RatingChange.objects.filter(pool=pool)}
    # RATINGS.md vector: 1500/0 beats 1500/0 in an 11-point match: +33.1662 / -33.1662.
    won, lost = rows[match.player1_id], rows[match.player2_id]
    assert (won.rating_before, round(won.rating_after - won.rating_before, 4)) == (1500, 33.1662)
    assert (lost.rating_before, round(lost.rating_after - lost.rating_before, 4)) == (
        1500,
        -33.1662,
    )
    assert (won.experience_before, won.experience_after, won.match_id) == (0, 11, match.pk)
    assert won.rd_before is None and won.period is None  # FIBS rows carry no Glicko values
    ratings = dict(PlayerRating.objects.filter(pool=pool).values_list("player_id", "rating"))
    assert ratings == {match.player1_id: won.rating_after, match.player2_id: lost.rating_after}
    pool.refresh_from_db()
    assert (pool.computed_through_at, pool.computed_through_match) == (
        Match.objects.get(pk=match.pk).finished_at,
        match.pk,
    )


@pytest.mark.parametrize(
    "case",
    ["forfeit", "money session", "unconfirmed", "other federation", "mixed federations"],
)
def test_what_the_pool_does_not_rate(case: str) -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two = players_of(rated, 2)
    kwargs: dict[str, Any] = {"rated": rated, "at": BASE}
    if case == "forfeit":
        match = confirmed(one, two, forfeit=True, **kwargs)
    elif case == "money session":
        match = confirmed(one, two, length=0, **kwargs)
    elif case == "unconfirmed":
        match = confirmed(one, two, **kwargs)
        Match.objects.filter(pk=match.pk).update(result_status=ResultStatus.PENDING)
    elif case == "other federation":
        other = FederationFactory()
        match = confirmed(
            PlayerFactory(federation=other), PlayerFactory(federation=other), **kwargs
        )
    else:
        match = confirmed(one, PlayerFactory(federation=FederationFactory()), **kwargs)
    rated_one = confirmed(one, two, at=BASE + dt.timedelta(hours=1), rated=rated)

    outcomes = services.update_after_match(match.pk)
    assert [o.action for o in outcomes if o.pool_id == pool.pk] in ([], ["not rated"])
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()
    assert list(services.rated_matches(pool)) == [rated_one]
    services.recompute_pool(pool)
    assert set(RatingChange.objects.values_list("match_id", flat=True)) == {rated_one.pk}


def test_a_forfeit_set_later_by_an_override_takes_the_match_out(
    eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    match = MatchFactory(recorded=False, length=3)
    rated = FederationDiscipline.objects.create(
        federation=match.federation, discipline=match.discipline
    )
    organizer = UserFactory()
    grant(organizer, Role.FEDERATION_ADMIN, match.federation)
    with django_capture_on_commit_callbacks(execute=True):
        games_services.confirm_report(
            games_services.submit_report(match, by=user_of(match, 0), score1=3, score2=0),
            by=user_of(match, 1),
        )
    pool = RatingPool.objects.get(rated_discipline=rated)
    assert RatingChange.objects.filter(pool=pool).count() == 2
    with django_capture_on_commit_callbacks(execute=True):
        games_services.override_result(
            match, by=organizer, score1=0, score2=3, reason="no-show", forfeit=True
        )
    assert not RatingChange.objects.filter(pool=pool).exists()
    assert not PlayerRating.objects.filter(pool=pool).exists()


def test_a_new_rated_discipline_gets_its_pool_computed_from_scratch() -> None:
    rated = rated_discipline()
    one, two, three = players_of(rated, 3)
    early = confirmed(one, two, at=BASE, rated=rated)
    late = confirmed(two, three, at=BASE + dt.timedelta(days=1), rated=rated)
    assert not RatingPool.objects.exists()
    [outcome] = services.update_after_match(late.pk)
    assert (outcome.action, outcome.start, outcome.matches, outcome.rows) == (
        "recomputed",
        None,
        2,
        4,
    )
    assert set(RatingChange.objects.values_list("match_id", flat=True)) == {early.pk, late.pk}


# --- the incremental path and corrections --------------------------------------------


def test_later_matches_are_applied_one_by_one_and_equal_the_pure_maths() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    people = players_of(rated, 4)
    matches = []
    for n in range(12):
        one, two = people[n % 4], people[(n * 3 + 1) % 4]
        if one == two:
            two = people[(n + 2) % 4]
        matches.append(
            confirmed(
                one,
                two,
                at=BASE + dt.timedelta(hours=n),
                rated=rated,
                winner=1 + n % 2,
                length=1 + 2 * (n % 5),
            )
        )
        [outcome] = services.update_after_match(matches[-1].pk)
        assert outcome.action == "applied"
    state, rows = recompute(FibsSettings(), core_matches(pool, matches))
    stored = dict(PlayerRating.objects.filter(pool=pool).values_list("player_id", "rating"))
    assert stored == {player: s.rating for player, s in state.players.items()}
    assert RatingChange.objects.filter(pool=pool).count() == len(rows) == 24


def test_the_same_match_again_changes_nothing() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two, three = players_of(rated, 3)
    first = confirmed(one, two, at=BASE, rated=rated)
    second = confirmed(two, three, at=BASE + dt.timedelta(hours=1), rated=rated)
    services.update_after_match(first.pk)
    services.update_after_match(second.pk)
    ids = sorted(RatingChange.objects.values_list("pk", flat=True))
    ratings = rating_values(pool)
    for match in (first, second, first):
        assert [o.action for o in services.update_after_match(match.pk)] == ["unchanged"]
    assert sorted(RatingChange.objects.values_list("pk", flat=True)) == ids  # not rewritten
    assert rating_values(pool) == ratings


@pytest.mark.parametrize("system", ["fibs", "glicko2"])
def test_late_and_corrected_results_recompute_from_the_first_change(system: str) -> None:
    rated = rated_discipline(system, glicko_period_days=7)
    pool = pool_of(rated)
    people = players_of(rated, 5)
    matches = [
        confirmed(
            people[n % 5],
            people[(n + 1 + (n // 5) % 4) % 5],
            at=BASE + dt.timedelta(days=n),
            rated=rated,
            winner=1 + (n * 7) % 2,
            length=3 + 2 * (n % 3),
        )
        for n in range(30)
    ]
    services.recompute_pool(pool)
    # A late result in the past, then a corrected one (winner and length) before it.
    late = confirmed(people[0], people[3], at=BASE + dt.timedelta(days=12, hours=3), rated=rated)
    [outcome] = services.update_after_match(late.pk)
    assert (outcome.action, outcome.start) == ("recomputed", (late.finished_at, late.pk))
    corrected = matches[5]
    Match.objects.filter(pk=corrected.pk).update(winner=2, score1=0, score2=9, length=9)
    [outcome] = services.update_after_match(corrected.pk)
    assert outcome.action == "recomputed"
    incremental = rating_values(pool), history_values(pool)

    services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == incremental
    everything = list(services.rated_matches(pool))
    settings: Any = FibsSettings() if system == "fibs" else Glicko2Settings()
    state, _rows = recompute(settings, core_matches(pool, everything))
    assert {p: s.rating for p, s in state.players.items()} == {
        row[0]: row[1] for row in incremental[0]
    }


def test_a_match_moved_in_time_is_rated_at_its_new_place() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two, three = players_of(rated, 3)
    a = confirmed(one, two, at=BASE, rated=rated)
    b = confirmed(two, three, at=BASE + dt.timedelta(days=1), rated=rated)
    services.recompute_pool(pool)
    Match.objects.filter(pk=a.pk).update(finished_at=BASE + dt.timedelta(days=2))
    [outcome] = services.update_after_match(a.pk)
    assert outcome.action == "recomputed" and outcome.start == (BASE, a.pk)
    assert list(
        RatingChange.objects.filter(pool=pool)
        .order_by("played_at", "match_id")
        .values_list("match_id", flat=True)
    ) == [b.pk, b.pk, a.pk, a.pk]


def test_glicko2_rows_carry_rd_volatility_and_period() -> None:
    rated = rated_discipline("glicko2", glicko_period_days=7)
    pool = pool_of(rated)
    one, two, three = players_of(rated, 3)
    first = confirmed(one, two, at=BASE, rated=rated)
    services.update_after_match(first.pk)
    # Same period: the period is rated again with both matches.
    second = confirmed(one, three, at=BASE + dt.timedelta(hours=2), rated=rated, winner=2)
    services.update_after_match(second.pk)
    rows = {r.player_id: r for r in RatingChange.objects.filter(pool=pool)}
    assert set(rows) == {one.pk, two.pk, three.pk}
    assert rows[one.pk].matches == 2 and rows[one.pk].match_id == second.pk
    assert rows[one.pk].rd_before == 350 and rows[one.pk].volatility_before == 0.06
    assert rows[one.pk].rd_after is not None and rows[one.pk].rd_after < 350
    assert rows[one.pk].period == day_period(timezone.localtime(BASE).date(), 7)
    state, _ = recompute(Glicko2Settings(), core_matches(pool, [first, second]))
    stored = {r.player_id: (r.rating, r.rd, r.volatility) for r in PlayerRating.objects.all()}
    assert stored == {p: (s.rating, s.rd, s.volatility) for p, s in state.players.items()}


def test_initial_rating_and_glicko_settings_come_from_the_pool() -> None:
    rated = rated_discipline("glicko2", initial_rating=1600)
    pool = pool_of(rated)
    pool.glicko_tau, pool.start_rd = 0.8, 300.0
    pool.save()
    one, two = players_of(rated, 2)
    confirmed(one, two, at=BASE, rated=rated)
    services.recompute_pool(pool)
    row = RatingChange.objects.get(pool=pool, player=one)
    assert (row.rating_before, row.rd_before) == (1600, 300)
    settings = Glicko2Settings(tau=0.8, start_rating=1600, start_rd=300, max_rd=300)
    state, _ = recompute(settings, core_matches(pool, list(services.rated_matches(pool))))
    assert row.rating_after == state.players[one.pk].rating


def test_recompute_by_a_user_needs_the_federation_admin_and_is_audited() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    with pytest.raises(PermissionDenied):
        services.recompute_pool(pool, by=UserFactory())
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, rated.federation)
    services.recompute_pool(pool, by=admin)
    assert AuditEntry.objects.filter(action="rating_pool.recompute", actor=admin).count() == 1


# --- merged players ----------------------------------------------------------------


def test_merging_two_rated_players_keeps_one_rating_recomputed(
    eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    survivor, duplicate, a, b = players_of(rated, 4)
    confirmed(survivor, a, at=BASE, rated=rated)
    confirmed(b, duplicate, at=BASE + dt.timedelta(days=1), rated=rated)
    confirmed(duplicate, a, at=BASE + dt.timedelta(days=2), rated=rated, winner=2)
    confirmed(survivor, b, at=BASE + dt.timedelta(days=3), rated=rated)
    services.recompute_pool(pool)
    assert PlayerRating.objects.filter(pool=pool).count() == 4

    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, rated.federation)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        clubs_services.merge_players(survivor, duplicate, by=admin)
    # The pool's recompute, owed once (not once per match), and the tournament pages
    # and rating lists that show the two names (clubs.names_changed).
    assert len(callbacks) == 3
    assert not PlayerRating.objects.filter(player=duplicate).exists()
    merged = rating_values(pool), history_values(pool)
    assert PlayerRating.objects.get(pool=pool, player=survivor).matches == 4
    services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == merged


# --- lists -------------------------------------------------------------------------


def test_publish_a_list_with_ranks_provisional_marks_and_changes() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two, three = players_of(rated, 3)
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, rated.federation)
    confirmed(one, two, at=BASE, rated=rated, length=7)
    confirmed(one, three, at=BASE + dt.timedelta(days=40), rated=rated, length=7)
    services.recompute_pool(pool)

    first = services.publish_list(pool, dt.date(2024, 4, 1), by=admin)
    entries = list(first.entries.values_list("player_id", "rank", "provisional", "change"))
    assert entries == [(one.pk, 1, True, None), (two.pk, 2, True, None)]
    second = services.publish_list(pool, dt.date(2024, 5, 1), by=admin)
    by_player = {e.player_id: e for e in second.entries.all()}
    assert set(by_player) == {one.pk, two.pk, three.pk}
    old = dict(first.entries.values_list("player_id", "rating"))
    assert by_player[one.pk].change == round(by_player[one.pk].rating - old[one.pk], 2)
    assert by_player[two.pk].change == 0 and by_player[three.pk].change is None
    assert by_player[one.pk].matches == 2 and by_player[one.pk].experience == 14
    assert AuditEntry.objects.filter(action="rating_list.publish").count() == 2


def test_a_published_list_is_frozen_and_published_once() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two = players_of(rated, 2)
    confirmed(one, two, at=BASE, rated=rated)
    services.recompute_pool(pool)
    day = dt.date(2024, 4, 1)
    published = services.publish_list(pool, day, by=None)
    frozen = list(published.entries.values_list("player_id", "rank", "rating", "change"))

    # Later: a late result before the list's date and a new one after it.
    confirmed(two, one, at=BASE + dt.timedelta(days=1), rated=rated, length=11)
    confirmed(two, one, at=BASE + dt.timedelta(days=60), rated=rated, length=11)
    services.recompute_pool(pool)
    with pytest.raises(ValidationError, match="published already"):
        services.publish_list(pool, day, by=None)
    assert RatingList.objects.filter(pool=pool).count() == 1
    assert list(published.entries.values_list("player_id", "rank", "rating", "change")) == frozen
    assert PlayerRating.objects.get(pool=pool, player=two).rating > 1500  # ratings did change


def test_lists_count_matches_before_their_date_and_refuse_the_future() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two, three = players_of(rated, 3)
    midnight = timezone.make_aware(dt.datetime(2024, 4, 1))
    confirmed(one, two, at=midnight - dt.timedelta(seconds=1), rated=rated)
    confirmed(one, three, at=midnight, rated=rated)
    services.recompute_pool(pool)
    listed = services.publish_list(pool, dt.date(2024, 4, 1), by=None)
    assert set(listed.entries.values_list("player_id", flat=True)) == {one.pk, two.pk}
    with pytest.raises(ValidationError, match="future"):
        services.publish_list(pool, timezone.localdate() + dt.timedelta(days=1), by=None)


def test_glicko2_lists_cover_whole_periods_with_rd_grown() -> None:
    rated = rated_discipline("glicko2", glicko_period_days=7)
    pool = pool_of(rated)
    one, two = players_of(rated, 2)
    confirmed(one, two, at=BASE, rated=rated)
    services.recompute_pool(pool)
    played = day_period(timezone.localtime(BASE).date(), 7)  # Monday 4 to Sunday 10 March
    assert day_period(dt.date(2024, 3, 5), 7) == played == day_period(dt.date(2024, 3, 10), 7)
    # The period has not ended by the 10th: that list would be empty, and is refused.
    assert services.preview_list(pool, dt.date(2024, 3, 10), by=None).players == 0
    with pytest.raises(services.EmptyRatingList, match="would be empty"):
        services.publish_list(pool, dt.date(2024, 3, 10), by=None)
    assert not RatingList.objects.filter(pool=pool).exists()
    ended = services.publish_list(pool, dt.date(2024, 3, 11), by=None)
    assert set(ended.entries.values_list("player_id", flat=True)) == {one.pk, two.pk}
    later = services.publish_list(pool, dt.date(2024, 6, 1), by=None)
    entry = later.entries.get(player=one)
    stored = PlayerRating.objects.get(pool=pool, player=one)
    idle = day_period(dt.date(2024, 6, 1), 7) - 1 - played
    assert idle > 0 and entry.rd is not None and stored.rd is not None
    expected = math.sqrt(stored.rd**2 + idle * (173.7178 * stored.volatility) ** 2)
    assert entry.rd == pytest.approx(min(expected, 350.0), abs=0.01)
    assert entry.provisional is True  # RD above 110


def test_publishing_needs_the_federation_admin() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    with pytest.raises(PermissionDenied):
        services.publish_list(pool, dt.date(2024, 4, 1), by=UserFactory())
    other_admin = UserFactory()
    grant(other_admin, Role.FEDERATION_ADMIN, FederationFactory())
    with pytest.raises(PermissionDenied):
        services.publish_list(pool, dt.date(2024, 4, 1), by=other_admin)
    assert not RatingList.objects.exists()


def test_monthly_publication_is_idempotent() -> None:
    rated = rated_discipline()
    empty = pool_of(rated_discipline())
    pool = pool_of(rated)
    one, two = players_of(rated, 2)
    confirmed(one, two, at=BASE, rated=rated)
    services.recompute_pool(pool)
    day = dt.date(2024, 5, 1)
    assert [lst.pool_id for lst in services.publish_monthly(day)] == [pool.pk]
    assert services.publish_monthly(day) == []
    assert not RatingList.objects.filter(pool=empty).exists()


# --- queries -----------------------------------------------------------------------


def test_current_ratings_for_seeding(django_assert_num_queries: Any) -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two, newcomer = players_of(rated, 3)
    outsider = PlayerFactory()
    confirmed(one, two, at=BASE, rated=rated)
    services.recompute_pool(pool)
    with django_assert_num_queries(1):
        found = queries.current_ratings(
            rated.federation, rated.discipline, [one.pk, two.pk, newcomer.pk, outsider.pk]
        )
    assert set(found) == {one.pk, two.pk} and found[one.pk] > 1500 > found[two.pk]
    assert queries.current_ratings(FederationFactory(), rated.discipline, [one.pk]) == {}
    assert queries.current_ratings(rated.federation.pk, rated.discipline.pk, []) == {}


def test_player_history_is_in_order_with_its_matches(django_assert_num_queries: Any) -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, *others = players_of(rated, 6)
    for n, other in enumerate(others):
        confirmed(one, other, at=BASE - dt.timedelta(days=n), rated=rated)
    services.recompute_pool(pool)
    with django_assert_num_queries(1):
        rows = list(queries.player_history(pool, one))
        opponents = [row.match.player2.name_latin for row in rows]
    assert [row.played_at for row in rows] == sorted(row.played_at for row in rows)
    assert opponents == [o.name_latin for o in reversed(others)]
    assert rows[-1].rating_after == PlayerRating.objects.get(pool=pool, player=one).rating


def test_ensure_pool_is_idempotent() -> None:
    rated = rated_discipline()
    assert services.ensure_pool(rated) == services.ensure_pool(rated)
    assert RatingPool.objects.count() == 1


@pytest.mark.parametrize("copy", [False, True])
def test_history_writer_writes_every_row_and_reads_them_back(copy: bool) -> None:
    from ratings import adapters

    if copy and connection.vendor != "postgresql":
        pytest.skip("COPY needs PostgreSQL (set DATABASE_URL)")
    rated = rated_discipline()
    pool = pool_of(rated)
    people = players_of(rated, 3)
    matches = [
        confirmed(people[n % 3], people[(n + 1) % 3], at=BASE + dt.timedelta(hours=n), rated=rated)
        for n in range(5)
    ]
    _state, rows = recompute(FibsSettings(), core_matches(pool, matches))
    with adapters.HistoryWriter(pool, copy=copy) as writer:
        writer(rows[:3])
        writer(rows[3:])
    assert writer.written == 10
    assert sorted(adapters.read_history(pool)) == sorted(rows)


def test_demo_load_computes_the_demo_pools_once() -> None:
    from clubs import demo as clubs_demo
    from ratings import demo

    clubs_demo.load_world()
    rated = FederationDiscipline.objects.get(federation__slug="fsnr", discipline__code="short")
    one, two, three = Player.objects.filter(federation=rated.federation)[:3]
    long_ago = timezone.now() - dt.timedelta(days=70)
    confirmed(one, two, at=long_ago, rated=rated)
    confirmed(three, one, at=long_ago + dt.timedelta(days=1), rated=rated, winner=2)

    outcomes = demo.load()
    demo_disciplines = FederationDiscipline.objects.filter(federation__slug__in=["fsnr", "anf"])
    # FSNR's short, long and Soldiers; ANF's long and short: a pool each.
    assert len(outcomes) == demo_disciplines.count() == RatingPool.objects.count() == 5
    pool = RatingPool.objects.get(rated_discipline=rated)
    assert PlayerRating.objects.filter(pool=pool).count() == 3
    lists = RatingList.objects.filter(pool=pool)
    assert lists.count() == 2 and all(lst.is_published for lst in lists)
    assert not RatingList.objects.exclude(pool=pool).exists()  # no history, no list
    latest = lists.order_by("-date").first()
    assert latest is not None and latest.entries.count() == 3

    demo.load()  # again: same pools, no second list
    assert RatingList.objects.count() == 2
    assert PlayerRating.objects.filter(pool=pool).count() == 3
