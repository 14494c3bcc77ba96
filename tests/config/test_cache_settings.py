"""CACHES comes from CACHE_URL: Redis when it names one, else each process's memory."""

from __future__ import annotations

import json

from tests.conftest import run_python

DUMP = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps(s.CACHES["default"]))
"""


def caches(env: dict[str, str]) -> dict[str, object]:
    result = run_python(DUMP, env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_default_cache_needs_no_server(clean_env: dict[str, str]) -> None:
    default = caches(clean_env)
    assert default["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert default["TIMEOUT"] == 3600


def test_cache_url_names_redis(clean_env: dict[str, str]) -> None:
    redis = caches(dict(clean_env, CACHE_URL="redis://cache.internal:6379/1", CACHE_TIMEOUT="600"))
    assert redis["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert redis["LOCATION"] == "redis://cache.internal:6379/1"
    assert redis["TIMEOUT"] == 600


def test_an_unknown_cache_url_is_refused(clean_env: dict[str, str]) -> None:
    result = run_python(DUMP, dict(clean_env, CACHE_URL="memcached://host:11211"))
    assert result.returncode != 0
    assert "CACHE_URL" in result.stderr
