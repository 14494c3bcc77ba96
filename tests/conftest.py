from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.world import World

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


# Under pytest-xdist these run in one process, one after another: the browser tests
# (two Chromiums and two live servers at once on a two-core machine would make each
# page wait for the other's, and their 15 s page timeouts are for slow pages, not a
# busy machine) and the API fuzz (one committed world and one server for the module).
ONE_PROCESS = ("tests/browser/", "tests/config/test_api_fuzz.py")


def one_process_group(nodeid: str) -> str | None:
    return next((group for group in ONE_PROCESS if nodeid.startswith(group)), None)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """pytest-xdist's own ``load`` scheduling, except that the first chunk holding a test
    of a group takes the whole group.  (``--dist=loadgroup`` would say it with marks,
    but it loses its groups on pytest 9.2, pytest-dev/pytest-xdist#1386, and like
    ``loadscope`` it keys tests by node id: the API fuzz's operations share one id, and
    all but one would be dropped.)"""
    from xdist.scheduler import LoadScheduling

    class GroupedLoadScheduling(LoadScheduling):  # type: ignore[misc]
        def _send_tests(self, node: Any, num: int) -> None:
            assert self.collection is not None
            chunk = set(self.pending[:num])
            groups = {one_process_group(self.collection[index]) for index in chunk} - {None}
            sent = [
                index
                for index in self.pending
                if index in chunk or one_process_group(self.collection[index]) in groups
            ]
            if sent:
                taken = set(sent)
                self.pending[:] = [index for index in self.pending if index not in taken]
                self.node2pending[node].extend(sent)
                node.send_runtest_some(sent)

    return GroupedLoadScheduling(config, log)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``make test`` runs two processes) each process gets its own
    Celery queue: the broker (``var/celery`` or CI's Redis database) is shared, and a
    worker started by one process's test must not run, against its own test database,
    the tasks another process sent.  Test databases are already per process
    (pytest-django suffixes their names with the worker id)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        from config.celery import app

        app.conf.task_default_queue = f"celery-{worker}"


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


@pytest.fixture(autouse=True)
def no_analysis_on_result(settings):  # type: ignore[no-untyped-def]
    """Results made official owe no analysis (a neural network's evaluations, seconds
    a match) unless a test about the analysis asks for it."""
    settings.ANALYSIS_ON_RESULT = False


@pytest.fixture(autouse=True)
def no_second_factor(settings):  # type: ignore[no-untyped-def]
    """Officials act without a second factor (clubs.second_factor) unless a test about
    it turns SECOND_FACTOR_FOR_OFFICIALS on: the other tests sign in with a password."""
    settings.SECOND_FACTOR_FOR_OFFICIALS = False


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    """Every test starts with an empty cache (base.httpcache): a test database rolled
    back hands out the same primary keys and versions again, and a fragment another
    test rendered under them must not be served."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def world() -> World:
    """Two federations, their clubs and players, a user for every role (tests/world.py)."""
    # Imported on first use: a run of the engine's tests alone imports no app's services.
    from tests.world import build_world

    return build_world()


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
        "CACHE_URL",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
    }
    env = {k: v for k, v in os.environ.items() if k not in names}
    env["ZARY_VAR_DIR"] = str(tmp_path / "var")
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return env
