"""Reading and writing the players and clubs CSV files (pure: no database).

A federation moving from spreadsheets uploads what Excel or LibreOffice saves:
comma, semicolon or tab separated; UTF-8 with or without a byte order mark,
UTF-16 ("Unicode text") or cp1251 (what Russian Excel writes).  The encoding
and the delimiter are detected.  Column names may be English or Russian
(``membership_number`` / ``Номер``); the first non-blank line is the header.

Every row is validated on its own and becomes either a typed row or one or
more ``RowError`` (row number as in the file, where line 1 is the header;
the column as it is named in the file; a readable reason; a stable code).
Problems with the file as a whole (empty, binary, an Excel workbook, missing
required columns) raise ``FileError``: nothing is imported from such a file.

Choices, for the players file:

- The membership number identifies a player within the federation, so its
  column is required (a cell may be empty, see below).  A number
  that already exists in the federation updates that player (the import
  preview says so); a row without a number always creates a new player, so
  such a file is not safe to import twice.
- The same membership number twice in one file: the first row stands, every
  later one is rejected with a reference to the first (even when the first is
  rejected for another reason: the file is ambiguous about that player).
- Blank cells never erase anything: on update only the filled cells change
  the player.  To clear a value, use the admin.
- At least one of the two name columns must be present; a row needs at least
  one name.  A missing Latin name is transliterated from the native one, a
  missing native name is the Latin one.
- ``club`` is a club name or slug of the federation (the caller gives the
  look-up); ``member_since`` defaults to the day of the import and needs a
  club.  Memberships are only ever added, never ended, by an import; a
  current member of the named club stays as they are (the date is ignored).

The clubs file matches clubs by name within the federation the same way
(existing name: update, new name: create).

``write_players`` / ``write_clubs`` write the same columns back, so an export
re-imports cleanly.
"""

from __future__ import annotations

import codecs
import csv
import datetime
import io
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from anyascii import anyascii
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_countries import countries

from clubs.models import Club, Player

MAX_FILE_BYTES = 5 * 1024 * 1024
DELIMITERS = (",", ";", "\t")
EXPORT_DELIMITER = ";"  # what Excel with a Russian locale opens directly


class FileError(Exception):
    """The file as a whole cannot be imported; ``message`` says why, ``code`` is stable."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class RowError:
    row: int  # line number in the file; the header is line 1
    column: str  # the column's name as in the file, "" for the row as a whole
    reason: str
    code: str


@dataclass(frozen=True)
class Column:
    key: str
    label: Promise
    aliases: tuple[str, ...]  # English and Russian names, the key included
    max_length: int | None = None

    @property
    def display(self) -> str:
        """``key / Russian name``, for file-level messages."""
        return f"{self.key} / {self.aliases[-1]}"


def _max(model: Any, name: str) -> int:
    return int(model._meta.get_field(name).max_length)


PLAYER_COLUMNS: tuple[Column, ...] = (
    Column(
        "membership_number",
        gettext_lazy("membership number"),
        (
            "membership_number",
            "membership number",
            "number",
            "member no",
            "№",
            "номер билета",
            "членский номер",
            "номер",
        ),
        _max(Player, "membership_number"),
    ),
    Column(
        "name_native",
        gettext_lazy("name"),
        ("name_native", "name", "native name", "name native", "фио", "ф и о", "имя"),
        _max(Player, "name_native"),
    ),
    Column(
        "name_latin",
        gettext_lazy("name in Latin letters"),
        (
            "name_latin",
            "latin name",
            "name latin",
            "name in latin",
            "фио латиницей",
            "имя латиницей",
        ),
        _max(Player, "name_latin"),
    ),
    Column(
        "birth_year",
        gettext_lazy("birth year"),
        ("birth_year", "birth year", "year of birth", "born", "г р", "год рождения"),
    ),
    Column("gender", gettext_lazy("gender"), ("gender", "sex", "пол")),
    Column("country", gettext_lazy("country"), ("country", "гражданство", "страна")),
    Column("club", gettext_lazy("club"), ("club", "club name", "название клуба", "клуб")),
    Column(
        "member_since",
        gettext_lazy("member since"),
        ("member_since", "member since", "joined", "в клубе с", "дата вступления", "член с"),
    ),
)
PLAYER_NAME_KEYS = ("name_native", "name_latin")

CLUB_COLUMNS: tuple[Column, ...] = (
    Column(
        "name",
        gettext_lazy("name"),
        ("name", "club", "club name", "клуб", "название клуба", "название"),
        _max(Club, "name"),
    ),
    Column("city", gettext_lazy("city"), ("city", "town", "город"), _max(Club, "city")),
    Column("address", gettext_lazy("address"), ("address", "адрес"), _max(Club, "address")),
    Column(
        "email",
        gettext_lazy("e-mail"),
        ("email", "e mail", "mail", "электронная почта", "почта", "эл. почта"),
        _max(Club, "email"),
    ),
    Column("phone", gettext_lazy("phone"), ("phone", "tel", "тел", "телефон"), _max(Club, "phone")),
    Column(
        "website",
        gettext_lazy("website"),
        ("website", "site", "web", "url", "веб сайт", "сайт"),
        _max(Club, "website"),
    ),
)
CLUB_REQUIRED = ("name", "city")


# --- Reading the file into header and records


@dataclass
class Table:
    header: list[str]
    records: list[tuple[int, list[str]]]  # (line number where the record starts, cells)
    encoding: str
    delimiter: str


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def decode(data: bytes) -> tuple[str, str]:
    """The file's text and the name of its encoding, or FileError."""
    if len(data) > MAX_FILE_BYTES:
        raise FileError(
            _("The file is too large (%(size)d MB; at most %(limit)d MB). Split it into parts.")
            % {"size": len(data) // (1024 * 1024), "limit": MAX_FILE_BYTES // (1024 * 1024)},
            "too_large",
        )
    if not data.strip():
        raise FileError(_("The file is empty."), "empty")
    if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        raise FileError(
            _("This is an Excel workbook, not a CSV file. Save it as CSV and upload that."),
            "excel_workbook",
        )
    if data.startswith(codecs.BOM_UTF8):
        encoding, body = "utf-8-sig", data
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding, body = "utf-16", data
    elif b"\x00" in data:
        raise FileError(_("This is not a text file: it looks binary. Upload a CSV file."), "binary")
    else:
        try:
            data.decode("utf-8")
            encoding, body = "utf-8", data
        except UnicodeDecodeError:
            encoding, body = "cp1251", data
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as error:
        raise FileError(
            _("The file cannot be read as text (%(encoding)s, byte %(position)d).")
            % {"encoding": encoding, "position": error.start},
            "undecodable",
        ) from error
    if len(_CONTROL.findall(text)) > max(2, len(text) // 200):
        raise FileError(_("This is not a text file: it looks binary. Upload a CSV file."), "binary")
    return text, encoding


def _sniff_delimiter(text: str) -> str:
    """The delimiter found most often, outside quotes, in the first non-blank line."""
    for line in text.splitlines():
        if line.strip():
            unquoted = re.sub(r'"[^"]*"', "", line)
            counts = {d: unquoted.count(d) for d in DELIMITERS}
            best = max(counts, key=lambda d: counts[d])
            return best if counts[best] else ","
    return ","


def read_table(data: bytes) -> Table:
    text, encoding = decode(data)
    delimiter = _sniff_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"')
    header: list[str] | None = None
    records: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for cells in reader:
            row_start, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in cells):
                continue
            if header is None:
                header = [cell.strip() for cell in cells]
            else:
                records.append((row_start, cells))
    except csv.Error as error:
        raise FileError(
            _("The file is not valid CSV near line %(line)d: %(error)s")
            % {"line": reader.line_num, "error": error},
            "bad_csv",
        ) from error
    if header is None:
        raise FileError(_("The file is empty."), "empty")
    if not records:
        raise FileError(_("The file has a header line but no rows."), "no_rows")
    return Table(header=header, records=records, encoding=encoding, delimiter=delimiter)


def normalize_header(name: str) -> str:
    name = name.replace("\ufeff", "").casefold().replace("ё", "е")
    name = re.sub(r"[\s_.\-:*()]+", " ", name)
    return name.strip()


def map_header(
    header: Sequence[str], columns: Sequence[Column]
) -> tuple[dict[str, int], list[str]]:
    """Column key -> index in the file, and the names of the columns not used."""
    by_alias = {normalize_header(alias): column for column in columns for alias in column.aliases}
    found: dict[str, int] = {}
    ignored: list[str] = []
    for index, name in enumerate(header):
        column = by_alias.get(normalize_header(name))
        if column is None:
            if name:
                ignored.append(name)
            continue
        if column.key in found:
            raise FileError(
                _('Two columns mean the same thing: "%(first)s" and "%(second)s". Keep one.')
                % {"first": header[found[column.key]], "second": name},
                "duplicate_column",
            )
        found[column.key] = index
    return found, ignored


def _missing(
    columns: Sequence[Column], found: Mapping[str, int], required: Sequence[str]
) -> list[str]:
    by_key = {column.key: column for column in columns}
    return [by_key[key].display for key in required if key not in found]


def _raise_missing(missing: list[str], header: Sequence[str]) -> None:
    if missing:
        raise FileError(
            _("Required columns are missing: %(missing)s. Columns found: %(found)s.")
            % {"missing": "; ".join(missing), "found": ", ".join(h for h in header if h) or "-"},
            "missing_columns",
        )


# --- Cell parsers: each returns the typed value or raises CellError


class CellError(Exception):
    def __init__(self, reason: str, code: str) -> None:
        super().__init__(reason)
        self.reason, self.code = reason, code


def club_key(text: str) -> str:
    """How club names and slugs are compared: case, spacing and ё/е do not matter."""
    return " ".join(text.casefold().replace("ё", "е").split())


def parse_birth_year(text: str, today: datetime.date) -> int:
    match = re.fullmatch(
        r"(\d{4})(?:\.0+)?|\d{1,2}[./]\d{1,2}[./](\d{4})|(\d{4})-\d{2}-\d{2}", text
    )
    if match is None:
        raise CellError(
            _('"%(value)s" is not a year (write it as 1990).') % {"value": text},
            "birth_year_invalid",
        )
    year = int(next(group for group in match.groups() if group))
    if not 1900 <= year <= today.year:
        raise CellError(
            _("The birth year %(year)d is not between 1900 and %(now)d.")
            % {"year": year, "now": today.year},
            "birth_year_range",
        )
    return year


_GENDERS = {
    "m": "m", "male": "m", "man": "m", "м": "m", "муж": "m", "мужской": "m", "мужчина": "m",
    "f": "f", "female": "f", "woman": "f", "w": "f", "ж": "f", "жен": "f", "женский": "f",
    "женщина": "f",
}  # fmt: skip


def parse_gender(text: str) -> str:
    gender = _GENDERS.get(text.casefold().strip(". "))
    if gender is None:
        raise CellError(
            _('"%(value)s" is not a gender: write м or ж (m or f).') % {"value": text},
            "gender_invalid",
        )
    return gender


_COUNTRY_ALIASES = {"usa": "US", "сша": "US", "uk": "GB", "англия": "GB", "рф": "RU"}


def parse_country(text: str) -> str:
    """An ISO 3166 code (2 or 3 letters) or the country's name in English or Russian."""
    alias = _COUNTRY_ALIASES.get(text.casefold())
    if alias:
        return alias
    if len(text) in (2, 3) and text.isascii():
        code = countries.alpha2(text)
        if code:
            return code
    for language in ("ru", "en"):
        code = countries.by_name(text, language=language)
        if code:
            return str(code)
    raise CellError(
        _('"%(value)s" is not a country: write its ISO code (RU) or its name.') % {"value": text},
        "country_invalid",
    )


def parse_date(text: str, today: datetime.date) -> datetime.date:
    formats = ("%Y-%m-%d", "%d.%m.%Y", "%d/%m/%Y", "%d.%m.%y", "%Y")
    for fmt in formats:
        try:
            day = datetime.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
        if not datetime.date(1900, 1, 1) <= day <= today:
            raise CellError(
                _("The date %(date)s is not between 1900 and today.") % {"date": day.isoformat()},
                "date_range",
            )
        return day
    raise CellError(
        _('"%(value)s" is not a date (write it as 31.12.2020 or 2020-12-31).') % {"value": text},
        "date_invalid",
    )


_email = EmailValidator()
_url = URLValidator(schemes=["http", "https"])


def parse_email(text: str) -> str:
    try:
        _email(text)
    except ValidationError as error:
        raise CellError(
            _('"%(value)s" is not an e-mail address.') % {"value": text}, "email_invalid"
        ) from error
    return text


def parse_website(text: str) -> str:
    url = text if re.match(r"^[a-z][a-z0-9+.-]*://", text, re.I) else f"https://{text}"
    try:
        _url(url)
    except ValidationError as error:
        raise CellError(
            _('"%(value)s" is not a web address.') % {"value": text}, "website_invalid"
        ) from error
    return url


# --- Typed rows and the result of parsing a file


@dataclass(frozen=True)
class PlayerRow:
    row: int
    values: dict[str, Any]  # only the filled cells, typed (Player field names)
    club: Any = None  # what the caller's club look-up gave for the ``club`` cell
    member_since: datetime.date | None = None

    @property
    def membership_number(self) -> str:
        return str(self.values.get("membership_number", ""))

    def creation_values(self) -> dict[str, Any]:
        """Field values of a new player: names completed from each other."""
        values = dict(self.values)
        native, latin = values.get("name_native", ""), values.get("name_latin", "")
        values["name_native"] = native or latin
        values["name_latin"] = (latin or anyascii(native).replace("'", ""))[
            : _max(Player, "name_latin")
        ]
        return values


@dataclass(frozen=True)
class ClubRow:
    row: int
    values: dict[str, str]  # only the filled cells (Club field names)


RowT = TypeVar("RowT", PlayerRow, ClubRow)


@dataclass
class Parsed(Generic[RowT]):
    rows: list[RowT] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    total: int = 0  # data rows in the file (blank lines not counted)
    ignored_columns: list[str] = field(default_factory=list)
    encoding: str = ""
    delimiter: str = ""

    @property
    def rejected_rows(self) -> list[int]:
        return sorted({error.row for error in self.errors})


def _cells(
    table: Table, found: Mapping[str, int], columns: Sequence[Column], parsed: Parsed[Any]
) -> Iterable[tuple[int, dict[str, str], list[RowError]]]:
    """Per record: its number, the stripped cells by column key, and shape errors."""
    width = len(table.header)
    for number, cells in table.records:
        errors: list[RowError] = []
        if len(cells) > width and any(cell.strip() for cell in cells[width:]):
            errors.append(
                RowError(
                    number,
                    "",
                    _("The row has %(cells)d cells but the header only %(columns)d columns.")
                    % {"cells": len(cells), "columns": width},
                    "too_many_cells",
                )
            )
        values = {
            key: (cells[index].strip() if index < len(cells) else "")
            for key, index in found.items()
        }
        for column in columns:
            value = values.get(column.key, "")
            if column.max_length and len(value) > column.max_length:
                errors.append(
                    RowError(
                        number,
                        table.header[found[column.key]],
                        _("Too long: %(length)d characters, at most %(limit)d.")
                        % {"length": len(value), "limit": column.max_length},
                        "too_long",
                    )
                )
        parsed.total += 1
        yield number, values, errors


def _start(data: bytes, columns: Sequence[Column]) -> tuple[Table, dict[str, int], Parsed[Any]]:
    table = read_table(data)
    found, ignored = map_header(table.header, columns)
    parsed: Parsed[Any] = Parsed(
        ignored_columns=ignored, encoding=table.encoding, delimiter=table.delimiter
    )
    return table, found, parsed


def _convert(
    values: dict[str, str],
    parsers: Mapping[str, Callable[[str], Any]],
    header_of: Callable[[str], str],
    number: int,
    errors: list[RowError],
) -> dict[str, Any]:
    typed: dict[str, Any] = {}
    for key, text in values.items():
        if not text:
            continue
        parser = parsers.get(key)
        try:
            typed[key] = parser(text) if parser else text
        except CellError as error:
            errors.append(RowError(number, header_of(key), error.reason, error.code))
    return typed


def parse_players(
    data: bytes, *, clubs: Mapping[str, Any], today: datetime.date
) -> Parsed[PlayerRow]:
    """Validate a players file.  ``clubs`` maps ``club_key(name or slug)`` to a club."""
    table, found, parsed = _start(data, PLAYER_COLUMNS)
    missing = _missing(PLAYER_COLUMNS, found, ["membership_number"])
    if not any(key in found for key in PLAYER_NAME_KEYS):
        by_key = {column.key: column.display for column in PLAYER_COLUMNS}
        missing.append(
            _("%(native)s or %(latin)s")
            % {"native": by_key["name_native"], "latin": by_key["name_latin"]}
        )
    _raise_missing(missing, table.header)

    def header_of(key: str) -> str:
        return table.header[found[key]] if key in found else key

    def club(text: str) -> Any:
        match = clubs.get(club_key(text))
        if match is None:
            raise CellError(
                _('There is no club "%(club)s" in this federation.') % {"club": text},
                "club_unknown",
            )
        return match

    countries_seen: dict[str, str | CellError] = {}

    def country(text: str) -> str:
        # Names are looked up by scanning every country: remember each answer.
        if text not in countries_seen:
            try:
                countries_seen[text] = parse_country(text)
            except CellError as error:
                countries_seen[text] = error
        answer = countries_seen[text]
        if isinstance(answer, CellError):
            raise answer
        return answer

    parsers: dict[str, Callable[[str], Any]] = {
        "birth_year": lambda text: parse_birth_year(text, today),
        "gender": parse_gender,
        "country": country,
        "club": club,
        "member_since": lambda text: parse_date(text, today),
    }
    first_row: dict[str, int] = {}
    for number, values, errors in _cells(table, found, PLAYER_COLUMNS, parsed):
        typed = _convert(values, parsers, header_of, number, errors)
        if not any(values.get(key) for key in PLAYER_NAME_KEYS):
            name_column = next(header_of(key) for key in PLAYER_NAME_KEYS if key in found)
            errors.append(RowError(number, name_column, _("The name is missing."), "name_missing"))
        if values.get("member_since") and not values.get("club"):
            errors.append(
                RowError(
                    number,
                    header_of("member_since"),
                    _("A membership date needs a club in the same row."),
                    "member_since_without_club",
                )
            )
        membership_number = values.get("membership_number", "")
        if membership_number:
            if membership_number in first_row:
                errors.append(
                    RowError(
                        number,
                        header_of("membership_number"),
                        _("Membership number %(number)s is already in row %(row)d of this file.")
                        % {"number": membership_number, "row": first_row[membership_number]},
                        "duplicate_in_file",
                    )
                )
            else:
                first_row[membership_number] = number
        if errors:
            parsed.errors.extend(errors)
            continue
        club_value = typed.pop("club", None)
        since = typed.pop("member_since", None)
        parsed.rows.append(PlayerRow(number, typed, club_value, since))
    return parsed


def parse_clubs(data: bytes) -> Parsed[ClubRow]:
    table, found, parsed = _start(data, CLUB_COLUMNS)
    _raise_missing(_missing(CLUB_COLUMNS, found, CLUB_REQUIRED), table.header)

    def header_of(key: str) -> str:
        return table.header[found[key]]

    parsers = {"email": parse_email, "website": parse_website}
    first_row: dict[str, int] = {}
    for number, values, errors in _cells(table, found, CLUB_COLUMNS, parsed):
        typed = _convert(values, parsers, header_of, number, errors)
        for key in CLUB_REQUIRED:
            if not values.get(key):
                errors.append(
                    RowError(
                        number,
                        header_of(key),
                        _("This cell must be filled in."),
                        f"{key}_missing",
                    )
                )
        key = club_key(values.get("name", ""))
        if key:
            if key in first_row:
                errors.append(
                    RowError(
                        number,
                        header_of("name"),
                        _('The club "%(club)s" is already in row %(row)d of this file.')
                        % {"club": values["name"], "row": first_row[key]},
                        "duplicate_in_file",
                    )
                )
            else:
                first_row[key] = number
        if errors:
            parsed.errors.extend(errors)
            continue
        parsed.rows.append(ClubRow(number, typed))
    return parsed


# --- Writing (the export): the import's columns, so an export re-imports cleanly


def _write(columns: Sequence[Column], rows: Iterable[Mapping[str, Any]]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=EXPORT_DELIMITER, lineterminator="\r\n")
    writer.writerow([column.key for column in columns])
    for row in rows:
        writer.writerow(["" if row.get(c.key) is None else str(row[c.key]) for c in columns])
    # A byte order mark, so that Excel reads the file as UTF-8.
    return codecs.BOM_UTF8 + buffer.getvalue().encode("utf-8")


def write_players(rows: Iterable[Mapping[str, Any]]) -> bytes:
    """Rows keyed by the column keys of ``PLAYER_COLUMNS``; dates become ISO dates."""
    return _write(
        PLAYER_COLUMNS,
        (
            {
                **row,
                "member_since": row["member_since"].isoformat() if row.get("member_since") else "",
            }
            for row in rows
        ),
    )


def write_clubs(rows: Iterable[Mapping[str, Any]]) -> bytes:
    return _write(CLUB_COLUMNS, rows)
