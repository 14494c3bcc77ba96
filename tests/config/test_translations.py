"""Every user-facing string is translatable and has its Russian translation."""

from __future__ import annotations

import ast
import gettext
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_python

PO = ROOT / "locale" / "ru" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
# Every package of the product (apps, the bottom package, the engine, the settings),
# the templates and the catalogue.
SOURCES = sorted(
    {path.parent.name for path in ROOT.glob("*/__init__.py") if path.parent.name != "tests"}
    | {"templates", "locale"}
)


def read_po(path: Path) -> dict[str, str]:
    """msgid -> msgstr for every entry but the header (plural forms keyed by the singular)."""
    entries: dict[str, str] = {}
    msgid: list[str] = []
    msgstr: list[str] = []
    target: list[str] | None = None
    fuzzy: set[str] = set()
    pending_fuzzy = False

    def flush() -> None:
        nonlocal pending_fuzzy
        key = "".join(msgid)
        if key:
            entries[key] = "".join(msgstr)
            if pending_fuzzy:
                fuzzy.add(key)
        msgid.clear()
        msgstr.clear()
        pending_fuzzy = False

    for line in [*path.read_text().splitlines(), ""]:
        if line.startswith("#,") and "fuzzy" in line:
            flush()
            pending_fuzzy = True
        elif line.startswith("msgid "):
            if msgstr:
                flush()
            target = msgid
            target.append(ast.literal_eval(line[6:]))
        elif line.startswith("msgid_plural"):
            target = None
        elif line.startswith(("msgstr ", "msgstr[0] ")):
            target = msgstr
            target.append(ast.literal_eval(line.split(" ", 1)[1]))
        elif line.startswith("msgstr["):
            target = None
        elif line.startswith('"') and target is not None:
            target.append(ast.literal_eval(line))
        elif not line.strip():
            flush()
            target = None
    assert not fuzzy, f"fuzzy translations: {sorted(fuzzy)}"
    return entries


def test_every_catalogue_entry_is_translated() -> None:
    entries = read_po(PO)
    assert len(entries) >= 10
    untranslated = sorted(key for key, value in entries.items() if not value.strip())
    assert not untranslated, f"untranslated: {untranslated}"


def test_compiled_catalogue_matches_the_po_file() -> None:
    with MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = {key: value for key, value in read_po(PO).items() if compiled.gettext(key) != value}
    assert not stale, f"run 'manage.py compilemessages -l ru': stale {sorted(stale)}"


@pytest.mark.skipif(
    shutil.which("xgettext") is None, reason="GNU gettext (xgettext) is not installed"
)
def test_catalogue_holds_every_string_marked_in_the_sources(tmp_path, clean_env) -> None:
    # makemessages rewrites the catalogue in place, so it runs on a copy of the sources.
    for name in SOURCES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "manage.py", tmp_path / "manage.py")
    env = dict(clean_env, PYTHONPATH=str(tmp_path))
    result = run_python(
        "",
        env,
        str(tmp_path / "manage.py"),
        "makemessages",
        "-l",
        "ru",
        "--no-obsolete",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    fresh = read_po(tmp_path / "locale" / "ru" / "LC_MESSAGES" / "django.po")
    missing = sorted(key for key, value in fresh.items() if not value.strip())
    assert not missing, f"strings without a Russian translation: {missing}"
