"""Secret values: which values are secret, and the one function that masks them in output.

``secret_values(resources, declared)`` collects every secret string of a spec
or a state. First what is declared sensitive (``kclpy.kusion.sensitive``):
the paths a spec marks in ``extensions.sensitive``, Kubernetes ``Secret``
``data``/``stringData``, the paths a runtime declares (``declared``: Terraform
provider schemas) and those it reported for a result (Terraform
``sensitive_values``). Then, as a second net, values under secret-looking keys
(``diff.secret_keys``: ``password``, ``token``, ``ssh_key``, ``database_url``,
``auth.value``, ``{name: DB_PASSWORD, value: ...}`` ... at any depth of
``attributes``, ``extensions`` - e.g. provider credentials in ``providerMeta``
- and runtime data).

``Masker`` holds the secrets learnt so far; ``Masker.mask(text)`` replaces
each of them, raw or as it appears escaped inside JSON or a Python repr, by
``MASK``. The CLI routes stdout and stderr through ``MaskedStream``, so every
byte the ``kcl kusion`` commands print - tables, diffs, JSON, progress lines,
state, runtime error text quoting a value - passes through that one function.
(Structured output is in addition masked by key in ``diff.mask_secrets``, which
also covers values too short to be matched in free text: ``MIN_LENGTH``.)
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from typing import Any, TextIO

from kclpy.kusion.diff import MASK, secret_keys
from kclpy.kusion.model import Resource
from kclpy.kusion.sensitive import Declared, declared_paths, values_at

# Shorter values are masked in structured output only: replacing "on" or "1" in
# free text would destroy the text without protecting anything.
MIN_LENGTH = 4


def secret_values(resources: Iterable[Resource], declared: Declared | None = None) -> set[str]:
    found: set[str] = set()
    for resource in resources:
        attributes = resource.attributes
        for path in declared_paths(resource, declared):
            for value in values_at(attributes, path):
                _collect(value, True, found)
        _collect(resource.to_json(), False, found)
        sensitive = resource.runtime_data.get("sensitive")
        _collect_sensitive(attributes, sensitive, found)
    return {value for value in found if len(value) >= MIN_LENGTH}


def _collect(value: Any, secret: bool, found: set[str], parent: str = "") -> None:
    if isinstance(value, dict):
        secret_children = secret_keys(value, parent)
        for key, item in value.items():
            _collect(item, secret or key in secret_children, found, str(key))
    elif isinstance(value, list):
        for item in value:
            _collect(item, secret, found, parent)
    elif secret and isinstance(value, str | int | float) and not isinstance(value, bool):
        found.add(str(value))


def _collect_sensitive(value: Any, sensitive: Any, found: set[str]) -> None:
    if sensitive is True:
        _collect(value, True, found)
    elif isinstance(value, dict) and isinstance(sensitive, dict):
        for key, flag in sensitive.items():
            _collect_sensitive(value.get(key), flag, found)
    elif isinstance(value, list) and isinstance(sensitive, list):
        for item, flag in zip(value, sensitive, strict=False):
            _collect_sensitive(item, flag, found)


def _forms(secret: str) -> set[str]:
    """The ways ``secret`` can appear in printed text."""
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    forms.add(repr(secret)[1:-1])
    return {form for form in forms if form}


class Masker:
    """The secrets known to this process, and the masking function. Thread-safe."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._lock = threading.Lock()

    def add(self, secrets: Iterable[str]) -> None:
        with self._lock:
            new = {s for s in secrets if len(s) >= MIN_LENGTH} - self._secrets
            if not new:
                return
            self._secrets |= new
            forms = sorted({f for s in self._secrets for f in _forms(s)}, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(form) for form in forms))

    def add_resources(
        self, resources: Iterable[Resource], declared: Declared | None = None
    ) -> None:
        self.add(secret_values(resources, declared))

    def mask(self, text: str) -> str:
        """``text`` with every known secret replaced by ``MASK``."""
        pattern = self._pattern
        return pattern.sub(MASK, text) if pattern is not None else text


class MaskedStream:
    """A text stream that masks each line before passing it on (for stdout/stderr)."""

    def __init__(self, stream: TextIO, masker: Masker) -> None:
        self.stream = stream
        self.masker = masker
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        if "\n" in self._pending:
            complete, _, self._pending = self._pending.rpartition("\n")
            self.stream.write(self.masker.mask(complete + "\n"))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.stream.write(self.masker.mask(self._pending))
            self._pending = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)
