"""CSV export of players and clubs: same columns as the import, so an export
re-imports cleanly."""

from __future__ import annotations

import codecs
import csv
import datetime
import io
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubs import csv_io, imports, services
from clubs.models import AuditEntry, Membership, Player, Role
from tests.factories import (
    ClubFactory,
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)

pytestmark = pytest.mark.django_db


def read_csv(data: bytes) -> list[dict[str, str]]:
    assert data.startswith(codecs.BOM_UTF8)
    text = data.decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter=csv_io.EXPORT_DELIMITER))


@pytest.fixture
def federation_data() -> dict[str, Any]:
    federation = FederationFactory()
    alpha = ClubFactory(federation=federation, name="Альфа; центр", city="Казань", phone="+7 1")
    beta = ClubFactory(federation=federation, name="Beta", website="https://beta.example.org")
    elsewhere = ClubFactory(name="Elsewhere")  # another federation's club
    ivan = PlayerFactory(
        federation=federation, name_native='Иван "Гром"', name_latin="Ivan Grom", gender="m"
    )
    MembershipFactory(player=ivan, club=alpha, start=datetime.date(2020, 2, 3))
    anna = PlayerFactory(federation=federation, name_native="Анна", name_latin="Anna", gender="f")
    MembershipFactory(
        player=anna, club=beta, start=datetime.date(2019, 1, 1), end=datetime.date(2020, 1, 1)
    )
    MembershipFactory(player=anna, club=elsewhere)
    lone = PlayerFactory(federation=federation, birth_year=None, country="")
    merged = PlayerFactory(federation=federation, merged_into=lone, membership_number="")
    outsider = PlayerFactory()  # another federation
    admin = UserFactory(is_staff=True)
    grant(admin, Role.FEDERATION_ADMIN, federation)
    return locals()


def export(client: Any, federation: Any, kind: str) -> bytes:
    response = client.get(reverse("admin:clubs_federation_export", args=[federation.pk, kind]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert f"{federation.slug}-{kind}-" in response["Content-Disposition"]
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_players_export_has_the_import_columns_and_current_clubs(
    client: Any, federation_data: dict[str, Any]
) -> None:
    d = federation_data
    client.force_login(d["admin"])
    rows = read_csv(export(client, d["federation"], "players"))
    assert list(rows[0]) == [column.key for column in csv_io.PLAYER_COLUMNS]
    by_number = {row["membership_number"]: row for row in rows}
    assert set(by_number) == {d["ivan"].membership_number, d["anna"].membership_number,
                              d["lone"].membership_number}  # fmt: skip
    ivan = by_number[d["ivan"].membership_number]
    assert ivan == {
        "membership_number": d["ivan"].membership_number,
        "name_native": 'Иван "Гром"',
        "name_latin": "Ivan Grom",
        "birth_year": "1990",
        "gender": "m",
        "country": "RU",
        "club": "Альфа; центр",
        "member_since": "2020-02-03",
    }
    # Anna's only current club is in another federation: no club in this export.
    assert by_number[d["anna"].membership_number]["club"] == ""
    assert by_number[d["lone"].membership_number]["birth_year"] == ""


def test_an_exported_players_file_reimports_as_updates_without_changes(
    client: Any, federation_data: dict[str, Any]
) -> None:
    d = federation_data
    client.force_login(d["admin"])
    data = export(client, d["federation"], "players")
    before = Player.objects.count(), Membership.objects.count(), AuditEntry.objects.count()
    report = imports.import_players(d["federation"], data, by=d["admin"], dry_run=True)
    assert not report.file_error
    assert report.errors == []
    assert (report.created, report.updated, report.unchanged, report.memberships) == (0, 3, 3, 0)
    report = imports.import_players(d["federation"], data, by=d["admin"], dry_run=False)
    assert (report.created, report.updated, report.unchanged) == (0, 3, 3)
    assert (
        Player.objects.count(),
        Membership.objects.count(),
        AuditEntry.objects.count(),
    ) == before


def test_an_exported_clubs_file_reimports_as_updates_without_changes(
    client: Any, federation_data: dict[str, Any]
) -> None:
    d = federation_data
    client.force_login(d["admin"])
    data = export(client, d["federation"], "clubs")
    rows = read_csv(data)
    assert [row["name"] for row in rows] == ["Beta", "Альфа; центр"]
    assert list(rows[0]) == [column.key for column in csv_io.CLUB_COLUMNS]
    report = imports.import_clubs(d["federation"], data, by=d["admin"], dry_run=True)
    assert report.errors == []
    assert (report.created, report.updated, report.unchanged) == (0, 2, 2)


def test_an_export_after_changes_carries_them_back(
    client: Any, federation_data: dict[str, Any]
) -> None:
    d = federation_data
    client.force_login(d["admin"])
    data = export(client, d["federation"], "players")
    services.update_player(d["ivan"], by=d["admin"], birth_year=1985)
    report = imports.import_players(d["federation"], data, by=d["admin"], dry_run=False)
    assert report.updated == 3 and report.unchanged == 2
    d["ivan"].refresh_from_db()
    assert d["ivan"].birth_year == 1990


def test_club_admins_cannot_export_the_federation(
    client: Any, federation_data: dict[str, Any]
) -> None:
    d = federation_data
    user = UserFactory(is_staff=True)
    grant(user, Role.CLUB_ADMIN, d["alpha"])
    client.force_login(user)
    url = reverse("admin:clubs_federation_export", args=[d["federation"].pk, "players"])
    assert client.get(url).status_code == 404


def test_the_changelist_action_exports_the_selected_visible_players(
    client: Any, federation_data: dict[str, Any]
) -> None:
    d = federation_data
    user = UserFactory(is_staff=True)
    grant(user, Role.CLUB_ADMIN, d["alpha"])
    client.force_login(user)
    selected = [str(d["ivan"].pk), str(d["outsider"].pk)]  # the outsider is not theirs
    response = client.post(
        reverse("admin:clubs_player_changelist"),
        {"action": "export_players_csv", "_selected_action": selected, "index": "0"},
    )
    assert response.status_code == 200
    rows = read_csv(response.content)
    assert [row["membership_number"] for row in rows] == [d["ivan"].membership_number]


def test_the_club_action_exports_the_selected_clubs(
    client: Any, federation_data: dict[str, Any]
) -> None:
    d = federation_data
    client.force_login(d["admin"])
    response = client.post(
        reverse("admin:clubs_club_changelist"),
        {"action": "export_clubs_csv", "_selected_action": [str(d["alpha"].pk)], "index": "0"},
    )
    rows = read_csv(response.content)
    assert rows == [
        {
            "name": "Альфа; центр",
            "city": "Казань",
            "address": "",
            "email": "",
            "phone": "+7 1",
            "website": "",
        }
    ]


def test_the_players_export_query_count_does_not_grow_with_rows(
    client: Any, federation_data: dict[str, Any], django_assert_num_queries: Any
) -> None:
    d = federation_data
    client.force_login(d["admin"])
    with CaptureQueriesContext(connection) as few:
        export(client, d["federation"], "players")
    for _ in range(20):
        MembershipFactory(player=PlayerFactory(federation=d["federation"]), club=d["beta"])
    with django_assert_num_queries(len(few)):
        rows = read_csv(export(client, d["federation"], "players"))
    assert len(rows) == 23
