"""A real worker, started against the configured broker, runs a task and returns its result."""

from __future__ import annotations

from celery.contrib.testing.worker import start_worker

from config.celery import app, ping


def test_worker_runs_a_task_through_the_configured_broker() -> None:
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        result = ping.delay()
        assert result.get(timeout=60) == "pong"
    assert result.successful()
