"""One row per piece of background work that a committed write still owes."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class PendingTask(models.Model):
    """A Celery task owed by a committed transaction and not yet handed to the broker.

    ``key`` identifies the work (task name and arguments), so the same work owed
    twice before it is sent is one row.  ``token`` changes every time the work is
    owed again: a sender deletes the row only if the token it read is unchanged,
    so work owed while it was being sent is sent once more, never lost.
    """

    task = models.CharField(_("task"), max_length=200)
    args = models.JSONField(_("arguments"), default=list)
    kwargs = models.JSONField(_("keyword arguments"), default=dict)
    key = models.CharField(_("deduplication key"), max_length=64, unique=True)
    token = models.CharField(_("token"), max_length=32)
    not_before = models.DateTimeField(_("not before"), null=True, blank=True)
    owed_at = models.DateTimeField(_("owed at"), default=timezone.now)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    failed_at = models.DateTimeField(_("failed at"), null=True, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("pending task")
        verbose_name_plural = _("pending tasks")

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)}"
