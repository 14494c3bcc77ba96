"""Every engine error code reaches the user as a sentence in their language,
made on the Django side from the code and its data (base.engine_messages)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from base.engine_messages import (
    MESSAGES,
    PRESET_LABELS,
    VARIANT_LABELS,
    WRAPPERS,
    message_for,
    result_label,
)
from engine.errors import EngineError
from engine.records import matfile
from engine.records.notation import parse_moves
from engine.rules import game as eg
from engine.rules.scoring import PRESETS
from engine.rules.variants import VARIANTS
from tests.conftest import ROOT

ENGINE = ROOT / "engine"
LANGUAGES = ("en", "ru")
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
# Three English words in a row: engine prose, which a Russian message must not carry
# (the sample data below hold no such run, so only a template could bring one).
ENGLISH_PROSE = re.compile(r"\b[A-Za-z]{3,}\s+[A-Za-z]{3,}\s+[A-Za-z]{3,}\b")
SENTINEL = "ENGINE PROSE SENTINEL"


# --- which codes the engine raises, read from its source


def _code_positions(trees: dict[str, ast.Module]) -> dict[str, int]:
    """Every callable of the engine with a ``code`` parameter (error classes,
    their factories such as ``azn_error`` or ``_Failure``): its position."""
    positions: dict[str, int] = {}
    error_classes = {"EngineError"}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                names = [a.arg for a in node.args.args]
                if names and names[0] in ("self", "cls"):
                    names = names[1:]
                if "code" in names:
                    owner = node.name
                    positions[owner] = names.index("code")
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        names = [a.arg for a in item.args.args][1:]
                        if "code" in names:
                            positions[node.name] = names.index("code")
    # Subclasses that inherit EngineError's __init__ (code first), to any depth.
    grew = True
    while grew:
        grew = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name not in error_classes:
                    bases = {
                        b.id if isinstance(b, ast.Name) else getattr(b, "attr", "")
                        for b in node.bases
                    }
                    if bases & error_classes:
                        error_classes.add(node.name)
                        positions.setdefault(node.name, 0)
                        grew = True
    positions.pop("__init__", None)
    return positions


def _strings(node: ast.AST) -> set[str]:
    return {
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def raised_codes(sources: dict[str, str]) -> dict[str, list[set[str]]]:
    """code -> the data keys each raise site names, for every literal code passed
    to an error class or factory; codes chosen in a variable (``code = "a" if
    ... else "b"``) and the tables the move generator formats its refusals from
    (``_SPECIAL_REASONS``) count too."""
    trees = {name: ast.parse(text) for name, text in sources.items()}
    positions = _code_positions(trees)
    codes: dict[str, list[set[str]]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "code" for t in node.targets)
                and isinstance(node.value, ast.Constant | ast.IfExp)
            ):
                for code in _strings(node.value):
                    codes.setdefault(code, []).append(set())
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id.endswith("_REASONS") for t in node.targets)
                and isinstance(node.value, ast.Dict)
            ):
                for key in node.value.keys:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        codes.setdefault(key.value, []).append({"move", "point"})
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in positions:
                continue
            argument = next((k.value for k in node.keywords if k.arg == "code"), None)
            if argument is None and len(node.args) > positions[name]:
                argument = node.args[positions[name]]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                keys = {k.arg for k in node.keywords if k.arg and k.arg != "code"}
                codes.setdefault(argument.value, []).append(keys)
    return codes


def engine_sources() -> dict[str, str]:
    return {
        str(path.relative_to(ENGINE)): path.read_text() for path in sorted(ENGINE.rglob("*.py"))
    }


ENGINE_CODES = raised_codes(engine_sources())


def test_the_scan_finds_the_engines_codes() -> None:
    # Known codes of each kind of raise site: a class, a factory, a _Failure, a table, a variable.
    for code in ("must_play_both", "bad_token", "head_rule", "pinned_checker", "illegal_move", "game_not_finished", "bad_id_length", "unknown_condition"):  # fmt: skip
        assert code in ENGINE_CODES, code
    assert len(ENGINE_CODES) >= 120


def test_the_scan_would_catch_a_new_code_without_a_message() -> None:
    source = (
        "class MatError(EngineError):\n"
        "    def __init__(self, code, reason, line, **data): ...\n"
        "def parse(text):\n"
        "    raise MatError('brand_new_refusal', 'nope', 3, token=text)\n"
    )
    found = raised_codes({"sample.py": source})
    assert found == {"brand_new_refusal": [{"token"}]}
    assert "brand_new_refusal" not in MESSAGES


def test_every_code_the_engine_raises_has_a_message() -> None:
    missing = sorted(code for code in ENGINE_CODES if code not in MESSAGES and code not in WRAPPERS)
    assert not missing, (
        f"engine codes without a translated message in base/engine_messages.py: {missing}"
    )


def test_every_message_names_only_data_its_code_carries() -> None:
    # A template naming a key that no raise site passes would never be chosen: a dead sentence.
    unused = []
    for code, templates in MESSAGES.items():
        sites = ENGINE_CODES.get(code, [])
        for template in templates[:-1]:
            needs = template.placeholders() - LOCATION_KEYS
            if sites and not any(needs <= keys | STARRED_KEYS for keys in sites):
                unused.append((code, str(template.text)))
    assert not unused, unused


# --- every code, in every language, with each raise site's data

LOCATION_KEYS = {"line", "move_number", "side", "text", "token", "offset", "turn"}
STARRED_KEYS = {"dice", "move", "point", "example"}  # passed through **data by the move generator

SAMPLES: dict[str, Any] = {
    "character": "!", "checkers": 15, "condition": "none_off", "count": 3, "cube": 4,
    "cube_owner": 2, "dice": [3, 1], "die": 5, "doubled": True, "example": "24/21 6/5",
    "expected": 2, "field": "e5", "file": "record.txt", "game": 3, "got": 1, "higher": 6,
    "id": "4HPwATDgc/ABMA", "key": "length", "keys": ["colour"], "known": ["short", "long"],
    "length": 7, "level": "mars x9", "levels": ["single", "mars"], "line": 12, "loser": 1,
    "maximum": 999999999, "module": "engine.records.azn", "move": "24/21", "move_number": 5,
    "multiplier": 0, "name": "mars", "needed": 2, "offset": 4, "on_roll": True,
    "option": "beaver", "outside": 3, "owner": 1, "phase": "play", "playable": 2, "played": 1,
    "point": 24, "points": [5, 7], "preset": "custom", "remaining": 0, "rule": 2,
    "score": [3, 1], "shadowed_by": 1, "side": 0, "starter": 1, "state": 7,
    "text": "5/1 a1", "token": "13/x", "turn": 4, "value": 7, "variant": "long",
    "winner": 0, "word": "dubles", "written": 3,
}  # fmt: skip
PER_CODE: dict[str, dict[str, Any]] = {
    "wrong_phase": {"expected": ["roll"]},
    "score_mismatch": {"written": [3, 1], "expected": [2, 1]},
    "wrong_mover": {"expected": 0, "got": 1},
    "number_too_large": {"field": "match_length"},
    "illegal_move": {"rule": "head_rule", "side": "white"},
    "illegal_turn": {"rule": "wrong_phase", "side": "black"},
    # Warnings of an import (RecordWarning): kept with the match, never raised.
    "empty_name": {"player": 2},
    "wins_column": {"resigner": 2, "resign_line": 9},
    "resign_points": {"written": 4, "expected": 2},
    "match_resigned": {"resigner": 2, "game": 1},
    "player_name": {"player": 1, "name": "Anna", "header": "Anna Smith"},
}
AZN_LOCATION = {"move_number": 5, "side": "white", "line": 3, "text": "5. 6/5 a1a6"}


def representative_data(code: str) -> list[dict[str, Any]]:
    """The data of each raise site of ``code``, filled with sample values, also
    with a line number and with the Azerbaijani reader's location."""
    cases = []
    for keys in ENGINE_CODES.get(code, [set()]) or [set()]:
        data = {key: PER_CODE.get(code, {}).get(key, SAMPLES.get(key, 1)) for key in keys}
        data.update(PER_CODE.get(code, {}))
        cases += [data, {**data, "line": 12}, {**data, **AZN_LOCATION}]
    return cases


def rendered(code: str, data: dict[str, Any], language: str) -> str:
    with translation.override(language):
        return message_for(EngineError(code, SENTINEL, **data))


ALL_CODES = sorted(set(ENGINE_CODES) | set(MESSAGES) | WRAPPERS)


@pytest.mark.parametrize("code", ALL_CODES)
def test_each_code_reads_whole_in_english_and_russian(code: str) -> None:
    for data in representative_data(code):
        english = rendered(code, data, "en")
        russian = rendered(code, data, "ru")
        for text in (english, russian):
            assert "%(" not in text and "%s" not in text, (code, data, text)
            assert SENTINEL not in text  # the engine's own reason never shows
            assert f"“{code}”" not in text, (code, text)  # a real sentence, not the fallback
        assert not CYRILLIC.search(english), (code, english)
        assert CYRILLIC.search(russian), (code, russian)
        assert russian != english
        assert not ENGLISH_PROSE.search(russian), (code, data, russian)


def test_the_example_and_the_location_are_kept_in_the_sentence() -> None:
    data = {"example": "24/21 6/5", "played": 1, "playable": 2, "dice": (3, 1), "line": 7}
    assert rendered("must_play_both", data, "ru") == (
        "строка 7: Если можно сыграть оба кубика, играть нужно оба: допустим ход 24/21 6/5."
    )
    azn = {"rule": "point_closed", "token": "c3c6", "field": "c6", **AZN_LOCATION}
    assert rendered("illegal_move", azn, "ru") == (
        "ход 5, Белые, строка 3: c3c6: пункт c6 закрыт: его занимает соперник."
    )


def test_a_code_without_a_message_gets_a_translated_sentence_naming_it() -> None:
    english = rendered("brand_new_refusal", {"token": "x"}, "en")
    russian = rendered("brand_new_refusal", {"token": "x"}, "ru")
    assert "brand_new_refusal" in english and "brand_new_refusal" in russian
    assert CYRILLIC.search(russian) and SENTINEL not in russian


# --- errors made by the engine itself


def _head_rule_error() -> EngineError:
    state = eg.set_opening(eg.new_game(eg.GameRules(VARIANTS["long"])), 0, [3, 1])
    with pytest.raises(EngineError) as refused:
        eg.play(state, parse_moves("24/21 24/23"))
    return refused.value


def test_the_head_rule_refusal_of_the_issue_is_all_russian() -> None:
    error = _head_rule_error()
    assert error.code == "head_rule" and "only one checker" in error.reason
    with translation.override("ru"):
        text = message_for(error)
    assert text == "24/23: в этот ход с головы (24) больше снимать шашки нельзя."


def test_real_parser_errors_carry_their_place() -> None:
    with pytest.raises(EngineError) as refused:
        parse_moves("8/x")
    with translation.override("ru"):
        assert message_for(refused.value) == "«8/x» — не запись хода."
    with pytest.raises(EngineError) as refused:
        matfile.parse_mat(" 5 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5\n")
    with translation.override("ru"):
        assert message_for(refused.value) == "строка 5: Партия 1 заканчивается без результата."


# --- the engine's names for results, variants and scoring presets


def test_every_result_name_of_every_preset_is_translated() -> None:
    names = {"single", "pass", "time", "gammon", "backgammon"}
    for preset in PRESETS.values():
        names |= set(preset.result_names())
    assert {"mars", "home mars", "koks"} <= names
    with translation.override("ru"):
        untranslated = sorted(n for n in names if not CYRILLIC.search(result_label(n)))
    assert not untranslated
    with translation.override("ru"):
        assert result_label("home mars") == "домашний марс"
        assert result_label("Custom name") == "Custom name"  # an organizer's own rule name


def test_every_variant_and_preset_has_a_translated_label() -> None:
    assert set(VARIANT_LABELS) == set(VARIANTS)
    assert set(PRESET_LABELS) == set(PRESETS)
    with translation.override("ru"):
        for label in [*VARIANT_LABELS.values(), *PRESET_LABELS.values()]:
            assert CYRILLIC.search(str(label)), label


def test_messages_module_is_reached_from_every_place_an_engine_error_meets_a_user() -> None:
    # The places that catch an EngineError for a user: none may show ``.reason``.
    offenders = []
    for app in ("clubs", "games", "ratings", "tournaments"):
        for path in (ROOT / app).rglob("*.py"):
            text = path.read_text()
            if "EngineError" not in text and "MatError" not in text:
                continue
            for match in re.finditer(r"except [^\n]*(EngineError|MatError)[^\n]* as (\w+):", text):
                body = text[match.end() : match.end() + 600].split("\n\n")[0]
                if (
                    f"{match.group(2)}.reason" in body
                    and "RuntimeError" not in body
                    and "ExportError" not in body
                ):
                    offenders.append(
                        f"{Path(path).relative_to(ROOT)}:{text[: match.start()].count(chr(10)) + 1}"
                    )
    assert not offenders, offenders


# --- through the pages and the API, in the reader's language

RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}


def _long_nardy_match():  # type: ignore[no-untyped-def]
    from tests.factories import DisciplineFactory, MatchFactory

    discipline = DisciplineFactory(
        code="long-masters",
        name="Long nardy",
        variant="long",
        scoring_preset="long-masters",
        cube=False,
    )
    return MatchFactory(discipline=discipline, length=3)


def _post_json(client, url: str, body: dict[str, Any], **headers: str):  # type: ignore[no-untyped-def]
    import json

    return client.post(url, json.dumps(body), content_type="application/json", **headers)


@pytest.mark.django_db
def test_the_board_refuses_the_issues_illegal_move_all_in_russian(client) -> None:  # type: ignore[no-untyped-def]
    from django.urls import reverse

    from games import services
    from games.models import TurnKind
    from tests.games.helpers import user_of

    match = _long_nardy_match()
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    client.force_login(white)
    turn = {"number": 2, "kind": "play", "dice": [3, 1], "moves": "24/21 24/23"}
    response = _post_json(client, reverse("games:record", args=[match.pk]), turn, **RU)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "head_rule" and error["turn"] == 2 and error["point"] == 24
    assert error["reason"] == "24/23: в этот ход с головы (24) больше снимать шашки нельзя."
    english = _post_json(
        client, reverse("games:record", args=[match.pk]), turn, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert english.json()["error"]["reason"] == (
        "24/23: no more checkers may leave the head (24) this turn."
    )


@pytest.mark.django_db
def test_api_errors_follow_accept_language(client) -> None:  # type: ignore[no-untyped-def]
    from games import services
    from games.models import TurnKind
    from tests.games.helpers import user_of

    match = _long_nardy_match()
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    url = f"/api/matches/{match.pk}/turns/"
    turn = {"number": 2, "kind": "play", "dice": [3, 1], "moves": "24/21 24/23"}
    # Anonymous: DRF's own refusal, in Russian, in the endpoint's documented shape.
    anonymous = _post_json(client, url, turn, HTTP_ACCEPT="application/json", **RU)
    assert anonymous.status_code in (401, 403)
    assert CYRILLIC.search(anonymous.json()["reason"]), anonymous.json()
    client.force_login(white)
    # The engine's refusal: code, turn and the translated reason.
    refused = _post_json(client, url, turn, HTTP_ACCEPT="application/json", **RU)
    assert refused.status_code == 400
    body = refused.json()
    assert (body["code"], body["turn"]) == ("head_rule", 2)
    assert body["reason"] == "24/23: в этот ход с головы (24) больше снимать шашки нельзя."
    # A serializer's field errors.
    invalid = _post_json(client, url, {"kind": "play"}, HTTP_ACCEPT="application/json", **RU)
    assert invalid.status_code == 400
    assert CYRILLIC.search(str(invalid.json())), invalid.json()
    # Not found.
    missing = client.get("/api/matches/999999/", HTTP_ACCEPT="application/json", **RU)
    assert missing.status_code == 404
    assert CYRILLIC.search(missing.json()["detail"]), missing.json()
    # And the same requests in English say it in English.
    english = _post_json(
        client, url, turn, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert english.json()["reason"] == "24/23: no more checkers may leave the head (24) this turn."


@pytest.mark.django_db
def test_result_names_read_in_russian_on_the_match_page_and_the_board(client) -> None:  # type: ignore[no-untyped-def]
    from django.urls import reverse

    from games import services
    from games.models import TurnKind
    from tests.games.helpers import user_of

    match = _long_nardy_match()
    white, black = user_of(match, 0), user_of(match, 1)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="24/20")
    client.force_login(black)
    state = client.get(reverse("games:state", args=[match.pk]), **RU).json()
    labels = {level["name"]: level["label"] for level in state["resign_levels"]}
    assert labels == {"single": "одинарная партия", "mars": "марс", "home mars": "домашний марс"}
    services.record_turn(match, by=black, number=3, kind=TurnKind.RESIGN, level="home mars")
    page = client.get(reverse("games:match", args=[match.pk]), **RU).content.decode()
    assert "(домашний марс)" in page
    assert "home mars" not in page.replace('value="home mars"', "")
