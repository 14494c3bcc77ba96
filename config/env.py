"""Reading settings from the environment: one helper per type, strict on bad values."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)"
    )


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def development_secret_key(path: Path) -> str:
    """A random key kept per checkout, so sessions survive restarts in development."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key


RATE_PERIODS = ("s", "sec", "m", "min", "h", "hour", "d", "day")


def env_rate(name: str, default: str | None) -> str | None:
    """A request rate as DRF's throttles read it, ``<count>/<period>`` (period s, m, h
    or d: ``60/h``), or None for ``off`` (no limit)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value == "off":
        return None
    count, _slash, period = value.partition("/")
    if count.isascii() and count.isdigit() and int(count) > 0 and period in RATE_PERIODS:
        return f"{int(count)}/{period}"
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a rate (use <count>/<s|m|h|d>, e.g. 60/h, or off)"
    )
