"""Federations, with their rated disciplines, the CSV import page and the exports;
and the discipline catalogue.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs import csv_io, imports, permissions, services
from clubs.admin.base import (
    PolicyAdmin,
    PolicyForm,
    PolicyInline,
    csv_response,
    date_stamp,
    is_federation_staff,
    record_formset,
)
from clubs.admin.filters import CountryFilter
from clubs.forms import OPTION_FIELDS, option_fields, options_from, show_options
from clubs.models import Club, Discipline, Federation, FederationDiscipline, Player
from engine.rules.variants import VARIANTS

# --- Federations, with their rated disciplines, the import page and the exports


class RatedDisciplineForm(PolicyForm):
    class Meta:
        model = FederationDiscipline
        fields = ("discipline", *services.RATED_DISCIPLINE_FIELDS)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.instance.pk and "discipline" in self.changed_data:
            self.add_error(
                "discipline", _("Remove this row and add the other discipline in a new one.")
            )
        return cleaned


class RatedDisciplineInline(PolicyInline):
    model = FederationDiscipline
    form = RatedDisciplineForm
    parent_action = "federation.change"
    fields = ("discipline", *services.RATED_DISCIPLINE_FIELDS)


class ImportForm(forms.Form):
    kind = forms.ChoiceField(
        label=gettext_lazy("What the file holds"),
        choices=[("players", gettext_lazy("players")), ("clubs", gettext_lazy("clubs"))],
        widget=forms.RadioSelect,
        initial="players",
    )
    file = forms.FileField(label=gettext_lazy("CSV file"))

    def clean_file(self) -> bytes:
        upload = self.cleaned_data["file"]
        if upload.size > csv_io.MAX_FILE_BYTES:
            raise ValidationError(
                _("The file is too large (at most %(limit)d MB). Split it into parts.")
                % {"limit": csv_io.MAX_FILE_BYTES // (1024 * 1024)}
            )
        return bytes(upload.read())


IMPORTERS: dict[str, Callable[..., imports.ImportReport]] = {
    "players": imports.import_players,
    "clubs": imports.import_clubs,
}
PENDING_IMPORT = "clubs_pending_import"  # session key of the previewed file


@admin.register(Federation)
class FederationAdmin(PolicyAdmin):
    change_action = "federation.change"
    delete_action = "federation.delete"
    list_display = ("name", "short_name", "country", "is_public")
    search_fields = ("name", "short_name")
    list_filter = (CountryFilter, "is_public")
    fields = services.FEDERATION_FIELDS
    inlines = [RatedDisciplineInline]
    prepopulated_fields = {"slug": ("name",)}

    def scope(self, user: Any) -> models.QuerySet[Federation]:
        return permissions.admin_federations(user)

    def may_list(self, user: Any) -> bool:
        return is_federation_staff(user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return permissions.can(request.user, "federation.create")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return permissions.can(request.user, "federation.delete", obj)  # site admins only

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            original = Federation.objects.get(pk=obj.pk)
            values = self.changed_values(form, services.FEDERATION_FIELDS)
            self.adopt(obj, services.update_federation(original, by=request.user, **values))
        else:
            values = {name: form.cleaned_data[name] for name in services.FEDERATION_FIELDS}
            self.adopt(obj, services.create_federation(by=request.user, **values))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_federation(obj, by=request.user)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        federation, user = form.instance, request.user
        new, changed, deleted = [], [], []
        for row in formset.forms:
            if not row.has_changed() or not row.cleaned_data:
                continue
            if row in formset.deleted_forms:
                if row.instance.pk:
                    services.unrate_discipline(
                        FederationDiscipline.objects.get(pk=row.instance.pk), by=user
                    )
                    deleted.append(row.instance)
                continue
            values = {name: row.cleaned_data[name] for name in services.RATED_DISCIPLINE_FIELDS}
            link = services.rate_discipline(
                federation, row.cleaned_data["discipline"], by=user, **values
            )
            if row.instance.pk:
                changed.append((link, row.changed_data))
            else:
                new.append(link)
        record_formset(formset, new, changed, deleted)

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/import/", view(self.import_view), name="clubs_federation_import"
            ),
            path(
                "<path:object_id>/export/<str:kind>/",
                view(self.export_view),
                name="clubs_federation_export",
            ),
            *super().get_urls(),
        ]

    def _importable(self, request: HttpRequest, object_id: str) -> Federation:
        federation = self.get_object(request, object_id)
        if federation is None:
            raise Http404(_("No such federation."))
        if not permissions.can(request.user, "federation.import", federation):
            raise PermissionDenied
        return federation

    def export_view(self, request: HttpRequest, object_id: str, kind: str) -> HttpResponse:
        federation = self._importable(request, object_id)
        if kind == "players":
            rows = imports.player_rows(Player.objects.filter(federation=federation))
            data = csv_io.write_players(rows)
        elif kind == "clubs":
            data = csv_io.write_clubs(imports.club_rows(Club.objects.filter(federation=federation)))
        else:
            raise Http404(_("Nothing to export by that name."))
        return csv_response(data, f"{federation.slug}-{kind}-{date_stamp()}.csv")

    def import_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Upload -> dry-run preview (the file waits in the session) -> confirm."""
        federation = self._importable(request, object_id)
        form, report, digest = ImportForm(), None, ""
        if request.method == "POST" and "confirm" in request.POST:
            report = self._confirm_import(request, federation)
            if report is None:
                return redirect("admin:clubs_federation_import", federation.pk)
        elif request.method == "POST":
            form = ImportForm(request.POST, request.FILES)
            if form.is_valid():
                report, digest = self._preview_import(request, federation, form.cleaned_data)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Import from a CSV file: %(federation)s") % {"federation": federation},
            "opts": self.model._meta,
            "original": federation,
            "form": form,
            "report": report,
            "digest": digest,
            "player_columns": csv_io.PLAYER_COLUMNS,
            "club_columns": csv_io.CLUB_COLUMNS,
        }
        return TemplateResponse(request, "admin/clubs/federation/import.html", context)

    def _preview_import(
        self, request: HttpRequest, federation: Federation, cleaned: dict[str, Any]
    ) -> tuple[imports.ImportReport, str]:
        data, kind = cleaned["file"], cleaned["kind"]
        report = IMPORTERS[kind](federation, data, by=request.user, dry_run=True)
        request.session.pop(PENDING_IMPORT, None)
        if not report.good_rows:
            return report, ""
        digest = hashlib.sha256(data).hexdigest()
        request.session[PENDING_IMPORT] = {
            "federation": federation.pk,
            "kind": kind,
            "digest": digest,
            "data": base64.b64encode(data).decode("ascii"),
        }
        return report, digest

    def _confirm_import(
        self, request: HttpRequest, federation: Federation
    ) -> imports.ImportReport | None:
        """The real import of the previewed file; None when there is none to confirm."""
        pending = request.session.get(PENDING_IMPORT) or {}
        digest = request.POST.get("digest")
        if pending.get("federation") != federation.pk or pending.get("digest") != digest:
            self.message_user(
                request,
                _("This preview is out of date (another file was uploaded, or it was "
                  "imported already). Upload the file again."),
                messages.ERROR,
            )  # fmt: skip
            return None
        del request.session[PENDING_IMPORT]
        data = base64.b64decode(pending["data"])
        report = IMPORTERS[pending["kind"]](federation, data, by=request.user, dry_run=False)
        if not report.file_error:
            self.message_user(
                request,
                _("Imported: %(created)d created, %(updated)d updated, %(rejected)d rows rejected.")
                % {
                    "created": report.created,
                    "updated": report.updated,
                    "rejected": len(report.rejected_rows),
                },
                messages.SUCCESS,
            )
        return report


# --- The discipline catalogue (site admins edit; everyone on staff reads)


_OPTIONS = option_fields()


class DisciplineForm(PolicyForm):
    """A discipline, with its variant's options as text fields (Soldiers' army and
    placement, RULES.md's defaults preselected); stored as ``variant_options``."""

    army = _OPTIONS["army"]
    placement = _OPTIONS["placement"]
    placement_black = _OPTIONS["placement_black"]

    class Meta:
        model = Discipline
        fields = services.DISCIPLINE_FIELDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        show_options(self, self.instance.variant_options if self.instance.pk else None)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        options = options_from(self, VARIANTS.get(cleaned.get("variant") or ""))
        if options is None:
            # The instance keeps its stored options, so the model's own check (on no
            # field of this form) does not fail too.
            return cleaned
        cleaned["variant_options"] = options
        self.instance.variant_options = options
        return cleaned


@admin.register(Discipline)
class DisciplineAdmin(PolicyAdmin):
    change_action = delete_action = "discipline.change"
    list_display = ("name", "code", "variant", "scoring_preset", "cube")
    list_filter = ("variant", "cube")
    search_fields = ("name", "code")
    form = DisciplineForm
    fields = (*(f for f in services.DISCIPLINE_FIELDS if f != "variant_options"), *OPTION_FIELDS)

    def scope(self, user: Any) -> models.QuerySet[Discipline]:
        return Discipline.objects.all()

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return permissions.is_staff_admin(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return permissions.can(request.user, "discipline.change")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return permissions.can(request.user, "discipline.change", obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return permissions.can(request.user, "discipline.change", obj)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            original = Discipline.objects.get(pk=obj.pk)
            values = self.changed_values(form, services.DISCIPLINE_FIELDS)
            if original.variant_options != form.cleaned_data["variant_options"]:
                values["variant_options"] = form.cleaned_data["variant_options"]
            self.adopt(obj, services.update_discipline(original, by=request.user, **values))
        else:
            values = {name: form.cleaned_data[name] for name in services.DISCIPLINE_FIELDS}
            self.adopt(obj, services.create_discipline(by=request.user, **values))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_discipline(obj, by=request.user)
