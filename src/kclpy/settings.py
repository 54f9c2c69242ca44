"""KCL settings files (``kcl.yaml``, ``-Y``): ``kcl_cli_configs`` and ``kcl_options``.

Returns one dict with the keys the CLI understands: files, options (``k=v`` texts,
values JSON-encoded), disable_none, sort_keys, show_hidden, strict_range_check,
output, path_selector, overrides, external (``name=path``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MOD_ROOT = "${KCL_MOD}"


class SettingsError(Exception):
    """A settings file that cannot be read or has the wrong shape."""


def load_settings(paths: list[str]) -> dict[str, Any]:
    """The settings files merged in order (later values win, lists add up)."""
    merged: dict[str, Any] = {}
    for path in paths:
        try:
            _merge(_read(path), os.path.dirname(os.path.abspath(path)), merged)
        except _BadShape:
            raise SettingsError(f"Failed to load '{path}', invalid setting file format") from None
    return merged


class _BadShape(Exception):
    """A value of a settings file has the wrong type."""


def _listed(value: Any) -> list[Any]:
    """A list value; one string stands for a list of it; None for none."""
    items = [value] if isinstance(value, str) else value or []
    if not isinstance(items, list):
        raise _BadShape
    return items


def _merge(data: dict[str, Any], base: str, merged: dict[str, Any]) -> None:
    import json

    configs = data.get("kcl_cli_configs") or {}
    if not isinstance(configs, dict):
        raise _BadShape
    for key, value in configs.items():
        if key in ("files", "file"):
            merged["files"] = [_file_entry(str(item), base) for item in _listed(value)]
        elif key == "package_maps":
            if not isinstance(value or {}, dict):
                raise _BadShape
            merged.setdefault("external", []).extend(
                f"{name}={target}" for name, target in (value or {}).items()
            )
        elif key in ("overrides", "path_selector"):
            merged.setdefault(key, []).extend(str(item) for item in _listed(value))
        elif key in ("output", "format") and not isinstance(value, str | None):
            raise _BadShape
        else:
            merged[key] = value
    for item in _listed(data.get("kcl_options")):
        if not isinstance(item, dict) or "key" not in item:
            raise _BadShape
        encoded = json.dumps(item.get("value"), ensure_ascii=False)
        merged.setdefault("options", []).append(f"{item['key']}={encoded}")


def _file_entry(item: str, base: str) -> str:
    """A settings file's entry as a path: relative to the settings file's folder;
    ``${KCL_MOD}/x`` is ``x`` of the module root (the nearest ``kcl.mod`` folder at or
    above the settings file); ``${name:KCL_MOD}/x`` is left for the loader, which
    knows the external packages."""
    if item.startswith(_MOD_ROOT):
        from kclpy.loader import find_root

        root = find_root(base) or base
        return os.path.normpath(os.path.join(root, item[len(_MOD_ROOT) :].lstrip("/")))
    if item.startswith("${") or os.path.isabs(item):
        return item
    return os.path.normpath(os.path.join(base, item))


def _read(path: str) -> dict[str, Any]:
    import yaml

    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except OSError as error:
        raise SettingsError(f"cannot read settings file {path}: {error.strerror}") from None
    except yaml.YAMLError:
        raise SettingsError(f"Failed to load '{path}', invalid setting file format") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"Failed to load '{path}', invalid setting file format")
    return data
