"""The format codes: the choices of ``Tournament.format`` (stored values; their
labels are what the pages show)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Format(models.TextChoices):
    SINGLE_ELIMINATION = "single_elimination", _("single elimination")
    MAIN_CONSOLATION = "main_consolation", _("main flight with consolation")
    DOUBLE_ELIMINATION = "double_elimination", _("double elimination")
    SWISS = "swiss", _("Swiss")
    ROUND_ROBIN = "round_robin", _("round robin")
    GROUPS_KNOCKOUT = "groups_knockout", _("groups, then knock-out")
    CUP = "cup", _("cup of several stages")
