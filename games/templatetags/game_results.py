"""``{{ name|result_label }}``: an engine result name (mars, home mars, koks...)
in the reader's language, from the one mapping in ``base.engine_messages``."""

from __future__ import annotations

from django import template

from base.engine_messages import result_label as label_of

register = template.Library()


@register.filter
def result_label(name: str) -> str:
    return label_of(name) if name else ""
