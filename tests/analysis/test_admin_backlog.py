"""The admin's view of the analysis (issue 17): how far the analysis of all the
finished recorded matches has come, as a progress bar, and queueing the backlog,
which only site admins may do (the role matrix of ``analysis.queue_backlog``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from analysis import admin as analysis_admin
from analysis import services
from analysis.models import MatchAnalysis
from clubs.models import Role
from tests.analysis.test_stored import eager  # noqa: F401 (a fixture)
from tests.factories import MatchFactory, UserFactory, grant
from tests.games.test_archive_import import World, mat, run_import, upload

pytestmark = pytest.mark.django_db

# The actions whose role matrix is here (tests/test_permission_coverage.py).
COVERED = {"analysis.queue_backlog"}


@pytest.fixture(autouse=True)
def archive_root(settings: Any, tmp_path: Path) -> None:
    settings.ARCHIVE_ROOT = tmp_path / "archives"


def test_only_site_admins_queue_the_backlog() -> None:
    world = World()
    site_admin = UserFactory(is_superuser=True, is_staff=True)
    federation_admin = world.admin
    organizer = UserFactory()
    grant(organizer, Role.ORGANIZER, world.federation)
    assert services.queue_backlog(by=site_admin) == 0
    for user in (federation_admin, organizer, UserFactory()):
        with pytest.raises(PermissionDenied):
            services.queue_backlog(by=user)


def test_the_admin_list_shows_the_progress_and_queues_the_backlog(
    client: Any,
    eager: None,  # noqa: F811 (the fixture imported above)
    django_capture_on_commit_callbacks: Any,
    monkeypatch: Any,
) -> None:
    world = World()
    members = [(f"{n}.mat", mat(n, ("Mamedov Elchin", "Bob"), length=1)) for n in (31, 32, 33)]
    archive = run_import(
        world,
        upload(world, members, django_capture_on_commit_callbacks),
        django_capture_on_commit_callbacks,
    )
    first = archive.files.order_by("index").values_list("match_id", flat=True).first()
    assert first is not None and services.analyse(first).startswith("analysed")

    site_admin = UserFactory(is_superuser=True, is_staff=True)
    client.force_login(site_admin)
    listing = reverse("admin:analysis_matchanalysis_changelist")
    page = client.get(listing).content.decode()
    bar = re.search(r'<progress id="analysis-progress-bar" max="(\d+)" value="(\d+)">', page)
    assert bar is not None and (bar[1], bar[2]) == ("3", "1")
    assert "Analyse the 2 matches not analysed yet" in page

    owed: list[tuple[Any, ...]] = []
    monkeypatch.setattr(services, "owe", lambda task, *ids: owed.append((task, *ids)))
    answer = client.post(reverse("admin:analysis_matchanalysis_backlog"))
    assert answer.status_code == 302 and answer["Location"] == listing
    others = set(archive.files.values_list("match_id", flat=True)) - {first}
    assert sorted(owed) == sorted(("analysis.analyse_match", pk) for pk in others)
    assert MatchAnalysis.objects.count() == 1  # queued, analysed by the worker

    # A federation's admin (staff of no site) is not let into the site's admin.
    client.force_login(world.admin)
    assert client.post(reverse("admin:analysis_matchanalysis_backlog")).status_code == 302
    assert len(owed) == len(others)


def test_analysis_asked_for_by_hand_is_limited_per_user(
    client: Any, settings: Any, monkeypatch: Any
) -> None:
    """The backlog button and "analyse again" share the ``analysis`` scope: past
    its rate the button answers 429 and the action queues nothing, saying when
    to try again; another site admin has a count of their own."""
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "analysis": "2/h"}
    owed: list[tuple[Any, ...]] = []
    monkeypatch.setattr(services, "owe", lambda task, *ids: owed.append((task, *ids)))
    monkeypatch.setattr(analysis_admin, "owe", lambda task, *ids: owed.append((task, *ids)))
    analysed = MatchAnalysis.objects.create(
        match=MatchFactory(), state="done", analyser="bgsage", depth=1, record_hash="x" * 64
    )
    client.force_login(UserFactory(is_superuser=True, is_staff=True))
    backlog = reverse("admin:analysis_matchanalysis_backlog")
    listing = reverse("admin:analysis_matchanalysis_changelist")
    again = {"action": "analyse_again", "_selected_action": [analysed.pk]}

    assert client.post(backlog).status_code == 302
    assert client.post(listing, again).status_code == 302
    assert [(task.name, *ids) for task, *ids in owed] == [
        ("analysis.analyse_match", analysed.match_id)
    ]
    MatchAnalysis.objects.filter(pk=analysed.pk).update(record_hash="y" * 64)

    refused = client.post(backlog)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "3600"
    assert "Too many requests. Try again in 60 minutes." in refused.content.decode()
    shown = client.post(listing, again, follow=True).content.decode()
    assert "Too many requests. Try again in 60 minutes." in shown
    assert len(owed) == 1  # nothing more queued
    analysed.refresh_from_db()
    assert analysed.record_hash == "y" * 64  # the refused action changed nothing

    client.force_login(UserFactory(is_superuser=True, is_staff=True))
    assert client.post(backlog).status_code == 302
