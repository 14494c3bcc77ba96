from __future__ import annotations

from celery import shared_task

from analysis import services
from base.tasks import OwedTask


@shared_task(base=OwedTask, name="analysis.analyse_match")
def analyse_match(match_id: int) -> str:
    """Analyse a recorded match whose result became official (owed on its commit;
    idempotent: an analysis up to date is left alone)."""
    return services.analyse(match_id)
