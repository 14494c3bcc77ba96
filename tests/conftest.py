from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_python(
    code: str, env: dict[str, str], *args: str, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run the venv's Python with ``-c code`` (or just ``args``) in a clean process."""
    return subprocess.run(
        [sys.executable, *(["-c", code] if code else []), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:  # type: ignore[no-untyped-def]
    """Tests create many users; the production hasher is deliberately slow."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def english_by_default(settings):  # type: ignore[no-untyped-def]
    """Tests read messages in English; a test about Russian asks for it
    (Accept-Language, or translation.override("ru"))."""
    from django.utils import translation

    settings.LANGUAGE_CODE = "en"
    with translation.override("en"):
        yield


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    """The process environment without any Zary setting, with a private var/ folder."""
    names = {
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "CELERY_RESULT_BACKEND",
        "SECRET_KEY",
        "DEBUG",
        "ALLOWED_HOSTS",
        "TIME_ZONE",
        "LANGUAGE_CODE",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
    }
    env = {k: v for k, v in os.environ.items() if k not in names}
    env["ZARY_VAR_DIR"] = str(tmp_path / "var")
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return env
