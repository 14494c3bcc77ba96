"""The published OpenAPI schema tells the truth about the answers, by class of field.

A client generated from ``/api/schema/`` crashes on a null the schema did not
announce.  The Schemathesis pass (test_api_fuzz) finds such a null only when
its world happens to hold one; these tests hold every serializer of the API to
the rule, whatever the data: drf-spectacular resolves every field without a
warning, a computed field whose method may give None is documented nullable,
and so is a field read through a relation that may be empty.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.exceptions import FieldDoesNotExist
from django.core.management import call_command
from rest_framework import serializers

API_APPS = ("clubs", "games", "ratings", "tournaments", "idempotency", "config")


def _api_serializers() -> list[type[serializers.BaseSerializer[Any]]]:
    for app in API_APPS:
        if importlib.util.find_spec(f"{app}.serializers") is not None:
            importlib.import_module(f"{app}.serializers")
    found: list[type[serializers.BaseSerializer[Any]]] = []
    pending = [serializers.BaseSerializer]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            if sub.__module__.split(".")[0] in API_APPS:
                found.append(sub)
    return sorted(set(found), key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


def _declared_fields() -> Iterator[
    tuple[str, type[Any], str, serializers.Field[Any, Any, Any, Any]]
]:
    for cls in _api_serializers():
        for name, field in getattr(cls, "_declared_fields", {}).items():
            yield f"{cls.__module__}.{cls.__qualname__}.{name}", cls, name, field


def _documented_nullable(documented: Any) -> bool:
    """Whether an ``extend_schema_field`` annotation lets the value be null."""
    if isinstance(documented, dict) and "field" in documented:
        documented = documented["field"]  # as drf-spectacular keeps it on the method
    if isinstance(documented, serializers.Field):  # a serializer is a field too
        return bool(documented.allow_null)
    if isinstance(documented, dict):
        return documented.get("nullable") is True
    return False  # an OpenApiTypes member never says null


def test_the_schema_builds_without_a_warning(tmp_path: Any) -> None:
    """A field drf-spectacular cannot resolve (a method without a type, a source it
    cannot follow) is published as a guess; a warning is a failure here."""
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert out.read_text().startswith("openapi: 3")


def test_a_computed_field_that_may_be_none_is_documented_nullable() -> None:
    wrong = []
    seen = 0
    for label, cls, name, field in _declared_fields():
        if not isinstance(field, serializers.SerializerMethodField):
            continue
        seen += 1
        method = getattr(cls, field.method_name or f"get_{name}")
        returns = str(method.__annotations__.get("return", ""))
        documented = getattr(method, "_spectacular_annotation", None)
        if documented is None or "None" not in returns.replace("NoneType", "None"):
            continue  # drf-spectacular reads an Optional return type itself
        if not _documented_nullable(documented):
            wrong.append(label)
    assert seen >= 10, "the serializers were not found"
    assert wrong == []


def _through_nullable_relation(model: Any, source: str) -> bool:
    """Whether reading ``source`` from a ``model`` row passes an empty relation."""
    for part in source.split(".")[:-1]:
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False  # a property or a method: its own business
        if not field.is_relation or field.related_model is None:
            return False
        # A foreign key that may be null, or a reverse one-to-one that may not exist.
        if field.null or (field.one_to_one and field.auto_created):
            return True
        model = field.related_model
    return False


def test_a_field_read_through_an_empty_relation_is_documented_nullable() -> None:
    wrong = []
    followed = 0
    for label, cls, _name, field in _declared_fields():
        model = getattr(getattr(cls, "Meta", None), "model", None)
        source = getattr(field, "source", None)
        if model is None or not source or "." not in source or source == "*":
            continue
        if isinstance(field, serializers.SerializerMethodField):
            continue
        followed += 1
        if _through_nullable_relation(model, source) and not field.allow_null:
            wrong.append(f"{label} ({source})")
    assert followed >= 5, "no field with a dotted source was found"
    assert wrong == []


@pytest.mark.parametrize(
    "component, field",
    [
        ("Report", "reported_by"),
        ("Pairing", "player2"),
        ("Pairing", "player2_name"),
        ("Pairing", "result"),
    ],
)
def test_the_known_nulls_are_published(client: Any, component: str, field: str) -> None:
    """The nulls Schemathesis found (an official's report has no reporter; a
    bye has no second player; an unplayed pairing no result), as clients see them."""
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    prop = schema["components"]["schemas"][component]["properties"][field]
    assert prop.get("nullable") is True, prop
