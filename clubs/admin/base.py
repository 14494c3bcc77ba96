"""What every page of the web admin stands on: the policy admin, form and inline,
and the helpers the pages share (error text, CSV downloads, import links).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.utils import timezone

from clubs import permissions
from clubs.models import Federation, Role

# --- Common ground: permissions from the policy, writes through the services


def error_text(error: ValidationError) -> str:
    return " ".join(error.messages)


def is_federation_staff(user: Any) -> bool:
    """A site admin, or the admin of some federation."""
    return permissions.is_staff_admin(user) and bool(
        permissions.is_site_admin(user)
        or permissions.scope_ids(user, Role.FEDERATION_ADMIN, Federation)
    )


class PolicyAdmin(admin.ModelAdmin):
    """A ModelAdmin whose permissions and querysets come from clubs.permissions.

    Subclasses give ``scope`` (what the user may list) and the policy actions;
    ``None`` for an action means nobody but a site admin.
    """

    view_action: str | None = None
    change_action: str | None = None
    delete_action: str | None = None
    federation_staff_delete = False  # only federation admins delete any of these
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def scope(self, user: Any) -> models.QuerySet[Any]:
        return self.model._default_manager.none()  # closed unless a subclass opens it

    def may_list(self, user: Any) -> bool:
        return permissions.is_staff_admin(user)

    def subject(self, obj: Any) -> Any:
        """What the policy rule is asked about for ``obj``."""
        return obj

    def _allowed(self, request: HttpRequest, action: str | None, obj: Any) -> bool:
        user = request.user
        if permissions.is_site_admin(user):
            return True
        if obj is None:
            return action is not None and self.may_list(user)
        return action is not None and permissions.can(user, action, self.subject(obj))

    def get_queryset(self, request: HttpRequest) -> models.QuerySet[Any]:
        queryset = self.scope(request.user)
        ordering = self.get_ordering(request)
        return queryset.order_by(*ordering) if ordering else queryset

    def has_module_permission(self, request: HttpRequest) -> bool:
        return permissions.is_staff_admin(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._allowed(request, self.view_action or self.change_action, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._allowed(request, self.change_action, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is None and self.federation_staff_delete:
            return is_federation_staff(request.user)
        return self._allowed(request, self.delete_action, obj)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        # Deleting goes one object at a time, through its service and its checks.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def get_form(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, **kwargs)
        form.request = request  # a fresh class per call: forms check the policy with it
        return form

    def changeform_view(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        # Forms check what they can; a service may still refuse (a concurrent
        # change).  The admin's transaction is rolled back: nothing half-saved.
        try:
            return super().changeform_view(request, *args, **kwargs)
        except ValidationError as error:
            self.message_user(request, error_text(error), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def delete_view(self, request: HttpRequest, object_id: str, extra_context: Any = None) -> Any:
        try:
            return super().delete_view(request, object_id, extra_context)
        except ValidationError as error:
            self.message_user(request, error_text(error), messages.ERROR)
            opts = self.model._meta
            return redirect(f"admin:{opts.app_label}_{opts.model_name}_change", object_id)

    @staticmethod
    def changed_values(form: forms.ModelForm, fields: Iterable[str]) -> dict[str, Any]:
        return {name: form.cleaned_data[name] for name in fields if name in form.changed_data}

    @staticmethod
    def adopt(obj: models.Model, saved: models.Model) -> None:
        """Make the admin's unsaved instance stand for the object a service saved."""
        obj.__dict__.update(saved.__dict__)


class PolicyForm(forms.ModelForm):
    request: HttpRequest  # set by PolicyAdmin.get_form / PolicyInline.get_formset

    @property
    def user(self) -> Any:
        return self.request.user


class ReadOnlyAdminMixin:
    """A page or inline that lists rows a service writes and nobody edits here (the
    audit log, API tokens, authenticators, a match's games and turns): no add, change
    or delete; actions still act through the services."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PolicyInline(admin.TabularInline):
    """An inline editable where its parent is (``parent_action``); each row's form
    checks the policy for that row, and the parent's save_formset saves through
    the services."""

    extra = 0
    parent_action = ""

    def _editable(self, request: HttpRequest, obj: Any) -> bool:
        if not permissions.is_staff_admin(request.user):
            return False
        return obj is None or permissions.can(request.user, self.parent_action, obj)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(request, obj)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return permissions.is_staff_admin(request.user)

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        formset = super().get_formset(request, obj, **kwargs)
        formset.form.request = request
        return formset


def record_formset(formset: Any, new: list[Any], changed: list[Any], deleted: list[Any]) -> None:
    """What ``formset.save()`` would have recorded, for the admin's change message."""
    formset.new_objects = new
    formset.changed_objects = changed
    formset.deleted_objects = deleted


# --- CSV downloads


def csv_response(data: bytes, name: str) -> HttpResponse:
    response = HttpResponse(data, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def date_stamp() -> str:
    return timezone.localdate().isoformat()


# --- Links on the change lists of clubs and players


def with_import_links(request: HttpRequest, extra_context: Any) -> dict[str, Any]:
    """Links to the import pages of the federations the user imports into."""
    federations = [
        federation
        for federation in permissions.admin_federations(request.user)
        if permissions.can(request.user, "federation.import", federation)
    ]
    return {**(extra_context or {}), "import_federations": federations}
