"""The pages of a whole archive: upload, the review of the names, the progress
polled as JSON, and the report per file; only the federation's admins see them."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from games.models import ArchiveImport, ArchiveState
from tests.factories import FederationFactory, PlayerFactory, UserFactory, grant
from tests.games.test_archive_import import ILLEGAL, World, eager, mat, world, zipped

pytestmark = pytest.mark.django_db

__all__ = ["eager", "world"]  # fixtures shared with the service tests


@pytest.fixture(autouse=True)
def archive_root(settings: Any, tmp_path: Any) -> None:
    settings.ARCHIVE_ROOT = tmp_path / "archives"


def test_upload_review_progress_and_report(
    client: Any, world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    client.force_login(world.admin)
    assert 'id="archives-link"' in client.get(reverse("games:match_list")).content.decode()
    page = client.get(reverse("games:archives"))
    assert page.status_code == 200 and str(world.federation) in page.content.decode()
    upload = zipped(
        [("a.mat", mat(1, ("Mamedov Elchin", "Zoe New"))), ("bad.mat", ILLEGAL.encode())]
    )
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            reverse("games:archives"),
            {"scope": f"f{world.federation.pk}", "discipline": world.discipline.pk, "file": upload},
        )
    archive = ArchiveImport.objects.get()
    assert answer.status_code == 302 and answer["Location"] == reverse(
        "games:archive", args=[archive.pk]
    )
    archive.refresh_from_db()
    assert archive.state == ArchiveState.SCANNED

    page = client.get(reverse("games:archive", args=[archive.pk])).content.decode()
    assert 'id="names-form"' in page and "Zoe New" in page and "Elchin Mamedov" in page
    assert "archive.js" in page and "data-progress-url" in page
    rows = {row.name: row for row in archive.names.all()}
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            reverse("games:archive", args=[archive.pk]),
            {
                f"name-{rows['Zoe New'].pk}": "new",
                f"name-{rows['Mamedov Elchin'].pk}": f"p{world.elchin.pk}",
                # bad.mat's players: its illegal play is the import's to refuse.
                f"name-{rows['Anna'].pk}": "new",
                "start": "1",
            },
        )
    assert answer.status_code == 302
    archive.refresh_from_db()
    assert (archive.state, archive.imported, archive.refused) == ("done", 1, 1)

    progress = client.get(reverse("games:archive_progress", args=[archive.pk])).json()
    assert (progress["state"], progress["percent"], progress["files_done"]) == ("done", 100, 2)
    report = client.get(reverse("games:archive", args=[archive.pk])).content.decode()
    assert 'id="report"' in report and 'id="names-form"' not in report
    assert "line 6: These moves use more than the dice give (3-1)." in report
    match = archive.files.get(name="a.mat").match
    assert match is not None and reverse("games:match", args=[match.pk]) in report


def test_an_unknown_name_blocks_the_import_until_decided(
    client: Any, world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    client.force_login(world.admin)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("games:archives"),
            {
                "scope": f"f{world.federation.pk}",
                "discipline": world.discipline.pk,
                "file": zipped([("a.mat", mat(2, ("E. Mamedov", "Bob")))]),
            },
        )
    archive = ArchiveImport.objects.get()
    page = client.get(reverse("games:archive", args=[archive.pk])).content.decode()
    # Nobody bears "E. Mamedov": the players sharing a word of it are offered.
    assert f'value="p{world.elchin.pk}"' in page
    answer = client.post(reverse("games:archive", args=[archive.pk]), {"start": "1"}, follow=True)
    assert "Decide who these names are first: E. Mamedov." in answer.content.decode()
    archive.refresh_from_db()
    assert archive.state == ArchiveState.REVIEWING


def test_only_the_federations_admins_see_the_archive_pages(
    client: Any, world: World, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        client.force_login(world.admin)
        client.post(
            reverse("games:archives"),
            {
                "scope": f"f{world.federation.pk}",
                "discipline": world.discipline.pk,
                "file": zipped([("a.mat", mat(3, ("Bob", "Zed")))]),
            },
        )
    archive = ArchiveImport.objects.get()
    other = UserFactory()
    grant(other, "federation_admin", FederationFactory())
    player = PlayerFactory(federation=world.federation, user=UserFactory())
    for user in (other, player.user):
        client.force_login(user)
        assert client.get(reverse("games:archive", args=[archive.pk])).status_code == 404
        assert client.get(reverse("games:archive_progress", args=[archive.pk])).status_code == 404
        assert (
            client.post(reverse("games:archive", args=[archive.pk]), {"start": "1"}).status_code
            == 404
        )
    client.force_login(player.user)
    assert client.get(reverse("games:archives")).status_code == 403
    assert 'id="archives-link"' not in client.get(reverse("games:match_list")).content.decode()
    # Another federation's admin may not upload into this one.
    client.force_login(other)
    answer = client.post(
        reverse("games:archives"),
        {
            "scope": f"f{world.federation.pk}",
            "discipline": world.discipline.pk,
            "file": zipped([("b.mat", mat(4, ("Bob", "Zed")))]),
        },
    )
    assert answer.status_code == 200 and ArchiveImport.objects.count() == 1
    client.logout()
    assert client.get(reverse("games:archives")).status_code == 302
