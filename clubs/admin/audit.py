"""The audit log, read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest

from clubs import permissions
from clubs.admin.base import PolicyAdmin, ReadOnlyAdminMixin, is_federation_staff
from clubs.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdminMixin, PolicyAdmin):
    list_display = ("at", "actor", "action", "target_repr", "federation")
    list_filter = ("action", ("federation", admin.RelatedOnlyFieldListFilter))
    search_fields = ("target_repr", "action", "actor__username")
    list_select_related = ("actor", "federation")
    date_hierarchy = "at"

    def scope(self, user: Any) -> models.QuerySet[AuditEntry]:
        ids = permissions.admin_audit_federation_ids(user)
        entries = AuditEntry.objects.all()
        return entries if ids is None else entries.filter(federation_id__in=ids)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        user = request.user
        if obj is None:
            return is_federation_staff(user)
        if permissions.is_site_admin(user):
            return True
        federation = obj.federation
        return federation is not None and permissions.can(user, "federation.view_audit", federation)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)
