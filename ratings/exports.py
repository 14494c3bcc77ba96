"""CSV and XLSX files of a rating list (published or live).

The column headers follow the active language (Russian headers on a Russian
page).  The CSV is what Excel opens directly: UTF-8 with a byte order mark,
";" between cells (clubs.csv_io.EXPORT_DELIMITER, what Excel with a Russian
locale expects) and, in Russian, a decimal comma.  The XLSX holds real
numbers (two decimals shown) and a bold, frozen header row.

Text that a spreadsheet would run as a formula (a name starting with "=",
"+", "-" or "@") is kept as text: a quote before it in the CSV, a string cell
in the XLSX.

``write_csv`` and ``write_xlsx`` write any table of ``Column``s the same way
(the tournaments app's exports use them too).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import formats
from django.utils.translation import gettext as _

from clubs.csv_io import EXPORT_DELIMITER
from ratings.queries import Row

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    value: Callable[[Any], Any]
    # "text", "int", "rating" / "change" (two decimals), "number" (as many decimals
    # as it has: a score of 2.5; text where it is not a number, a shared place "1-3")
    # or "flag"
    kind: str = "text"


def columns(glicko: bool) -> list[Column]:
    """The columns of a list, headers in the active language."""
    spread = (
        Column(_("RD"), lambda row: row.rd, "rating")
        if glicko
        else Column(_("Experience"), lambda row: row.experience, "int")
    )
    return [
        Column(_("Rank"), lambda row: row.rank, "int"),
        Column(_("Player ID"), lambda row: row.player.pk, "int"),
        Column(_("Name"), lambda row: row.player.name_native or row.player.name_latin),
        Column(_("Name (Latin)"), lambda row: row.player.name_latin),
        Column(_("Country"), lambda row: row.player.country.code if row.player.country else ""),
        Column(_("Rating"), lambda row: row.rating, "rating"),
        spread,
        Column(_("Rated matches"), lambda row: row.matches, "int"),
        Column(_("Provisional"), lambda row: row.provisional, "flag"),
        Column(_("Rating change"), lambda row: row.change, "change"),
    ]


def safe_text(value: str) -> str:
    """Text a spreadsheet will not run as a formula."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def _csv_cell(column: Column, value: Any) -> str:
    if value is None:
        return ""
    if column.kind == "flag":
        return _("yes") if value else ""
    if column.kind in ("rating", "change"):
        # The active language's decimal mark, no thousands separator.
        return formats.number_format(round(float(value), 2), 2, use_l10n=True)
    if column.kind == "number" and isinstance(value, int | float):
        return formats.number_format(value, use_l10n=True)
    if column.kind == "number":
        return safe_text(str(value))
    if column.kind == "int":
        return str(value)
    return safe_text(str(value))


def csv_bytes(rows: Iterable[Row], *, glicko: bool) -> bytes:
    return write_csv(columns(glicko), rows)


def write_csv(cols: Sequence[Column], rows: Iterable[Any]) -> bytes:
    """The rows as a CSV file Excel opens directly, a header of ``cols`` first."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=EXPORT_DELIMITER, lineterminator="\r\n")
    writer.writerow([column.header for column in cols])
    for row in rows:
        writer.writerow([_csv_cell(column, column.value(row)) for column in cols])
    # The byte order mark makes Excel read the file as UTF-8.
    return b"\xef\xbb\xbf" + buffer.getvalue().encode("utf-8")


def sheet_title(text: str) -> str:
    """An Excel sheet name: at most 31 characters, none of []:*?/\\."""
    cleaned = "".join("-" if char in "[]:*?/\\" else char for char in text).strip("'")
    return cleaned[:31] or "Rating"


def xlsx_bytes(rows: Iterable[Row], *, glicko: bool, title: str) -> bytes:
    return write_xlsx(columns(glicko), rows, title=title)


def write_xlsx(cols: Sequence[Column], rows: Iterable[Any], *, title: str) -> bytes:
    """The rows as a one-sheet workbook named ``title``, a bold, frozen header first."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    book = Workbook(write_only=True)
    sheet = book.create_sheet(sheet_title(title))
    sheet.freeze_panes = "A2"
    widths = [max(8, len(column.header) + 2) for column in cols]
    texts: list[Sequence[Any]] = []
    for row in rows:
        values = [column.value(row) for column in cols]
        for index, (column, value) in enumerate(zip(cols, values, strict=True)):
            if column.kind == "text" and value:
                widths[index] = min(40, max(widths[index], len(str(value)) + 2))
        texts.append(values)
    for index, width in enumerate(widths):
        sheet.column_dimensions[_column_letter(index)].width = width

    bold = Font(bold=True)
    header = []
    for column in cols:
        cell = WriteOnlyCell(sheet, value=column.header)
        cell.font = bold
        header.append(cell)
    sheet.append(header)
    yes = _("yes")
    for values in texts:
        cells = []
        for column, value in zip(cols, values, strict=True):
            if column.kind == "flag":
                cell = WriteOnlyCell(sheet, value=yes if value else None)
            elif column.kind in ("rating", "change"):
                cell = WriteOnlyCell(sheet, value=None if value is None else round(value, 2))
                cell.number_format = "+0.00;-0.00;0.00" if column.kind == "change" else "0.00"
            elif column.kind == "int" or (column.kind == "number" and not isinstance(value, str)):
                cell = WriteOnlyCell(sheet, value=value)
            else:
                cell = WriteOnlyCell(sheet, value=str(value) if value else None)
                if value:
                    cell.data_type = "s"  # never a formula, whatever the text starts with
            cells.append(cell)
        sheet.append(cells)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _column_letter(index: int) -> str:
    from openpyxl.utils import get_column_letter

    return str(get_column_letter(index + 1))


def file_stem(federation_slug: str, discipline_code: str, date_label: str) -> str:
    """``<federation>-<discipline>-<date or "live">``."""
    return f"rating-{federation_slug}-{discipline_code}-{date_label}"
