"""Comparing attribute trees, ignoring fields, and masking secrets for display.

``differences(before, after)`` lists added / removed / changed leaves with
their paths (lists compare element-wise). ``mask_secrets`` returns a copy
safe to print: Kubernetes ``Secret`` data, values under secret-looking keys
(``secret_keys``: password, token, privateKey, ssh_key, database_url, ...) and
the paths a runtime reported as sensitive (Terraform ``sensitive_values``)
become ``******``; what a spec or a provider schema declares sensitive is
masked by ``sensitive.mask_paths`` on top. Comparison always uses the real
values, display always the masked ones.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any

import attrs

MASK = "******"
ADDED = "+"
REMOVED = "-"
CHANGED = "~"

# The second net, behind what is declared sensitive (``kclpy.kusion.sensitive``): a key
# is secret when, lowercased without separators, it ends with one of these words,
# optionally followed by one qualifier (``db_password``, ``password_hash``, ``secrets``,
# ``ssh_key``, ``secret_string``, ``database_url``); ``secretName`` or ``tokenTTL`` are not.
_SECRET_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "privatekey",
    "secretkey",
    "accesskey",
    "sshkey",
    "signingkey",
    "encryptionkey",
    "credential",
    "connectionstring",
    "databaseurl",
    "databaseuri",
    "dburl",
    "dsn",
)
_QUALIFIERS = ("", "s", "hash", "digest", "value", "data", "string", "b64", "base64", "text")
_SECRET_SUFFIXES = tuple(word + qualifier for word in _SECRET_WORDS for qualifier in _QUALIFIERS)
# ``auth: "user:pass"`` and ``auth: {value: ...}``: the value of an auth-like key.
_AUTH_KEYS = ("auth", "authorization", "authentication", "basicauth", "bearer")
_VALUE_KEYS = ("value",)
_PAIR_NAMES = ("name", "key")

Path = tuple[str, ...]


@attrs.frozen
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


def _normalized(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.lower())


def is_secret_key(key: str) -> bool:
    return _normalized(key).endswith(_SECRET_SUFFIXES)


def secret_keys(mapping: dict[Any, Any], parent: str = "") -> set[Any]:
    """The keys of ``mapping`` (found under the key ``parent``) whose values are secret.

    A secret-looking key; ``value`` beside a secret-looking ``name``/``key``
    (``{name: DB_PASSWORD, value: ...}``) or under an auth-like parent
    (``auth: {value: ...}``); an auth-like key holding a plain string.
    """
    pair_name = next((mapping[k] for k in _PAIR_NAMES if isinstance(mapping.get(k), str)), "")
    value_is_secret = is_secret_key(pair_name) or _normalized(parent) in _AUTH_KEYS
    found = set()
    for key, item in mapping.items():
        text = str(key)
        if (
            is_secret_key(text)
            or (value_is_secret and text in _VALUE_KEYS)
            or (_normalized(text) in _AUTH_KEYS and isinstance(item, str))
        ):
            found.add(key)
    return found


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


def _mask_by_key(value: Any, parent: str = "") -> Any:
    if isinstance(value, dict):
        secret = secret_keys(value, parent)
        return {
            key: _mask_all(item) if key in secret else _mask_by_key(item, str(key))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_mask_by_key(item, parent) for item in value]
    return value


def _mask_all(value: Any) -> Any:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
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
