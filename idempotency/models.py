"""One row per Idempotency-Key a client sent with an API write, kept for a day."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class KeyState(models.TextChoices):
    IN_PROGRESS = "in_progress", _("in progress")
    DONE = "done", _("done")


class IdempotencyKey(models.Model):
    """A write made with an Idempotency-Key, and the answer it got.

    A key belongs to the credentials that sent it (``fingerprint``: a digest of
    the Authorization header and the session key), so two clients choosing the
    same key never meet.  ``request_digest`` tells the same request from another
    one reusing the key.  The answer is kept only once it is known (``done``).
    """

    fingerprint = models.CharField(_("credentials fingerprint"), max_length=64)
    key = models.CharField(_("key"), max_length=255)
    request_digest = models.CharField(_("request digest"), max_length=64)
    state = models.CharField(
        _("state"), max_length=16, choices=KeyState.choices, default=KeyState.IN_PROGRESS
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("user"),
    )
    status_code = models.PositiveSmallIntegerField(_("status code"), null=True, blank=True)
    content_type = models.CharField(_("content type"), max_length=255, blank=True)
    body = models.BinaryField(_("body"), blank=True, default=b"")
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        constraints = [
            models.UniqueConstraint(
                fields=["fingerprint", "key"], name="idempotency_key_once_per_credentials"
            )
        ]

    def __str__(self) -> str:
        return str(self.key)
