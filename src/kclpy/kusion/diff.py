"""Comparing attribute trees, ignoring fields, and masking secrets for display.

``differences(before, after)`` lists added / removed / changed leaves with
their paths (lists compare element-wise). ``mask_secrets`` returns a copy
safe to print: Kubernetes ``Secret`` data, values under secret-looking keys
(password, token, privateKey, ...) and the paths a runtime reported as
sensitive (Terraform ``sensitive_values``) become ``******``. Comparison
always uses the real values, display always the masked ones.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MASK = "******"
ADDED = "+"
REMOVED = "-"
CHANGED = "~"

_SECRET_SUFFIXES = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "privatekey",
    "secretkey",
    "accesskey",
    "credentials",
    "connectionstring",
)

Path = tuple[str, ...]


@dataclass(frozen=True)
class Difference:
    """One changed leaf (or subtree that exists on one side only)."""

    path: Path
    kind: str
    before: Any = None
    after: Any = None

    def dotted(self) -> str:
        return ".".join(self.path) or "(root)"


def differences(before: Any, after: Any, path: Path = ()) -> list[Difference]:
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[Difference] = []
        for key in [*before, *(k for k in after if k not in before)]:
            if key not in after:
                found.append(Difference((*path, str(key)), REMOVED, before[key]))
            elif key not in before:
                found.append(Difference((*path, str(key)), ADDED, None, after[key]))
            else:
                found.extend(differences(before[key], after[key], (*path, str(key))))
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        found = []
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            found.extend(differences(old, new, (*path, str(index))))
        return found
    if before == after and type(before) is type(after):
        return []
    return [Difference(path, CHANGED, before, after)]


def remove_fields(attributes: Any, fields: Iterable[str]) -> Any:
    """A copy of ``attributes`` without the dotted ``fields`` (applied inside lists too)."""
    result = copy.deepcopy(attributes)
    for dotted in fields:
        _remove(result, dotted.split("."))
    return result


def _remove(value: Any, segments: list[str]) -> None:
    if isinstance(value, list):
        for item in value:
            _remove(item, segments)
    elif isinstance(value, dict) and segments:
        if len(segments) == 1:
            value.pop(segments[0], None)
        elif segments[0] in value:
            _remove(value[segments[0]], segments[1:])


def is_secret_key(key: str) -> bool:
    normalized = re.sub(r"[^a-z0-9]", "", key.lower())
    return normalized.endswith(_SECRET_SUFFIXES)


def mask_secrets(attributes: Any, sensitive: Any = None) -> Any:
    """A display copy of ``attributes`` with secret values replaced by ``MASK``."""
    if not isinstance(attributes, dict):
        return attributes
    masked = _mask_by_key(attributes)
    if masked.get("kind") == "Secret" and "apiVersion" in masked:
        for section in ("data", "stringData"):
            if isinstance(masked.get(section), dict):
                masked[section] = {key: MASK for key in masked[section]}
    return _mask_sensitive(masked, sensitive)


def _mask_by_key(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _mask_all(item) if is_secret_key(str(key)) else _mask_by_key(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_mask_by_key(item) for item in value]
    return value


def _mask_all(value: Any) -> Any:
    if isinstance(value, str):
        return MASK
    if isinstance(value, dict):
        return {key: _mask_all(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_all(item) for item in value]
    return value


def _mask_sensitive(value: Any, sensitive: Any) -> Any:
    if sensitive is True:
        return _mask_all(value) if isinstance(value, dict | list) else MASK
    if isinstance(value, dict) and isinstance(sensitive, dict):
        return {
            key: _mask_sensitive(item, sensitive.get(key)) if key in sensitive else item
            for key, item in value.items()
        }
    if isinstance(value, list) and isinstance(sensitive, list):
        return [
            _mask_sensitive(item, flag) for item, flag in zip(value, sensitive, strict=False)
        ] + value[len(sensitive) :]
    return value


def value_at(tree: Any, path: Path) -> Any:
    current = tree
    for segment in path:
        if isinstance(current, dict):
            current = current.get(segment)
        elif isinstance(current, list) and segment.isdigit() and int(segment) < len(current):
            current = current[int(segment)]
        else:
            return None
    return current
