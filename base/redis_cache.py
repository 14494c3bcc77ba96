"""Django's Redis cache, keeping one client per connection pool.

Django's ``RedisCacheClient`` builds a new ``redis.Redis`` for every cache call
(cheap-looking, but each one fills a table of some 170 response callbacks): on a
page kept whole for anonymous visitors (base.pagecache) that was a third of the
visit.  A ``redis.Redis`` is safe to share between threads (each command takes a
connection from the pool), so one per pool is enough.  Selected in
``config/settings.py`` when ``CACHE_URL`` names a Redis server.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends import redis as django_redis


class _ClientPerPool(django_redis.RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ClientPerPool
