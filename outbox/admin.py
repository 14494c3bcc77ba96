"""What is waiting in the outbox, for an operator after a broker outage (read-only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from outbox.models import PendingTask


@admin.register(PendingTask)
class PendingTaskAdmin(admin.ModelAdmin):
    list_display = ["task", "args", "owed_at", "attempts", "failed_at", "last_error"]
    list_filter = ["task"]
    readonly_fields = [f.name for f in PendingTask._meta.fields]

    # Rows are written by the services and sent by the drain; by hand only ever removed.
    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False
