"""Settings come from the environment only, with defaults that need nothing installed."""

from __future__ import annotations

import json

from tests.conftest import run_python

DUMP = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps({
    "engine": s.DATABASES["default"]["ENGINE"],
    "name": str(s.DATABASES["default"]["NAME"]),
    "broker": s.CELERY_BROKER_URL,
    "backend": s.CELERY_RESULT_BACKEND,
    "debug": s.DEBUG,
    "hosts": s.ALLOWED_HOSTS,
    "tz": s.TIME_ZONE,
    "lang": s.LANGUAGE_CODE,
    "languages": [code for code, _ in s.LANGUAGES],
    "secret": s.SECRET_KEY,
}))
"""

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "prod-7Zq1v9Lk2Wm4Xp8Rt6Yb3Nc5Hd0Fg1Js2Ka4Qe6Uo8Iy0Tr3Ew5Zx7Cv9Bn1Mk",
    "ALLOWED_HOSTS": "zary.example.org",
    "DATABASE_URL": "postgres://zary:secret@db.internal:5432/zary",
    "CELERY_BROKER_URL": "redis://cache.internal:6379/0",
}


def dump(env: dict[str, str]) -> dict[str, object]:
    result = run_python(DUMP, env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_defaults_need_no_services(clean_env: dict[str, str]) -> None:
    values = dump(clean_env)
    assert values["engine"] == "django.db.backends.sqlite3"
    assert values["name"].endswith("db.sqlite3")
    assert values["broker"] == "filesystem://"
    assert str(values["backend"]).startswith("file://")
    assert values["debug"] is True
    assert values["lang"] == "ru"
    assert values["languages"] == ["ru", "en"]


def test_development_secret_key_is_random_per_checkout_and_kept(clean_env, tmp_path) -> None:
    first = dump(clean_env)["secret"]
    second = dump(clean_env)["secret"]
    assert first == second and len(str(first)) >= 50
    other = dict(clean_env, ZARY_VAR_DIR=str(tmp_path / "other-checkout"))
    assert dump(other)["secret"] != first


def test_production_values_are_read_from_the_environment(clean_env) -> None:
    env = dict(clean_env, **PRODUCTION, TIME_ZONE="Asia/Baku", LANGUAGE_CODE="en")
    values = dump(env)
    assert values["engine"] == "django.db.backends.postgresql"
    assert values["name"] == "zary"
    assert values["broker"] == "redis://cache.internal:6379/0"
    assert values["backend"] == "redis://cache.internal:6379/0"
    assert values["debug"] is False
    assert values["hosts"] == ["zary.example.org"]
    assert values["tz"] == "Asia/Baku"
    assert values["lang"] == "en"
    assert values["secret"] == PRODUCTION["SECRET_KEY"]


def test_secret_key_is_required_when_debug_is_off(clean_env) -> None:
    result = run_python(DUMP, dict(clean_env, DEBUG="0"))
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_malformed_boolean_is_reported_by_name(clean_env) -> None:
    result = run_python(DUMP, dict(clean_env, DEBUG="maybe"))
    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr


def test_unknown_language_is_refused(clean_env) -> None:
    result = run_python(DUMP, dict(clean_env, LANGUAGE_CODE="de"))
    assert result.returncode != 0
    assert "LANGUAGE_CODE='de'" in result.stderr


def test_check_deploy_has_no_warnings_with_production_settings(clean_env) -> None:
    result = run_python(
        "",
        dict(clean_env, **PRODUCTION),
        "manage.py",
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
