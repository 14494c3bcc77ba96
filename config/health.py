"""Liveness of the parts a request depends on: the database and the Celery broker."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connections
from kombu import Connection


def check_database() -> dict[str, Any]:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not answering"
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "vendor": connections["default"].vendor}


def check_broker() -> dict[str, Any]:
    url = str(settings.CELERY_BROKER_URL)
    options = dict(getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {})
    if url.startswith("filesystem://"):
        # The server-less transport answers as long as its folders are writable.
        folder = Path(options["data_folder_in"])
        if not (folder.is_dir() and os.access(folder, os.W_OK)):
            return {"ok": False, "transport": "filesystem", "error": f"{folder} is not writable"}
        return {"ok": True, "transport": "filesystem"}
    timeout = settings.CELERY_BROKER_CONNECTION_TIMEOUT
    try:
        with Connection(url, connect_timeout=timeout, transport_options=options) as conn:
            conn.ensure_connection(
                max_retries=1, interval_start=0, interval_step=0, timeout=timeout
            )
            transport = conn.transport_cls
    except Exception as exc:  # refused, timed out, bad credentials: all "not answering"
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "transport": str(transport)}
