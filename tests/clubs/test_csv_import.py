"""CSV import of players and clubs: the pure reader (no database), the import
services (dry run, per-row report, audit) and the admin pages (upload,
preview, confirm)."""

from __future__ import annotations

import codecs
import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from clubs import csv_io, imports
from clubs.models import AuditEntry, Club, Membership, Player, Role
from tests.factories import (
    ClubFactory,
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)

TODAY = datetime.date(2025, 6, 1)

# --- A generated players file with bad rows of known kinds at known places

HEADER = ["Номер", "Имя", "Имя латиницей", "Год рождения", "Пол", "Страна", "Клуб", "Член с"]

# Each kind of bad row: the error code expected, and what it does to a good row.
BAD_KINDS: list[tuple[str, Callable[[list[str]], None]]] = [
    ("birth_year_invalid", lambda r: r.__setitem__(3, "19x0")),
    ("birth_year_range", lambda r: r.__setitem__(3, "1850")),
    ("club_unknown", lambda r: r.__setitem__(6, "Нет такого клуба")),
    ("name_missing", lambda r: (r.__setitem__(1, ""), r.__setitem__(2, ""))),
    ("gender_invalid", lambda r: r.__setitem__(4, "x")),
    ("country_invalid", lambda r: r.__setitem__(5, "Атлантида")),
    ("date_invalid", lambda r: r.__setitem__(7, "31.02.2020")),
    ("too_long", lambda r: r.__setitem__(1, "Я" * 201)),
    ("member_since_without_club", lambda r: (r.__setitem__(6, ""), r.__setitem__(7, "2021"))),
    ("duplicate_in_file", lambda r: None),  # takes the number of the first row, below
]


@dataclass
class PlayersFile:
    data: bytes
    bad_rows: dict[int, str]  # row number in the file -> an error code expected there
    good_numbers: list[str]
    good_with_club: int


def players_file(rows: int, bad: int, clubs: list[str], *, prefix: str = "T") -> PlayersFile:
    """``rows`` data rows (UTF-8 with BOM, semicolons); ``bad`` of them spread
    evenly, each bad in one way."""
    step = rows // bad
    spoilt = {step * k + step // 2: BAD_KINDS[k % len(BAD_KINDS)] for k in range(bad)}
    lines = [";".join(HEADER)]
    bad_rows: dict[int, str] = {}
    good_numbers: list[str] = []
    good_with_club = 0
    for index in range(rows):
        club = clubs[index % len(clubs)] if index % 3 else ""
        cells = [
            f"{prefix}{index:06d}",
            f"Игроков Игрок {index}",
            f"Igrok {index}" if index % 2 else "",  # half left to transliteration
            str(1950 + index % 60),
            ("м", "ж", "m", "F", "")[index % 5],
            ("RU", "Россия", "az", "Armenia", "")[index % 5],
            club,
            "01.03.2021" if club and index % 2 else "",
        ]
        if index in spoilt:
            code, spoil = spoilt[index]
            spoil(cells)
            if code == "duplicate_in_file":
                cells[0] = good_numbers[0]
            bad_rows[index + 2] = code  # line 1 is the header
        else:
            good_numbers.append(cells[0])
            good_with_club += bool(cells[6])
        lines.append(";".join(cells))
    data = codecs.BOM_UTF8 + ("\r\n".join(lines) + "\r\n").encode("utf-8")
    return PlayersFile(data, bad_rows, good_numbers, good_with_club)


def parse(text: str, *, clubs: dict[str, Any] | None = None, encoding: str = "utf-8") -> Any:
    return csv_io.parse_players(text.encode(encoding), clubs=clubs or {}, today=TODAY)


def codes(parsed: Any) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    for error in parsed.errors:
        found.setdefault(error.row, set()).add(error.code)
    return found


# --- The pure reader: no database


SAMPLE = (
    "Номер;Имя;Год рождения;Пол;Страна\nA1;Мамедов Эльчин;1980;м;Россия\nA2;Ёлкина Анна;1999;ж;AZ\n"
)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp1251", "utf-16"])
def test_encodings_are_detected(encoding: str) -> None:
    parsed = parse(SAMPLE, encoding=encoding)
    assert parsed.encoding == encoding if encoding != "utf-8-sig" else "utf-8-sig"
    assert [row.values["name_native"] for row in parsed.rows] == ["Мамедов Эльчин", "Ёлкина Анна"]
    assert parsed.rows[0].values == {
        "membership_number": "A1",
        "name_native": "Мамедов Эльчин",
        "birth_year": 1980,
        "gender": "m",
        "country": "RU",
    }


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_delimiters_are_detected(delimiter: str) -> None:
    text = SAMPLE.replace(";", delimiter)
    parsed = parse(text)
    assert parsed.delimiter == delimiter
    assert len(parsed.rows) == 2
    assert not parsed.errors


def test_quoted_cells_may_hold_the_delimiter() -> None:
    parsed = parse('number,name_latin\n1,"Petrov, Ivan"\n')
    assert parsed.delimiter == ","
    assert parsed.rows[0].values["name_latin"] == "Petrov, Ivan"


def test_headers_in_english_or_russian_any_case_and_spacing() -> None:
    text = "MEMBERSHIP NUMBER,Name_Latin, год  рождения ,Член с,клуб,Notes\n7,Ivan,1990,2020-05-01,Альфа,x\n"
    parsed = parse(text, clubs={"альфа": "club-alpha"})
    row = parsed.rows[0]
    assert row.values == {"membership_number": "7", "name_latin": "Ivan", "birth_year": 1990}
    assert (row.club, row.member_since) == ("club-alpha", datetime.date(2020, 5, 1))
    assert parsed.ignored_columns == ["Notes"]


def test_missing_required_columns_is_a_file_error_naming_them() -> None:
    with pytest.raises(csv_io.FileError) as caught:
        parse("Пол;Страна\nм;RU\n")
    assert "membership_number" in caught.value.message
    assert "name_native" in caught.value.message
    assert "name_latin" in caught.value.message


def test_two_columns_for_one_field_is_a_file_error() -> None:
    with pytest.raises(csv_io.FileError) as caught:
        parse("Номер;Имя;ФИО\n1;a;b\n")
    assert "ФИО" in caught.value.message


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"  \r\n\r\n",
        "Номер;Имя\r\n".encode(),
        b"PK\x03\x04\x14\x00\x06\x00 workbook",
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1 old excel",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        bytes(range(1, 32)) * 20,
        b"Dear federation,\nhere are our players.\n",
        b'number,name\n1,"unclosed\x00',
    ],
)
def test_malformed_files_are_file_errors(data: bytes) -> None:
    with pytest.raises(csv_io.FileError) as caught:
        csv_io.parse_players(data, clubs={}, today=TODAY)
    assert caught.value.message


def test_too_large_a_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csv_io, "MAX_FILE_BYTES", 100)
    with pytest.raises(csv_io.FileError) as error:
        parse("number,name\n" + "1,a\n" * 50)
    assert error.value.code == "too_large"


def test_row_numbers_are_the_files_line_numbers() -> None:
    text = 'number,name\n\n1,"Two\nlines"\n2,x\n\n3,\n'
    parsed = parse(text)
    assert [row.row for row in parsed.rows] == [3, 5]
    assert parsed.errors == [
        csv_io.RowError(7, "name", parsed.errors[0].reason, "name_missing"),
    ]
    assert parsed.total == 3


@pytest.mark.parametrize(
    ("header", "value", "code"),
    [
        ("Год рождения", "19x0", "birth_year_invalid"),
        ("Год рождения", "1899", "birth_year_range"),
        ("Год рождения", "2030", "birth_year_range"),
        ("Пол", "x", "gender_invalid"),
        ("Страна", "Атлантида", "country_invalid"),
        ("Страна", "QQ", "country_invalid"),
        ("Клуб", "Нет такого", "club_unknown"),
        ("Имя латиницей", "L" * 201, "too_long"),
    ],
)
def test_bad_cells_reject_the_row_naming_the_column(header: str, value: str, code: str) -> None:
    text = f"Номер;Имя;{header}\n1;Иван;{value}\n2;Пётр;\n"
    parsed = parse(text)
    assert [(e.row, e.column, e.code) for e in parsed.errors] == [(2, header, code)]
    assert [row.row for row in parsed.rows] == [3]


@pytest.mark.parametrize(
    ("value", "code"),
    [("31.02.2020", "date_invalid"), ("вчера", "date_invalid"), ("01.01.2030", "date_range")],
)
def test_bad_membership_dates(value: str, code: str) -> None:
    parsed = parse(f"Номер;Имя;Клуб;Член с\n1;Иван;Альфа;{value}\n", clubs={"альфа": 1})
    assert codes(parsed) == {2: {code}}


def test_a_membership_date_needs_a_club() -> None:
    parsed = parse("Номер;Имя;Клуб;Член с\n1;Иван;;2020\n")
    assert codes(parsed) == {2: {"member_since_without_club"}}


def test_extra_cells_reject_the_row() -> None:
    parsed = parse("number,name\n1,Ivan,surplus\n2,Petr,\n")
    assert codes(parsed) == {2: {"too_many_cells"}}
    assert [row.row for row in parsed.rows] == [3]


def test_a_repeated_membership_number_rejects_the_later_row_citing_the_first() -> None:
    parsed = parse("Номер;Имя\nM1;Иван\nM2;Пётр\nM1;Сидор\n M1 ;Фома\n")
    assert [row.row for row in parsed.rows] == [2, 3]
    assert codes(parsed) == {4: {"duplicate_in_file"}, 5: {"duplicate_in_file"}}
    assert all("2" in error.reason for error in parsed.errors)


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("gender", {"м": "m", "Ж": "f", "male": "m", "F": "f", "жен.": "f", "Мужской": "m"}),
        (
            "country",
            {"RU": "RU", "ru": "RU", "Россия": "RU", "aze": "AZ", "Armenia": "AM", "США": "US"},
        ),
        ("birth_year", {"1990": 1990, "1990.0": 1990, "12.03.1985": 1985, "1970-01-31": 1970}),
    ],
)
def test_cell_spellings(cell: str, expected: dict[str, Any]) -> None:
    rows = "".join(f"{n},Name {n},{value}\n" for n, value in enumerate(expected))
    parsed = parse(f"number,name,{cell}\n{rows}")
    assert not parsed.errors
    assert [row.values[cell] for row in parsed.rows] == list(expected.values())


def test_names_complete_each_other_for_a_new_player() -> None:
    parsed = parse("number,name,name_latin\n1,Мамедов Эльчин,\n2,,Ivan Petrov\n")
    assert [row.creation_values()["name_latin"] for row in parsed.rows] == [
        "Mamedov Elchin",
        "Ivan Petrov",
    ]
    assert parsed.rows[1].creation_values()["name_native"] == "Ivan Petrov"
    assert "name_latin" not in parsed.rows[0].values  # an update leaves it alone


def test_clubs_file_checks_required_cells_addresses_and_duplicates() -> None:
    text = (
        "Название;Город;Эл. почта;Сайт;Телефон\n"
        "Альфа;Казань;alpha@example.org;alpha.example.org;+7 900\n"
        ";Уфа;;;\n"
        "Бета;;not-an-email;;\n"
        "альфа;Москва;;;\n"
        "Гамма;Омск;;http://;\n"
    )
    parsed = csv_io.parse_clubs(text.encode("cp1251"))
    assert parsed.rows[0].values == {
        "name": "Альфа",
        "city": "Казань",
        "email": "alpha@example.org",
        "website": "https://alpha.example.org",
        "phone": "+7 900",
    }
    assert codes(parsed) == {
        3: {"name_missing"},
        4: {"city_missing", "email_invalid"},
        5: {"duplicate_in_file"},
        6: {"website_invalid"},
    }


def test_clubs_file_needs_name_and_city_columns() -> None:
    with pytest.raises(csv_io.FileError) as caught:
        csv_io.parse_clubs(b"name;phone\nA;1\n")
    assert "city" in caught.value.message


# --- The import services


@dataclass
class Setting:
    federation: Any
    clubs: list[Any]
    admin: Any


@pytest.fixture
def setting(db: Any) -> Setting:
    federation = FederationFactory()
    clubs = [ClubFactory(federation=federation, name=f"Клуб {n}", slug=f"k{n}") for n in range(4)]
    admin = UserFactory(is_staff=True)
    grant(admin, Role.FEDERATION_ADMIN, federation)
    return Setting(federation, clubs, admin)


def counts() -> tuple[int, int, int]:
    return Player.objects.count(), Membership.objects.count(), AuditEntry.objects.count()


def test_acceptance_5000_rows_with_50_bad_ones(setting: Setting) -> None:
    sample = players_file(5000, 50, [club.name for club in setting.clubs])
    assert len(sample.bad_rows) == 50
    before = counts()

    preview = imports.import_players(
        setting.federation, sample.data, by=setting.admin, dry_run=True
    )
    assert counts() == before
    assert preview.rejected_rows == sorted(sample.bad_rows)
    found = {}
    for error in preview.errors:
        found.setdefault(error.row, set()).add(error.code)
    assert all(code in found[row] for row, code in sample.bad_rows.items())
    assert (preview.total, preview.created, preview.updated) == (5000, 4950, 0)
    assert preview.memberships == sample.good_with_club

    report = imports.import_players(
        setting.federation, sample.data, by=setting.admin, dry_run=False
    )
    assert report.rejected_rows == sorted(sample.bad_rows)
    assert [(e.row, e.code) for e in report.errors] == [(e.row, e.code) for e in preview.errors]
    assert report.created == 4950
    players = Player.objects.filter(federation=setting.federation)
    assert players.count() == 4950
    assert sorted(players.values_list("membership_number", flat=True)) == sorted(
        sample.good_numbers
    )
    assert Membership.objects.count() == before[1] + sample.good_with_club
    assert AuditEntry.objects.filter(action="player.create").count() == 4950
    assert AuditEntry.objects.filter(action="membership.create").count() == sample.good_with_club
    assert not players.filter(name_native="", name_latin="").exists()
    assert not players.filter(birth_year__lt=1900).exists()


def test_created_players_and_their_audit_entries(setting: Setting) -> None:
    text = "Номер;Имя;Год рождения;Пол;Страна;Клуб;Член с\nA1;Мамедов Эльчин;1980;м;Россия;клуб 2;01.02.2020\n"
    report = imports.import_players(
        setting.federation, text.encode("cp1251"), by=setting.admin, dry_run=False
    )
    assert (report.created, report.memberships, report.errors) == (1, 1, [])
    player = Player.objects.get(membership_number="A1")
    assert (player.name_latin, player.birth_year, player.gender, player.country.code) == (
        "Mamedov Elchin",
        1980,
        "m",
        "RU",
    )
    membership = Membership.objects.get(player=player)
    assert (membership.club, membership.start) == (setting.clubs[2], datetime.date(2020, 2, 1))
    entry = AuditEntry.objects.get(action="player.create")
    assert (entry.actor, entry.federation, entry.target_id) == (
        setting.admin,
        setting.federation,
        player.pk,
    )
    assert entry.after["membership_number"] == "A1"


def test_an_existing_membership_number_updates_that_player(setting: Setting) -> None:
    player = PlayerFactory(
        federation=setting.federation, membership_number="A1", birth_year=1970, gender="m"
    )
    MembershipFactory(player=player, club=setting.clubs[0])
    old_name = player.name_native
    data = "Номер;Имя;Год рождения;Пол;Клуб\nA1;Новое Имя;1971;;Клуб 0\nA2;Другой;;;Клуб 1\n"
    preview = imports.import_players(
        setting.federation, data.encode(), by=setting.admin, dry_run=True
    )
    assert (preview.created, preview.updated, preview.unchanged) == (1, 1, 0)
    assert preview.updates == [
        imports.RowUpdate(2, "A1", str(player), ("birth_year", "name_native"))
    ]
    assert preview.memberships == 1  # A1 is a member of Клуб 0 already

    imports.import_players(setting.federation, data.encode(), by=setting.admin, dry_run=False)
    player.refresh_from_db()
    assert (player.name_native, player.birth_year, player.gender) == ("Новое Имя", 1971, "m")
    entry = AuditEntry.objects.get(action="player.change")
    assert (entry.before["name_native"], entry.before["birth_year"]) == (old_name, 1970)
    assert entry.after["name_native"] == "Новое Имя"
    assert entry.after["birth_year"] == 1971
    assert Membership.objects.filter(player=player).count() == 1

    again = imports.import_players(
        setting.federation, data.encode(), by=setting.admin, dry_run=False
    )
    assert (again.created, again.updated, again.unchanged) == (0, 2, 2)
    assert AuditEntry.objects.filter(action="player.change").count() == 1


def test_rows_without_a_membership_number_always_create(setting: Setting) -> None:
    data = "Номер;Имя\n;Иван\n;Иван\n".encode()
    for _ in range(2):
        report = imports.import_players(setting.federation, data, by=setting.admin, dry_run=False)
        assert (report.created, report.updated, report.errors) == (2, 0, [])
    assert Player.objects.filter(federation=setting.federation, name_native="Иван").count() == 4


def test_a_new_membership_may_not_overlap_an_old_one(setting: Setting) -> None:
    player = PlayerFactory(federation=setting.federation, membership_number="A1")
    MembershipFactory(
        player=player,
        club=setting.clubs[0],
        start=datetime.date(2019, 1, 1),
        end=datetime.date(2022, 1, 1),
    )
    data = "Номер;Имя;Клуб;Член с\nA1;Иван;Клуб 0;2021-06-01\nA1x;Пётр;Клуб 0;2021-06-01\n"
    report = imports.import_players(
        setting.federation, data.encode(), by=setting.admin, dry_run=False
    )
    assert codes(report) == {2: {"membership_overlap"}}
    assert report.created == 1
    assert Membership.objects.filter(player=player).count() == 1


@pytest.mark.parametrize("who", ["club_admin", "other_federation_admin", "plain"])
def test_only_the_federations_admins_import(setting: Setting, who: str) -> None:
    user = UserFactory(is_staff=True)
    if who == "club_admin":
        grant(user, Role.CLUB_ADMIN, setting.clubs[0])
    elif who == "other_federation_admin":
        grant(user, Role.FEDERATION_ADMIN, FederationFactory())
    before = counts()
    data = "Номер;Имя\n1;Иван\n".encode()
    with pytest.raises(PermissionDenied):
        imports.import_players(setting.federation, data, by=user, dry_run=False)
    with pytest.raises(PermissionDenied):
        imports.import_clubs(setting.federation, b"name,city\nA,B\n", by=user, dry_run=False)
    assert counts() == before


def test_a_file_error_imports_nothing(setting: Setting) -> None:
    report = imports.import_players(
        setting.federation, b"\x00\x01", by=setting.admin, dry_run=False
    )
    assert report.file_error
    assert (report.created, report.total) == (0, 0)


def test_clubs_import_creates_updates_and_reports(setting: Setting) -> None:
    data = (
        "name;city;phone;website\n"
        "Клуб 0;Казань;+7 1;\n"  # an update (city, phone)
        "Новый клуб;Уфа;;new.example.org\n"
        "Новый  Клуб;Уфа;;\n"  # the same name again
        "Ещё один;;;\n"  # no city
        "Новый-клуб;Омск;;\n"  # another club whose slug would clash
    ).encode()
    before = Club.objects.count(), AuditEntry.objects.count()
    preview = imports.import_clubs(setting.federation, data, by=setting.admin, dry_run=True)
    assert (Club.objects.count(), AuditEntry.objects.count()) == before
    assert (preview.created, preview.updated, preview.rejected_rows) == (2, 1, [4, 5])

    report = imports.import_clubs(setting.federation, data, by=setting.admin, dry_run=False)
    assert (report.created, report.updated, report.rejected_rows) == (2, 1, [4, 5])
    club0 = Club.objects.get(pk=setting.clubs[0].pk)
    assert (club0.city, club0.phone) == ("Казань", "+7 1")
    new = Club.objects.filter(federation=setting.federation, name__in=["Новый клуб", "Новый-клуб"])
    assert sorted(new.values_list("slug", flat=True)) == ["novyy-klub", "novyy-klub-2"]
    assert new.get(name="Новый клуб").website == "https://new.example.org"
    assert AuditEntry.objects.filter(action="club.create").count() == 2
    assert AuditEntry.objects.filter(action="club.change").count() == 1


# --- The admin pages: upload, preview, confirm


@pytest.fixture
def admin_client(client: Any, setting: Setting) -> Any:
    client.force_login(setting.admin)
    return client


def import_url(setting: Setting) -> str:
    return reverse("admin:clubs_federation_import", args=[setting.federation.pk])


def upload(client: Any, setting: Setting, data: bytes, kind: str = "players") -> Any:
    file = SimpleUploadedFile("players.csv", data, content_type="text/csv")
    return client.post(import_url(setting), {"kind": kind, "file": file})


def test_admin_preview_then_confirm(admin_client: Any, setting: Setting) -> None:
    data = "Номер;Имя;Пол\n1;Иван;м\n2;Пётр;?\n3;Фома;ж\n".encode()
    before = counts()
    preview = upload(admin_client, setting, data)
    assert preview.status_code == 200
    report = preview.context["report"]
    assert report.dry_run and report.created == 2 and report.rejected_rows == [3]
    assert counts() == before
    assert "Пётр" not in preview.content.decode()  # rows are reported by number and column
    assert "?" in preview.content.decode()

    done = admin_client.post(
        import_url(setting), {"confirm": "1", "digest": preview.context["digest"]}
    )
    assert done.status_code == 200
    assert not done.context["report"].dry_run
    assert done.context["report"].rejected_rows == [3]
    assert sorted(Player.objects.values_list("membership_number", flat=True)) == ["1", "3"]

    # Confirming the same preview again (a reload) imports nothing more.
    again = admin_client.post(
        import_url(setting), {"confirm": "1", "digest": preview.context["digest"]}
    )
    assert again.status_code == 302
    assert Player.objects.count() == 2


def test_admin_confirm_of_another_preview_is_refused(admin_client: Any, setting: Setting) -> None:
    upload(admin_client, setting, "Номер;Имя\n1;Иван\n".encode())
    response = admin_client.post(import_url(setting), {"confirm": "1", "digest": "0" * 64})
    assert response.status_code == 302
    assert Player.objects.count() == 0


def test_admin_shows_a_file_error_and_offers_no_confirm(
    admin_client: Any, setting: Setting
) -> None:
    response = upload(admin_client, setting, b"PK\x03\x04 not a csv")
    assert response.context["report"].file_error
    assert not response.context["digest"]
    assert 'name="confirm"' not in response.content.decode()


def test_admin_imports_clubs(admin_client: Any, setting: Setting) -> None:
    preview = upload(admin_client, setting, "Клуб;Город\nОмега;Тверь\n".encode(), kind="clubs")
    assert preview.context["report"].created == 1
    admin_client.post(import_url(setting), {"confirm": "1", "digest": preview.context["digest"]})
    assert Club.objects.filter(federation=setting.federation, name="Омега").exists()


def test_club_admins_cannot_open_the_import_page(client: Any, setting: Setting) -> None:
    user = UserFactory(is_staff=True)
    grant(user, Role.CLUB_ADMIN, setting.clubs[0])
    client.force_login(user)
    # The federation is not theirs to see: it is not found.
    assert client.get(import_url(setting)).status_code == 404
    file = SimpleUploadedFile("p.csv", "Номер;Имя\n1;Иван\n".encode())
    response = client.post(import_url(setting), {"kind": "players", "file": file})
    assert response.status_code == 404
    assert Player.objects.count() == 0
