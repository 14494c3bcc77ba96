"""The web admin (/admin/) for site, federation and club staff.

Staff who administer a federation or a club are not superusers and hold no
Django model permissions: every ``has_*_permission`` here asks
``clubs.permissions`` instead, with the object, and every queryset is cut to
what the user administers (``permissions.admin_*``).  Saving goes through
``clubs.services`` (never ``obj.save()``), so the same permission checks and
the audit log apply as everywhere else.

Besides the model pages: a federation's CSV import (upload, dry-run preview,
confirm) and exports, and the "find duplicates" page of players.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from anyascii import anyascii
from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_countries import countries

from clubs import csv_io, imports, permissions, queries, services
from clubs.models import (
    AuditEntry,
    Club,
    Discipline,
    Federation,
    FederationDiscipline,
    Membership,
    Player,
    ProfileClaim,
    Role,
    RoleAssignment,
)

# --- Common ground: permissions from the policy, writes through the services


def _message(error: ValidationError) -> str:
    return " ".join(error.messages)


def _federation_staff(user: Any) -> bool:
    """A site admin, or the admin of some federation."""
    return permissions.is_staff_admin(user) and bool(
        user.is_superuser or permissions.scope_ids(user, Role.FEDERATION_ADMIN, Federation)
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
        if user.is_superuser:
            return user.is_active
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
            return _federation_staff(request.user)
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
            self.message_user(request, _message(error), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def delete_view(self, request: HttpRequest, object_id: str, extra_context: Any = None) -> Any:
        try:
            return super().delete_view(request, object_id, extra_context)
        except ValidationError as error:
            self.message_user(request, _message(error), messages.ERROR)
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


def _record_formset(formset: Any, new: list[Any], changed: list[Any], deleted: list[Any]) -> None:
    """What ``formset.save()`` would have recorded, for the admin's change message."""
    formset.new_objects = new
    formset.changed_objects = changed
    formset.deleted_objects = deleted


# --- Filters


class ClubFilter(admin.SimpleListFilter):
    title = gettext_lazy("club")
    parameter_name = "club"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[Any, str]]:
        clubs = permissions.admin_clubs(request.user).order_by("name")
        return [(pk, name) for pk, name in clubs.values_list("pk", "name")]

    def queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> Any:
        value = self.value()
        if not value:
            return queryset
        if not (value.isascii() and value.isdigit() and len(value) <= 18):
            return queryset.none()  # no club has that id (nor could a bigint hold it)
        if queryset.model is Membership:
            return queryset.filter(club_id=self.value())
        members = Membership.objects.filter(club_id=self.value()).values("player_id")
        return queryset.filter(id__in=members)


class MembershipStateFilter(admin.SimpleListFilter):
    """Current or past membership: of the club chosen in the club filter, else of any club."""

    title = gettext_lazy("membership")
    parameter_name = "membership"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        choices = [("current", _("current member")), ("past", _("past member only"))]
        if model_admin.model is Player:
            choices.append(("none", _("never a member")))
        return choices

    def queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> Any:
        value = self.value()
        if not value:
            return queryset
        current = Membership.objects.current()
        if queryset.model is Membership:
            ids = current.values("id")
            return (
                queryset.filter(id__in=ids) if value == "current" else queryset.exclude(id__in=ids)
            )
        memberships = Membership.objects.all()
        club = request.GET.get(ClubFilter.parameter_name)
        # An id: ASCII digits ("²" is a digit, not to int()) that a bigint column holds.
        if club and club.isascii() and club.isdigit() and len(club) <= 18:
            memberships, current = memberships.filter(club_id=club), current.filter(club_id=club)
        now = queryset.filter(id__in=current.values("player_id"))
        if value == "current":
            return now
        if value == "past":
            return queryset.filter(id__in=memberships.values("player_id")).exclude(
                id__in=current.values("player_id")
            )
        return queryset.exclude(id__in=memberships.values("player_id"))


class CountryFilter(admin.SimpleListFilter):
    title = gettext_lazy("country")
    parameter_name = "country"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        codes = (
            model_admin.get_queryset(request)
            .exclude(country="")
            .order_by()
            .values_list("country", flat=True)
            .distinct()
        )
        return sorted(((code, countries.name(code)) for code in codes), key=lambda c: c[1])

    def queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> Any:
        return queryset.filter(country=self.value()) if self.value() else queryset


class ActiveFilter(admin.SimpleListFilter):
    title = gettext_lazy("status")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("active", _("active")), ("merged", _("merged into another player"))]

    def queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> Any:
        if self.value() == "active":
            return queryset.filter(merged_into__isnull=True)
        if self.value() == "merged":
            return queryset.filter(merged_into__isnull=False)
        return queryset


# --- CSV downloads


def _csv_response(data: bytes, name: str) -> HttpResponse:
    response = HttpResponse(data, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _stamp() -> str:
    return timezone.localdate().isoformat()


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
        return _federation_staff(user)

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
        _record_formset(formset, new, changed, deleted)

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
        return _csv_response(data, f"{federation.slug}-{kind}-{_stamp()}.csv")

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


@admin.register(Discipline)
class DisciplineAdmin(PolicyAdmin):
    change_action = delete_action = "discipline.change"
    list_display = ("name", "code", "variant", "scoring_preset", "cube")
    list_filter = ("variant", "cube")
    search_fields = ("name", "code")
    fields = services.DISCIPLINE_FIELDS

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
            self.adopt(obj, services.update_discipline(original, by=request.user, **values))
        else:
            values = {name: form.cleaned_data[name] for name in services.DISCIPLINE_FIELDS}
            self.adopt(obj, services.create_discipline(by=request.user, **values))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_discipline(obj, by=request.user)


# --- Clubs


def _formfield(field: models.Field[Any, Any], **kwargs: Any) -> Any:
    if isinstance(field, models.URLField):
        kwargs.setdefault("assume_scheme", "https")
    return field.formfield(**kwargs)


class ClubForm(PolicyForm):
    class Meta:
        model = Club
        fields = ("federation", *services.CLUB_FIELDS)
        formfield_callback = _formfield

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "federation" in self.fields:
            self.fields["federation"].queryset = permissions.admin_federations(self.user)
        if "slug" in self.fields:
            self.fields["slug"].required = False
            self.fields["slug"].help_text = _("Left empty, it is made from the name.")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        federation = cleaned.get("federation")
        if federation and not permissions.can(self.user, "club.create", federation):
            self.add_error("federation", _("You may not add clubs to this federation."))
        return cleaned


@admin.action(description=gettext_lazy("Export the selected clubs (CSV)"))
def export_clubs_csv(modeladmin: Any, request: HttpRequest, queryset: Any) -> HttpResponse:
    data = csv_io.write_clubs(imports.club_rows(queryset))
    return _csv_response(data, f"clubs-{_stamp()}.csv")


@admin.register(Club)
class ClubAdmin(PolicyAdmin):
    change_action = "club.change"
    delete_action = "club.delete"
    federation_staff_delete = True
    form = ClubForm
    list_display = ("name", "city", "federation", "is_active", "member_count")
    list_filter = (("federation", admin.RelatedOnlyFieldListFilter), "is_active")
    search_fields = ("name", "city")
    list_select_related = ("federation",)
    actions = [export_clubs_csv]
    change_list_template = "admin/clubs/change_list_with_tools.html"

    def scope(self, user: Any) -> models.QuerySet[Club]:
        today = datetime.date.today()
        current = models.Q(memberships__start__lte=today) & (
            models.Q(memberships__end__isnull=True) | models.Q(memberships__end__gte=today)
        )
        return permissions.admin_clubs(user).annotate(
            members=models.Count("memberships", filter=current)
        )

    @admin.display(description=gettext_lazy("members"), ordering="members")
    def member_count(self, club: Club) -> int:
        return int(getattr(club, "members", 0))

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(services.CLUB_FIELDS)
        return fields if obj else ["federation", *fields]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("federation",) if obj else ()

    def get_prepopulated_fields(self, request: HttpRequest, obj: Any = None) -> dict[str, Any]:
        return {} if obj else {"slug": ("name",)}

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _federation_staff(request.user)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            original = Club.objects.select_related("federation").get(pk=obj.pk)
            values = self.changed_values(form, services.CLUB_FIELDS)
            self.adopt(obj, services.update_club(original, by=request.user, **values))
        else:
            values = {name: form.cleaned_data[name] for name in services.CLUB_FIELDS}
            federation = form.cleaned_data["federation"]
            self.adopt(obj, services.create_club(federation, by=request.user, **values))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_club(obj, by=request.user)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        return super().changelist_view(request, _tools(request, extra_context))


def _tools(request: HttpRequest, extra_context: Any) -> dict[str, Any]:
    """Links to the import pages of the federations the user imports into."""
    federations = [
        federation
        for federation in permissions.admin_federations(request.user)
        if permissions.can(request.user, "federation.import", federation)
    ]
    return {**(extra_context or {}), "import_federations": federations}


# --- Players, with their memberships, the export action and the duplicates page


class MembershipForm(PolicyForm):
    """A membership row: the user must administer its club (before and after the change)."""

    class Meta:
        model = Membership
        fields = ("player", "club", "start", "end")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "club" in self.fields:
            allowed = permissions.admin_clubs(self.user).values("pk")
            clubs = Club.objects.filter(pk__in=allowed)
            if self.instance.pk:
                clubs = Club.objects.filter(
                    models.Q(pk__in=allowed) | models.Q(pk=self.instance.club_id)
                )
            self.fields["club"].queryset = clubs.select_related("federation")
        if "player" in self.fields:
            self.fields["player"].queryset = permissions.admin_players(self.user)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not self.has_changed():
            return cleaned
        clubs = [cleaned.get("club")]
        if self.instance.pk:
            clubs.append(self.instance.club)
            if "club" in self.changed_data or "player" in self.changed_data:
                self.add_error(
                    None,
                    _("To move a player to another club, end this membership and add a new one."),
                )
        for club in filter(None, clubs):
            if not permissions.can(self.user, "membership.change", club):
                self.add_error(None, _("You do not administer %(club)s.") % {"club": club})
        return cleaned


def _save_memberships(request: HttpRequest, player: Player, formset: Any) -> None:
    new, changed, deleted = [], [], []
    for row in formset.forms:
        if not row.has_changed() or not row.cleaned_data:
            continue
        original = (
            Membership.objects.select_related("club__federation", "player").get(pk=row.instance.pk)
            if row.instance.pk
            else None
        )
        if row in formset.deleted_forms:
            if original is not None:
                services.delete_membership(original, by=request.user)
                deleted.append(original)
            continue
        start, end = row.cleaned_data["start"], row.cleaned_data.get("end")
        if original is None:
            club = row.cleaned_data["club"]
            new.append(services.add_membership(player, club, by=request.user, start=start, end=end))
        elif original.end is None and end is not None and start == original.start:
            changed.append((services.end_membership(original, by=request.user, end=end), ["end"]))
        else:
            membership = services.update_membership(original, by=request.user, start=start, end=end)
            changed.append((membership, row.changed_data))
    _record_formset(formset, new, changed, deleted)


class MembershipInline(PolicyInline):
    model = Membership
    form = MembershipForm
    parent_action = "player.change"
    fields = ("club", "start", "end")
    ordering = ("-start",)

    def get_queryset(self, request: HttpRequest) -> models.QuerySet[Membership]:
        return super().get_queryset(request).select_related("club")


class PlayerForm(PolicyForm):
    club = forms.ModelChoiceField(
        queryset=Club.objects.none(),
        required=False,
        label=gettext_lazy("club"),
        help_text=gettext_lazy("The new player joins this club today."),
    )

    class Meta:
        model = Player
        fields = services.PLAYER_FIELDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        federations = permissions.admin_federations(self.user)
        if not self.user.is_superuser:
            clubs = permissions.administered_clubs(self.user)
            federations = Federation.objects.filter(
                models.Q(pk__in=federations.values("pk"))
                | models.Q(pk__in=clubs.values("federation_id"))
                | models.Q(pk=self.instance.federation_id)
            )
        if "federation" in self.fields:
            self.fields["federation"].queryset = federations
        self.fields["club"].queryset = (
            permissions.admin_clubs(self.user).select_related("federation").order_by("name")
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        federation, club = cleaned.get("federation"), cleaned.get("club")
        if self.instance.pk is None:
            if club and federation and club.federation_id != federation.pk:
                self.add_error("club", _("This club belongs to another federation."))
            scope = club or federation
            allowed = (
                permissions.can(self.user, "player.create", scope)
                if scope
                else permissions.can(self.user, "federation.create")
            )
            if not allowed:
                self.add_error(
                    "club" if club else "federation",
                    _("You may not add players here: choose a club you administer."),
                )
        elif "federation" in self.changed_data and not (
            permissions.can(self.user, "player.delete", self.instance)
            and (federation is None or permissions.can(self.user, "player.create", federation))
        ):
            self.add_error(
                "federation", _("Only the admins of both federations may move a player.")
            )
        return cleaned


@admin.action(description=gettext_lazy("Export the selected players (CSV)"))
def export_players_csv(modeladmin: Any, request: HttpRequest, queryset: Any) -> HttpResponse:
    data = csv_io.write_players(imports.player_rows(queryset))
    return _csv_response(data, f"players-{_stamp()}.csv")


class MergeForm(forms.Form):
    survivor = forms.IntegerField()
    duplicates = forms.TypedMultipleChoiceField(coerce=int, choices=())

    def __init__(self, group_ids: list[int], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["duplicates"].choices = [(pk, pk) for pk in group_ids]


@admin.register(Player)
class PlayerAdmin(PolicyAdmin):
    view_action = "player.view"
    change_action = "player.change"
    delete_action = "player.delete"
    federation_staff_delete = True
    form = PlayerForm
    inlines = [MembershipInline]
    list_display = (
        "name_native",
        "name_latin",
        "membership_number",
        "federation",
        "current_clubs",
        "birth_year",
        "gender",
        "country",
        "is_active",
    )
    list_filter = (
        ("federation", admin.RelatedOnlyFieldListFilter),
        ClubFilter,
        MembershipStateFilter,
        CountryFilter,
        "gender",
        ActiveFilter,
    )
    search_fields = (
        "name_native",
        "name_latin",
        "membership_number",
        "memberships__club__city",
        "memberships__club__name",
    )
    list_select_related = ("federation",)
    readonly_fields = ("user", "merged_into", "created_at", "updated_at")
    actions = [export_players_csv]
    change_list_template = "admin/clubs/change_list_with_tools.html"

    def scope(self, user: Any) -> models.QuerySet[Player]:
        return permissions.admin_players(user).prefetch_related(
            models.Prefetch(
                "memberships",
                queryset=Membership.objects.current().select_related("club").order_by("-start"),
                to_attr="current_memberships",
            )
        )

    @admin.display(description=gettext_lazy("clubs"))
    def current_clubs(self, player: Player) -> str:
        return ", ".join(m.club.name for m in getattr(player, "current_memberships", []))

    @admin.display(description=gettext_lazy("active"), boolean=True)
    def is_active(self, player: Player) -> bool:
        return player.is_active

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(services.PLAYER_FIELDS)
        return [*fields, *self.readonly_fields] if obj else [*fields, "club"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return self.readonly_fields if obj else ()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return permissions.is_staff_admin(request.user)

    def get_search_results(
        self, request: HttpRequest, queryset: models.QuerySet[Player], search_term: str
    ) -> tuple[models.QuerySet[Player], bool]:
        results, duplicates = super().get_search_results(request, queryset, search_term)
        # "Мамедов" also finds a player entered only as "Mamedov".
        latin = anyascii(search_term).replace("'", "").strip()
        if latin and latin != search_term.strip():
            results = results | queryset.filter(name_latin__icontains=latin)
        return results, duplicates

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            original = Player.objects.select_related("federation").get(pk=obj.pk)
            values = self.changed_values(form, services.PLAYER_FIELDS)
            self.adopt(obj, services.update_player(original, by=request.user, **values))
        else:
            values = {name: form.cleaned_data[name] for name in services.PLAYER_FIELDS}
            club = form.cleaned_data.get("club")
            self.adopt(obj, services.create_player(by=request.user, club=club, **values))

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        _save_memberships(request, Player.objects.get(pk=form.instance.pk), formset)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_player(obj, by=request.user)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        return super().changelist_view(request, _tools(request, extra_context))

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(self.duplicates_view)
        return [path("duplicates/", view, name="clubs_player_duplicates"), *super().get_urls()]

    def duplicates_view(self, request: HttpRequest) -> HttpResponse:
        user = request.user
        federations = list(permissions.admin_federations(user))
        if not federations:
            raise PermissionDenied
        chosen = request.POST.get("federation") or request.GET.get("federation")
        federation = next((f for f in federations if str(f.pk) == chosen), federations[0])
        if not permissions.can(user, "player.merge", Player(federation=federation)):
            raise PermissionDenied
        if request.method == "POST":
            self._merge(request, federation)
            url = reverse("admin:clubs_player_duplicates")
            return HttpResponseRedirect(f"{url}?federation={federation.pk}")
        groups = queries.duplicate_groups(federation)
        ids = [player.pk for group in groups for player in group]
        clubs: dict[int, list[str]] = defaultdict(list)
        for membership in (
            Membership.objects.current().filter(player_id__in=ids).select_related("club")
        ):
            clubs[membership.player_id].append(membership.club.name)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Possible duplicates: %(federation)s") % {"federation": federation},
            "opts": self.model._meta,
            "federations": federations,
            "federation": federation,
            "groups": [
                [(player, clubs.get(player.pk, [])) for player in group] for group in groups
            ],
        }
        return TemplateResponse(request, "admin/clubs/player/duplicates.html", context)

    def _merge(self, request: HttpRequest, federation: Federation) -> None:
        group = [  # ids a bigint holds, in ASCII digits ("²" is a digit, not to int())
            int(pk)
            for pk in request.POST.getlist("group")
            if pk.isascii() and pk.isdigit() and len(pk) <= 18
        ]
        form = MergeForm(group, request.POST)
        if not form.is_valid() or form.cleaned_data["survivor"] not in group:
            self.message_user(request, _("Choose the player to keep."), messages.ERROR)
            return
        survivor_id = form.cleaned_data["survivor"]
        others = [pk for pk in form.cleaned_data["duplicates"] if pk != survivor_id]
        if not others:
            self.message_user(request, _("Choose at least one duplicate to merge."), messages.ERROR)
            return
        players = {
            player.pk: player
            for player in permissions.admin_players(request.user).filter(
                federation=federation, pk__in=[survivor_id, *others]
            )
        }
        try:
            with transaction.atomic():
                if len(players) != len(others) + 1:
                    raise ValidationError(_("Some of these players are no longer on the list."))
                survivor = players[survivor_id]
                for pk in others:
                    survivor = services.merge_players(survivor, players[pk], by=request.user)
        except (ValidationError, PermissionDenied) as error:
            text = _message(error) if isinstance(error, ValidationError) else str(error)
            self.message_user(request, text, messages.ERROR)
            return
        self.message_user(
            request,
            _("Merged %(count)d duplicates into %(player)s.")
            % {"count": len(others), "player": survivor},
            messages.SUCCESS,
        )


# --- Memberships on their own page


@admin.register(Membership)
class MembershipAdmin(PolicyAdmin):
    change_action = delete_action = "membership.change"
    form = MembershipForm
    list_display = ("player", "club", "start", "end")
    list_filter = (ClubFilter, MembershipStateFilter)
    search_fields = ("player__name_native", "player__name_latin", "player__membership_number")
    list_select_related = ("player", "club")
    autocomplete_fields = ("player",)
    fields = ("player", "club", "start", "end")

    def scope(self, user: Any) -> models.QuerySet[Membership]:
        return permissions.admin_memberships(user)

    def subject(self, obj: Membership) -> Club:
        return obj.club

    def has_add_permission(self, request: HttpRequest) -> bool:
        return permissions.is_staff_admin(request.user)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        data = form.cleaned_data
        if not change:
            saved = services.add_membership(
                data["player"],
                data["club"],
                by=request.user,
                start=data["start"],
                end=data.get("end"),
            )
        else:
            original = Membership.objects.select_related("club__federation", "player").get(
                pk=obj.pk
            )
            if original.end is None and data.get("end") and data["start"] == original.start:
                saved = services.end_membership(original, by=request.user, end=data["end"])
            else:
                saved = services.update_membership(
                    original, by=request.user, start=data["start"], end=data.get("end")
                )
        self.adopt(obj, saved)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_membership(obj, by=request.user)


# --- Roles


class RoleAssignmentForm(PolicyForm):
    username = forms.CharField(
        label=gettext_lazy("User"), help_text=gettext_lazy("Username or e-mail address.")
    )
    federation = forms.ModelChoiceField(
        queryset=Federation.objects.none(), required=False, label=gettext_lazy("federation")
    )
    club = forms.ModelChoiceField(
        queryset=Club.objects.none(), required=False, label=gettext_lazy("club")
    )

    class Meta:
        model = RoleAssignment
        fields = ("role",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        roles = (
            [Role.CLUB_ADMIN, Role.FEDERATION_ADMIN]
            if self.user.is_superuser
            else [Role.CLUB_ADMIN]
        )
        if "role" in self.fields:
            self.fields["role"].choices = [(role.value, role.label) for role in roles]
        self.fields["federation"].queryset = permissions.admin_federations(self.user)
        self.fields["club"].queryset = Club.objects.filter(
            federation__in=permissions.admin_federations(self.user)
        ).select_related("federation")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        name = cleaned.get("username", "").strip()
        users = get_user_model().objects.filter(
            models.Q(username__iexact=name) | models.Q(email__iexact=name)
        )
        target = users.first() if name and users.count() == 1 else None
        if name and target is None:
            self.add_error("username", _("No single user has this username or e-mail address."))
        role = cleaned.get("role")
        scope = cleaned.get("club") if role == Role.CLUB_ADMIN else cleaned.get("federation")
        if role and scope is None:
            field = "club" if role == Role.CLUB_ADMIN else "federation"
            self.add_error(field, _("Choose where this role applies."))
        elif role and not permissions.can(self.user, "role.grant", (role, scope)):
            self.add_error(None, _("You may not give this role here."))
        cleaned["target"], cleaned["scope"] = target, scope
        return cleaned


@admin.register(RoleAssignment)
class RoleAssignmentAdmin(PolicyAdmin):
    form = RoleAssignmentForm
    list_display = ("user", "role", "applies_to", "granted_by", "granted_at")
    list_filter = ("role",)
    search_fields = ("user__username", "user__email")
    list_select_related = ("user", "granted_by")

    def scope(self, user: Any) -> models.QuerySet[RoleAssignment]:
        return permissions.admin_role_assignments(user).prefetch_related("scope")

    def may_list(self, user: Any) -> bool:
        return _federation_staff(user)

    def _grantable(self, request: HttpRequest, obj: Any) -> bool:
        if obj is None:
            return self.may_list(request.user)
        return permissions.can(request.user, "role.grant", (obj.role, obj.scope))

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._grantable(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._grantable(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self._grantable(request, None)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # revoke and grant again

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            fields = ["username", "role", "club"]
            return [*fields, "federation"] if request.user.is_superuser else fields
        return ["user", "role", "applies_to", "granted_by", "granted_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [] if obj is None else ["user", "role", "applies_to", "granted_by", "granted_at"]

    @admin.display(description=gettext_lazy("applies to"))
    def applies_to(self, assignment: RoleAssignment) -> str:
        return str(assignment.scope)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        data = form.cleaned_data
        saved = services.grant_role(data["target"], data["role"], data["scope"], by=request.user)
        self.adopt(obj, saved)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.revoke_role(obj, by=request.user)


# --- Profile claims: approve or reject


def _decide(modeladmin: Any, request: HttpRequest, queryset: Any, approve: bool) -> None:
    """Each claim on its own (one refused claim does not stop the others)."""
    done = 0
    for claim in queryset.select_related("player__federation", "user"):
        try:
            services.decide_claim(claim, by=request.user, approve=approve)
            done += 1
        except ValidationError as error:
            modeladmin.message_user(request, f"{claim}: {_message(error)}", messages.ERROR)
        except PermissionDenied as error:
            modeladmin.message_user(request, f"{claim}: {error}", messages.ERROR)
    if done:
        modeladmin.message_user(
            request, _("Claims decided: %(count)d.") % {"count": done}, messages.SUCCESS
        )


@admin.action(description=gettext_lazy("Approve the selected claims"))
def approve_claims(modeladmin: Any, request: HttpRequest, queryset: Any) -> None:
    _decide(modeladmin, request, queryset, approve=True)


@admin.action(description=gettext_lazy("Reject the selected claims"))
def reject_claims(modeladmin: Any, request: HttpRequest, queryset: Any) -> None:
    _decide(modeladmin, request, queryset, approve=False)


@admin.register(ProfileClaim)
class ProfileClaimAdmin(PolicyAdmin):
    view_action = "claim.decide"
    list_display = ("player", "user", "status", "created_at", "decided_by", "decided_at")
    list_filter = ("status",)
    search_fields = ("player__name_native", "player__name_latin", "user__username")
    list_select_related = ("player", "user", "decided_by")
    actions = [approve_claims, reject_claims]

    def scope(self, user: Any) -> models.QuerySet[ProfileClaim]:
        return permissions.admin_claims(user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players claim their profiles from the site

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # decided with the actions

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- The audit log, read-only


@admin.register(AuditEntry)
class AuditEntryAdmin(PolicyAdmin):
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
            return _federation_staff(user)
        if user.is_superuser:
            return user.is_active
        federation = obj.federation
        return federation is not None and permissions.can(user, "federation.view_audit", federation)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
