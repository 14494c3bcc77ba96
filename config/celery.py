"""The Celery app: settings from Django's (CELERY_ prefix), tasks found in each app."""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger(__name__)

app = Celery("zary")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="zary.ping", ignore_result=False)
def ping() -> str:
    """A round trip through broker, worker and result backend (health and tests)."""
    return "pong"


@worker_ready.connect
def drain_outbox_on_start(**_kwargs: object) -> None:
    """Work owed while no worker or broker was up goes out as soon as one is."""
    from django.db import connections

    from outbox import services

    try:
        counts = services.drain()
        logger.info("outbox drained on start: %s", dict(counts))
    except Exception:  # a worker that cannot drain still works; the beat task retries
        logger.exception("the outbox could not be drained on start")
    finally:
        connections.close_all()  # not inherited by the pool's children
