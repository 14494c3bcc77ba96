"""The Idempotency-Key header in the OpenAPI schema (a drf-spectacular postprocessing hook).

Every write under /api/ accepts the header (idempotency.middleware), so every
such operation documents it, with the answers the middleware itself gives: 409
(the key's first request is still running), 422 (the key was used for another
request), and 400 (a malformed key) where the operation already documents a 400.
Where the operation documents that status already, the answer is either shape.
"""

from __future__ import annotations

import copy
from typing import Any

from idempotency.middleware import API_PREFIX, HEADER, KEY_PATTERN, MAX_KEY_LENGTH, UNSAFE_METHODS

ERROR_SCHEMA_NAME = "IdempotencyKeyError"
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {
            "type": "string",
            "enum": [
                "idempotency_key_invalid",
                "idempotency_key_in_progress",
                "idempotency_key_reused",
            ],
        },
        "detail": {"type": "string"},
    },
    "required": ["code", "detail"],
}
HEADER_PARAMETER = {
    "in": "header",
    "name": HEADER,
    "required": False,
    "schema": {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_KEY_LENGTH,
        "pattern": KEY_PATTERN,
    },
    "description": (
        "Makes a retry safe: the same key with the same request within the key's lifetime "
        "(24 hours by default) gets the first answer again, with the header "
        "`Idempotent-Replayed: true`, and nothing is done twice.  The same key with "
        "another request is refused (422).  Keys belong to the credentials that sent them."
    ),
}
# Status -> (description, added where the operation does not document it yet).
ANSWERS = {
    "400": ("Malformed Idempotency-Key.", False),
    "409": ("The first request with this Idempotency-Key is still being handled.", True),
    "422": ("This Idempotency-Key was already used for a different request.", True),
}


def _either(existing: dict[str, Any], description: str) -> dict[str, Any]:
    """An operation's own answer for a status, which may now also be the middleware's."""
    existing = copy.deepcopy(existing)
    ours = {"$ref": f"#/components/schemas/{ERROR_SCHEMA_NAME}"}
    content = existing.setdefault("content", {})
    media = content.setdefault("application/json", {})
    theirs = media.get("schema")
    media["schema"] = {"anyOf": [theirs, ours]} if theirs else ours
    existing["description"] = " ".join(filter(None, [existing.get("description"), description]))
    return existing


def document_idempotency_key(
    result: dict[str, Any], generator: Any, request: Any, public: bool, **kwargs: Any
) -> dict[str, Any]:
    documented = False
    for path, operations in result.get("paths", {}).items():
        if not path.startswith(API_PREFIX):
            continue
        for method, operation in operations.items():
            if method.upper() not in UNSAFE_METHODS:
                continue
            documented = True
            parameters = operation.setdefault("parameters", [])
            if not any(p.get("in") == "header" and p.get("name") == HEADER for p in parameters):
                parameters.append(copy.deepcopy(HEADER_PARAMETER))
            responses = operation.setdefault("responses", {})
            for status, (description, add) in ANSWERS.items():
                if status in responses:
                    responses[status] = _either(responses[status], description)
                elif add:
                    responses[status] = {
                        "description": description,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": f"#/components/schemas/{ERROR_SCHEMA_NAME}"}
                            }
                        },
                    }
    if documented:
        schemas = result.setdefault("components", {}).setdefault("schemas", {})
        schemas[ERROR_SCHEMA_NAME] = ERROR_SCHEMA
    return result
