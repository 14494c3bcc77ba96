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
    assert redis["BACKEND"] == "base.redis_cache.RedisCache"
    assert redis["LOCATION"] == "redis://cache.internal:6379/1"
    assert redis["TIMEOUT"] == 600


def test_an_unknown_cache_url_is_refused(clean_env: dict[str, str]) -> None:
    result = run_python(DUMP, dict(clean_env, CACHE_URL="memcached://host:11211"))
    assert result.returncode != 0
    assert "CACHE_URL" in result.stderr


def test_the_redis_cache_keeps_one_client_per_pool() -> None:
    """base.redis_cache: Django's client made a new redis.Redis for every call."""
    from base.redis_cache import RedisCache

    cache = RedisCache("redis://127.0.0.1:6379/15", {})
    reader = cache._cache.get_client("a")
    assert cache._cache.get_client("b") is reader
    assert cache._cache.get_client("c", write=True) is reader  # one server: one pool
