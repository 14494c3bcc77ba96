"""The analysis app's subscriber: it only queues a task."""

from __future__ import annotations

from django.conf import settings

from analysis import tasks
from base.tasks import owe
from games.models import Match
from games.services import archives as archive_imports


def on_result_confirmed(match_id: int) -> None:
    """A result became official: a match recorded move by move is analysed once the
    transaction commits.  Not while an archive imports it: a whole archive's
    analysis is a backlog its admin starts (``manage.py analyse_matches``, the
    admin's action), not thousands of tasks owed by one import."""
    if not settings.ANALYSIS_ON_RESULT or archive_imports.storing():
        return
    if Match.objects.filter(pk=match_id, recorded=True).exists():
        owe(tasks.analyse_match, match_id)
