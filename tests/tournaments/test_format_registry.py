"""Tournament formats are plug-ins (tournaments/formats/): no other product module
names a format, every registered format answers each question the app asks, and a
new format registered is offered by the console."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.imports import ROOT
from tests.tournaments import builders
from tournaments import adapters, core
from tournaments.formats import flights, registry
from tournaments.formats.base import Plan, Rows, TournamentFormat
from tournaments.formats.codes import Format
from tournaments.forms import TournamentForm
from tournaments.models import Entry, Pairing, Tournament

# Modules that may name a format, and why.
ALLOWED = {
    # The demo data builds sample tournaments of chosen formats, as an organizer would
    # pick them on the form; it never branches on a format.
    "tournaments/demo.py",
    # The pure algorithms are named after what they compute (``core.single_elimination``),
    # listed in the core's ``__all__``; the core knows no format codes.
    "tournaments/core/__init__.py",
}
CODES = sorted(Format.values)
MENTIONS = [
    re.compile(r"\bFormat\.[A-Z]"),  # a member of the format codes
    re.compile(r"\.format\s*(==|!=|\bin\b|\bnot in\b)"),  # a branch on a tournament's format
    re.compile(r"_FORMATS\b"),  # a set of formats
    *(re.compile(rf"[\"']{code}[\"']") for code in CODES),
]


def product_files() -> list[Path]:
    python = [
        path
        for package in sorted(p.parent for p in ROOT.glob("*/__init__.py"))
        if package.name != "tests"
        for path in package.rglob("*.py")
        if "migrations" not in path.parts
        and not path.is_relative_to(ROOT / "tournaments" / "formats")
    ]
    return python + sorted((ROOT / "templates").rglob("*.html"))


def mentions(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if any(pattern.search(line) for pattern in MENTIONS):
            found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def test_the_scan_sees_a_mention_of_each_kind(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'if t.format == "cup":\n    pass\nx = Format.SWISS\nBRACKET_FORMATS = {}\n'
        "y = t.format in kinds\nz = 'round_robin'\nok = t.format_display\n"
    )
    assert [m.split(":")[1] for m in mentions(sample, tmp_path)] == ["1", "3", "4", "5", "6"]


def test_no_product_module_outside_the_formats_names_a_format() -> None:
    files = product_files()
    assert any(path.name == "console.py" for path in files)
    assert any(path.name == "public_detail.html" for path in files)
    found = [
        line
        for path in files
        if str(path.relative_to(ROOT)) not in ALLOWED
        for line in mentions(path)
    ]
    assert not found, "a format named outside tournaments/formats/:\n" + "\n".join(found)


def test_the_allowed_modules_still_need_their_place() -> None:
    for name in ALLOWED:
        assert mentions(ROOT / name), f"{name} names no format: take it off ALLOWED"


def test_every_format_code_has_one_registered_format() -> None:
    assert [code for code, _label in registry.choices()] == list(Format.values)
    assert [str(label) for _code, label in registry.choices()] == [
        str(label) for label in Format.labels
    ]
    for code in CODES:
        assert registry.get(code).code == code
    assert registry.DEFAULT in CODES


# --- Every format answers each question


SETTINGS: dict[str, dict[str, Any]] = {
    Format.SWISS: {"rounds_planned": 3},
    Format.CUP: {"rounds_planned": 2},
    Format.GROUPS_KNOCKOUT: {"groups": 2, "qualifiers_per_group": 2},
    Format.MAIN_CONSOLATION: {"last_chance": True},
}


@pytest.mark.django_db
@pytest.mark.parametrize("code", CODES)
def test_each_format_answers_every_question(code: str) -> None:
    t = builders.tournament(8, code, **SETTINGS.get(code, {}))
    fmt = registry.for_tournament(t)
    assert fmt is registry.get(code) and str(fmt.label)
    entries = adapters.entry_rows(t)

    # Its flights, each with its words, knock-out or not.
    own = fmt.flights(t)
    assert own and all(flights.label(f) and flights.title(f) for f in own)
    assert all(isinstance(fmt.is_knockout(f), bool) for f in own)
    assert fmt.paired_flights(t)
    assert set(fmt.bracket_flights(t)) <= set(own)
    assert all(fmt.is_knockout(f) for f in fmt.bracket_flights(t))
    assert fmt.has_bracket == bool(fmt.bracket_flights(t))
    # What it allows and what the pages and the console show.
    for answer in (fmt.late_entries, fmt.several_flights, fmt.next_round_number_known):
        assert isinstance(answer, bool)
    form_fields = set(TournamentForm.base_fields)
    assert set(fmt.settings) <= form_fields and set(fmt.public_facts) <= form_fields
    # A setting the format requires is one the form shows for it: the fields no format
    # claims are shown for all, the others only for the formats that claim them.
    claimed = {field for other in registry.all_formats() for field in other.settings}
    shown = (form_fields - claimed) | set(fmt.settings)
    assert set(fmt.settings_errors(Tournament(format=code))) <= shown
    assert fmt.settings_errors(t) == {}
    fmt.check_draw(t, entries)
    assert fmt.looks_finished(t, []) is False

    # The first round it plans: every player once at most.
    flight = fmt.flight_to_pair(t, fmt.paired_flights(t)[0])
    assert flight in fmt.flights(t)
    plan, final = fmt.plan(t, flight, 1, entries)
    players = [p for a, b, _slot in plan for p in (a, b) if p is not None]
    assert plan and len(players) == len(set(players)) and set(players) <= {e.pk for e in entries}
    assert isinstance(final, bool)

    # Its standings before any result, and its bracket where it has one.
    rows, tie_breaks = fmt.standings(t, entries, [])
    assert all(isinstance(code, str) for code in tie_breaks)
    assert {r["entry"] for r in rows} <= {e.pk for e in entries}
    if fmt.bracket_exists(t, []):
        assert isinstance(fmt.load_bracket(t, entries, []), core.Bracket)
    else:
        assert not fmt.has_bracket or fmt.is_knockout(flights.MAIN)


# --- Adding a format


class Ladder(TournamentFormat):
    """A made-up format: one round, everybody paired down the seeds."""

    code = "ladder"
    label = "ladder"
    settings = ("rounds_planned",)

    def check_draw(self, tournament: Tournament, entries: Sequence[Entry]) -> None:
        adapters.drawn_entries(entries)

    def plan(
        self, tournament: Tournament, flight: str, number: int, entries: Sequence[Entry]
    ) -> tuple[Plan, bool]:
        ids = [e.id for e in adapters.drawn_entries(entries)]
        return [(a, b, "") for a, b in zip(ids[::2], ids[1::2], strict=False)], True

    def standings(
        self, tournament: Tournament, entries: Sequence[Entry], pairings: Sequence[Pairing]
    ) -> tuple[Rows, list[str]]:
        return [], []


@pytest.fixture
def ladder(monkeypatch: pytest.MonkeyPatch) -> TournamentFormat:
    monkeypatch.setattr(registry, "_FORMATS", dict(registry._FORMATS))
    return registry.register(Ladder())


@pytest.mark.django_db
def test_a_new_format_is_one_module_the_console_offers(client, ladder) -> None:  # type: ignore[no-untyped-def]
    assert ("ladder", "ladder") in TournamentForm.base_fields["format"].choices
    _federation, admin, _discipline = builders.federation_with_admin()
    client.force_login(admin)
    page = client.get(reverse("tournaments:new"))
    assert ("ladder", "ladder") in page.context["form"].fields["format"].choices
    assert "ladder" in page.context["format_settings"]["rounds_planned"]
    assert '<option value="ladder">ladder</option>' in page.content.decode()
    with pytest.raises(ValueError, match="registered already"):
        registry.register(Ladder())
