"""Whether an imported archive's matches count for a rating pool (issue 16, part 4):
not unless a federation's admin chooses the pool; then they enter it dated by their
files' event dates (by their import when a file has none), in the order played."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import current_app as celery_app
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from clubs.models import AuditEntry, FederationDiscipline, Role
from games.models import ArchiveState, Match, ResultStatus
from games.services import archives as archives_service
from games.services.matfiles import event_moment
from outbox.models import PendingTask
from ratings import archives, services
from ratings.models import PlayerRating, RatedArchive, RatingChange, RatingPool
from tests.factories import (
    ClubFactory,
    DisciplineFactory,
    FederationFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.games.test_archive_import import World, mat, run_import, upload
from tests.ratings.test_services import confirmed, history_values, rating_values

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def archive_root(settings: Any, tmp_path: Path) -> Path:
    settings.ARCHIVE_ROOT = tmp_path / "archives"
    return Path(settings.ARCHIVE_ROOT)


@pytest.fixture
def eager() -> Iterator[None]:
    """Celery runs the owed tasks at once, in this process, raising what they raise."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = conf.task_eager_propagates = True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


@pytest.fixture
def world() -> World:
    return World()


DATED = b'; [EventDate "2021.03.14"]\n; [EventTime "19.30"]\n'
PLAYED = dt.datetime(2021, 3, 14, 19, 30)


def imported(world: World, capture: Any) -> tuple[Any, Match, Match]:
    """An archive of two matches between the world's players, imported by the
    federation's admin (official at once): one file dated, one not."""
    members = [
        ("dated.mat", DATED + mat(1, ("Mamedov Elchin", "Bob"))),
        ("undated.mat", mat(2, ("Bob", "Mamedov Elchin"))),
    ]
    archive = run_import(world, upload(world, members, capture), capture)
    assert archive.state == ArchiveState.DONE and archive.imported == 2
    by_name = {f.name: f.match for f in archive.files.select_related("match")}
    return archive, by_name["dated.mat"], by_name["undated.mat"]


@pytest.fixture
def pool(world: World) -> RatingPool:
    rated = FederationDiscipline.objects.create(
        federation=world.federation, discipline=world.discipline
    )
    return services.ensure_pool(rated)


def test_an_archive_imported_unrated_changes_no_rating(
    world: World, pool: RatingPool, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    before = timezone.now()
    archive, dated, undated = imported(world, django_capture_on_commit_callbacks)

    # Official at once (the federation's admin imported them), kept with their archive,
    # and dated by their files.
    for match in (dated, undated):
        assert (match.result_status, match.archive_id) == (ResultStatus.CONFIRMED, archive.pk)
    assert dated.finished_at == dated.started_at == timezone.make_aware(PLAYED)
    assert undated.finished_at is not None and undated.finished_at >= before

    # Nothing rated them (no task was owed while the archive imported them).
    assert not RatingChange.objects.filter(match__in=(dated, undated)).exists()
    assert not PlayerRating.objects.filter(pool=pool).exists()
    assert services.update_after_match(dated.pk)[0].action == "not rated"
    assert not services.rated_matches(pool).exists()
    assert not RatedArchive.objects.exists()


def test_an_archive_chosen_for_a_pool_enters_it_dated_by_its_files(
    world: World, pool: RatingPool, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    # A match played here between the same players, rated already, between the two
    # archive matches' dates: the archive's dated match goes before it.
    between = confirmed(
        world.bob,
        world.elchin,
        at=dt.datetime(2024, 3, 4, 12, 0, tzinfo=dt.UTC),
        rated=pool.rated_discipline,
    )
    services.update_after_match(between.pk)
    archive, dated, undated = imported(world, django_capture_on_commit_callbacks)
    assert list(RatingChange.objects.filter(pool=pool).values_list("match_id", flat=True)) == [
        between.pk,
        between.pk,
    ]

    with django_capture_on_commit_callbacks(execute=True):
        chosen = archives.rate_archive(archive, pool, by=world.admin)
        owed = list(
            PendingTask.objects.filter(task__startswith="ratings.").values_list("task", "args")
        )
    assert (chosen.pool, chosen.chosen_by) == (pool, world.admin)
    # From the archive's first match on, not from scratch.
    start = [pool.pk, dated.finished_at.isoformat(), dated.pk]
    assert owed == [("ratings.recompute_pool_from", start)]

    history = list(
        RatingChange.objects.filter(pool=pool)
        .order_by("played_at", "match_id", "player_id")
        .values_list("match_id", "played_at")
    )
    assert [match for match, _at in history[::2]] == [dated.pk, between.pk, undated.pk]
    assert history[0][1] == timezone.make_aware(PLAYED)  # the file's date
    assert history[4][1] == undated.finished_at  # no date in the file: its import
    ratings = {r.player_id: r for r in PlayerRating.objects.filter(pool=pool)}
    assert {ratings[world.bob.pk].matches, ratings[world.elchin.pk].matches} == {3}
    assert AuditEntry.objects.filter(action="rating_pool.rate_archive").count() == 1

    # Recomputed from the archive's first match on, as from scratch.
    kept = rating_values(pool), history_values(pool)
    services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == kept


def test_under_glicko2_the_archive_enters_its_periods_as_from_scratch(
    world: World, pool: RatingPool, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    FederationDiscipline.objects.filter(pk=pool.rated_discipline_id).update(rating_system="glicko2")
    pool.refresh_from_db()
    between = confirmed(
        world.bob,
        world.elchin,
        at=dt.datetime(2024, 3, 4, 12, 0, tzinfo=dt.UTC),
        rated=pool.rated_discipline,
    )
    services.update_after_match(between.pk)
    archive, _dated, _undated = imported(world, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        archives.rate_archive(archive, pool, by=world.admin)
    ratings = PlayerRating.objects.filter(pool=pool)
    assert sorted(ratings.values_list("matches", flat=True)) == [3, 3]
    first = RatingChange.objects.filter(pool=pool).order_by("played_at").first()
    assert first is not None and first.played_at < timezone.make_aware(dt.datetime(2022, 1, 1))
    kept = rating_values(pool), history_values(pool)
    services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == kept


def test_choosing_again_changes_nothing_and_another_pool_is_refused(
    world: World, pool: RatingPool, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    archive, _dated, _undated = imported(world, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        first = archives.rate_archive(archive, pool, by=world.admin)
    rows = history_values(pool)
    with django_capture_on_commit_callbacks(execute=True) as owed:
        again = archives.rate_archive(archive, pool, by=world.admin)
    assert again.pk == first.pk and not owed
    assert history_values(pool) == rows
    assert AuditEntry.objects.filter(action="rating_pool.rate_archive").count() == 1

    # A pool of another discipline of the federation rates other matches.
    other = services.ensure_pool(
        FederationDiscipline.objects.create(
            federation=world.federation, discipline=DisciplineFactory(code="long-other")
        )
    )
    with pytest.raises(ValidationError) as refused:
        archives.rate_archive(archive, other, by=world.admin)
    assert refused.value.code == "archive_pool"
    assert RatedArchive.objects.get().pool == pool


def test_only_the_federations_admins_choose_and_only_once_the_import_is_over(
    world: World, pool: RatingPool, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    archive, _dated, _undated = imported(world, django_capture_on_commit_callbacks)
    club_admin, other_admin = UserFactory(), UserFactory()
    grant(club_admin, Role.CLUB_ADMIN, ClubFactory(federation=world.federation))
    grant(other_admin, Role.FEDERATION_ADMIN, FederationFactory())
    player = PlayerFactory(federation=world.federation, user=UserFactory())
    for user in (club_admin, other_admin, player.user, UserFactory()):
        with pytest.raises(PermissionDenied):
            archives.rate_archive(archive, pool, by=user)
    assert not RatedArchive.objects.exists()

    archive.state = ArchiveState.IMPORTING
    archive.save(update_fields=["state"])
    with pytest.raises(ValidationError) as refused:
        archives.rate_archive(archive, pool, by=world.admin)
    assert refused.value.code == "archive_state"
    assert not RatedArchive.objects.exists()


def test_the_archive_page_offers_the_choice_to_the_federations_admin(
    world: World,
    pool: RatingPool,
    eager: None,
    django_capture_on_commit_callbacks: Any,
    client: Any,
) -> None:
    archive, dated, _undated = imported(world, django_capture_on_commit_callbacks)
    page = reverse("games:archive", args=[archive.pk])
    action = reverse("ratings:rate_archive", args=[archive.pk])
    client.force_login(world.admin)
    html = client.get(page).content.decode()
    assert 'id="archive-rating"' in html and f'action="{action}"' in html

    # Someone else's post is a 404, and nothing changes.
    outsider = UserFactory()
    grant(outsider, Role.FEDERATION_ADMIN, FederationFactory())
    client.force_login(outsider)
    link = pool.rated_discipline.pk
    assert client.post(action, {"rated_discipline": link}).status_code == 404
    assert not RatedArchive.objects.exists()

    client.force_login(world.admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(action, {"rated_discipline": link})
    assert response.status_code == 302 and response["Location"] == page
    assert RatedArchive.objects.get().pool == pool
    assert RatingChange.objects.filter(pool=pool, match=dated).count() == 2
    html = client.get(page).content.decode()
    assert f'action="{action}"' not in html and str(pool) in html


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ((("EventDate", "2021.03.14"), ("EventTime", "19.30")), dt.datetime(2021, 3, 14, 19, 30)),
        ((("EventDate", "2021-03-14"),), dt.datetime(2021, 3, 14)),  # an .sgf DT, or ISO
        ((("eventdate", "2021/3/4"), ("EventTime", "9:05")), dt.datetime(2021, 3, 4, 9, 5)),
        ((("EventDate", "2021.02.30"),), None),  # impossible
        ((("EventDate", "2999.01.01"),), None),  # still to come
        ((("EventDate", "someday"),), None),
        ((("Event", "Club night"),), None),
    ],
)
def test_the_event_date_of_a_file(
    headers: tuple[tuple[str, str], ...], expected: dt.datetime | None
) -> None:
    moment = event_moment(headers)
    assert moment == (None if expected is None else timezone.make_aware(expected))


def test_an_importing_archive_owes_no_rating_task_a_finished_one_does(
    world: World, eager: None, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    """While its archive imports a match, no pool can count it (one is chosen only
    once the import is over, and ``rate_archive`` recomputes from the archive's first
    match): its result owes no rating task.  Once the import is over, a change to
    one of its results owes the task as any result does."""
    from ratings import receivers

    owed: list[tuple[Any, ...]] = []
    real_owe = receivers.owe

    def recording_owe(task: Any, *ids: Any) -> None:
        owed.append((task.name, *ids))
        real_owe(task, *ids)

    monkeypatch.setattr(receivers, "owe", recording_owe)
    archive, dated, _undated = imported(world, django_capture_on_commit_callbacks)
    assert [o for o in owed if o[0] == "ratings.update_for_match"] == []

    assert archive.state == ArchiveState.DONE and not archives_service.storing()
    receivers.on_result_changed(dated.pk)
    assert owed[-1] == ("ratings.update_for_match", dated.pk)
