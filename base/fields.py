"""Serializer fields that accept only what the database and the domain can hold.

A number too large for its column (``score1=78008`` in a small-integer
column) reaches PostgreSQL and answers 500; an object key that is converted
without a check (``int(key)``) raises ValueError.  The API's input fields are
bounded here, once:

- ``BoundedIntegers``, a ModelSerializer mixin, gives every integer field built
  from a model field the range of its column (the portable ranges Django knows
  for each integer field kind, PostgreSQL's; SQLite would allow 64 bits for all);
- ``COLUMN_RANGES`` and ``ID_RANGE`` bound the plain serializers' fields by hand;
- ``KeyedDictField`` validates each key of an object with a field of its own and
  documents the keys in the schema (``x-propertyNames``: OpenAPI 3.0 has no
  ``propertyNames``, so JSON Schema's keyword goes under an extension);
- every ``PrimaryKeyRelatedField`` documents the range of an id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import build_object_type
from rest_framework import serializers
from rest_framework.relations import PrimaryKeyRelatedField

# The range of each integer column, as PostgreSQL stores it (Django's portable
# ranges: django.db.backends.base.operations.BaseDatabaseOperations).
SMALL = (0, 32_767)
POSITIVE = (0, 2_147_483_647)
BIG = (0, 9_223_372_036_854_775_807)
COLUMN_RANGES: dict[str, tuple[int, int]] = {
    "SmallIntegerField": (-32_768, 32_767),
    "IntegerField": (-2_147_483_648, 2_147_483_647),
    "BigIntegerField": (-9_223_372_036_854_775_808, 9_223_372_036_854_775_807),
    "PositiveSmallIntegerField": SMALL,
    "PositiveIntegerField": POSITIVE,
    "PositiveBigIntegerField": BIG,
    "SmallAutoField": (1, 32_767),
    "AutoField": (1, 2_147_483_647),
    "BigAutoField": (1, 9_223_372_036_854_775_807),
}
# Every model's primary key is a BigAutoField (DEFAULT_AUTO_FIELD).
ID_RANGE = COLUMN_RANGES["BigAutoField"]


def column_range(model_field: models.Field[Any, Any]) -> tuple[int, int] | None:
    """The range an integer column holds, None for a field that is not an integer."""
    return COLUMN_RANGES.get(model_field.get_internal_type())


def id_field(**kwargs: Any) -> serializers.IntegerField:
    """An integer field holding an object's id."""
    return serializers.IntegerField(min_value=ID_RANGE[0], max_value=ID_RANGE[1], **kwargs)


class BoundedIntegers:
    """ModelSerializer mixin: an integer field built from a model field accepts only
    what its column holds (tighter bounds of the model's validators are kept)."""

    def build_standard_field(
        self, field_name: str, model_field: models.Field[Any, Any]
    ) -> tuple[type[serializers.Field], dict[str, Any]]:
        field_class, kwargs = super().build_standard_field(field_name, model_field)  # type: ignore[misc]
        bounds = column_range(model_field)
        if bounds is not None and issubclass(field_class, serializers.IntegerField):
            low, high = bounds
            given_low, given_high = kwargs.get("min_value"), kwargs.get("max_value")
            kwargs["min_value"] = low if given_low is None else max(low, given_low)
            kwargs["max_value"] = high if given_high is None else min(high, given_high)
        return field_class, kwargs


class IntegerKeyField(serializers.IntegerField):
    """A positive integer (an id) written as an object key: decimal digits only ("12",
    not "012", "12.0" or " 12")."""

    pattern = "^[1-9][0-9]{0,18}$"

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not re.fullmatch(self.pattern, data):
            self.fail("invalid")
        return super().to_internal_value(data)  # type: ignore[no-any-return]


class PatternKeyField(serializers.CharField):
    """A text object key matching ``pattern`` (documented in the schema as such);
    ``message`` says in words what the pattern allows."""

    def __init__(self, pattern: str, message: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pattern = pattern
        self.error_messages["pattern"] = message

    def to_internal_value(self, data: Any) -> str:
        text: str = super().to_internal_value(data)
        if not re.fullmatch(self.pattern, text):
            self.fail("pattern")
        return text


class KeyedDictField(serializers.DictField):
    """An object whose keys are checked (and converted) by ``key_field`` and values by
    ``child``: ``{"12": 1}`` with an IntegerKeyField becomes ``{12: 1}``.  A bad key is
    refused under its own name, saying why."""

    default_error_messages = {
        "invalid_key": _("The key “%(key)s” is not valid: %(reason)s"),
    }

    def __init__(self, *, key_field: serializers.Field, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.key_field = key_field
        self.key_field.bind(field_name="", parent=self)

    def run_child_validation(self, data: Mapping[Any, Any]) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        errors: dict[str, Any] = {}
        for key, value in data.items():
            shown = str(key)
            try:
                typed_key = self.key_field.run_validation(key)
            except serializers.ValidationError as error:
                reasons = error.detail if isinstance(error.detail, list) else [error.detail]
                errors[shown] = [
                    self.error_messages["invalid_key"] % {"key": shown, "reason": str(reason)}
                    for reason in reasons
                ]
                continue
            try:
                result[typed_key] = self.child.run_validation(value)
            except serializers.ValidationError as error:
                errors[shown] = error.detail
        if errors:
            raise serializers.ValidationError(errors)
        return result


class KeyedDictFieldSchema(OpenApiSerializerFieldExtension):
    """An object with ``additionalProperties`` of the child's schema and its keys
    documented: ``x-propertyNames`` with the key's pattern (OpenAPI 3.0 refuses
    ``propertyNames`` itself), and the pattern in the description for readers."""

    target_class = KeyedDictField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        field: KeyedDictField = self.target
        content = auto_schema._map_serializer_field(field.child, direction)
        return keyed_object_schema(content, getattr(field.key_field, "pattern", None))


def keyed_object_schema(values: dict[str, Any], key_pattern: str | None) -> dict[str, Any]:
    """The schema of an object with any keys matching ``key_pattern`` and ``values``."""
    schema: dict[str, Any] = build_object_type(additionalProperties=values)
    schema["x-propertyNames"] = {"type": "string"}
    if key_pattern:
        schema["x-propertyNames"]["pattern"] = key_pattern
        schema["description"] = f"Keys match {key_pattern}."
    return schema


class PrimaryKeyRangeSchema(OpenApiSerializerFieldExtension):
    """An id is a positive 64-bit integer: the schema says so (an id outside the range
    is refused as one that does not exist)."""

    target_class = PrimaryKeyRelatedField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer_field(
            self.target, direction, bypass_extensions=True
        )
        if schema.get("type") == "integer":
            schema["minimum"], schema["maximum"] = ID_RANGE
        return schema
