"""The analysis's rules in the one permission policy (clubs.permissions)."""

from __future__ import annotations

from typing import Any

from clubs.permissions import register


@register("analysis.queue_backlog")
def _queue_backlog(user: Any, obj: Any) -> bool:
    """Queueing every match not yet analysed is the site's work to decide: site
    admins only (the policy lets them through), nobody else."""
    return False
