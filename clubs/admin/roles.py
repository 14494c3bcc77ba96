"""Roles (grant and revoke) and profile claims (approve or reject)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs import permissions, services
from clubs.admin.base import PolicyAdmin, PolicyForm, error_text, is_federation_staff
from clubs.models import Club, Federation, ProfileClaim, Role, RoleAssignment

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
            if permissions.is_site_admin(self.user)
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
        return is_federation_staff(user)

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
            return [*fields, "federation"] if permissions.is_site_admin(request.user) else fields
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
            modeladmin.message_user(request, f"{claim}: {error_text(error)}", messages.ERROR)
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
