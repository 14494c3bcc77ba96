"""The Celery app: settings from Django's (CELERY_ prefix), tasks found in each app."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("zary")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="zary.ping", ignore_result=False)
def ping() -> str:
    """A round trip through broker, worker and result backend (health and tests)."""
    return "pong"
