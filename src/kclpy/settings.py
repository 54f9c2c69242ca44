"""KCL settings files (``kcl.yaml``, ``-Y``): ``kcl_cli_configs`` and ``kcl_options``.

Returns one dict with the keys the CLI understands: files, options (``k=v`` texts,
values JSON-encoded), disable_none, sort_keys, show_hidden, strict_range_check,
output, path_selector, overrides, external (``name=path``).
"""

from __future__ import annotations

import os
from typing import Any

_MOD_ROOT = "${KCL_MOD}"


class SettingsError(Exception):
    """A settings file that cannot be read or has the wrong shape."""


def load_settings(paths: list[str]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for path in paths:
        data = _read(path)
        base = os.path.dirname(os.path.abspath(path))
        configs = data.get("kcl_cli_configs") or {}
        if not isinstance(configs, dict):
            raise SettingsError(f"Failed to load '{path}', invalid setting file format")
        for key, value in configs.items():
            if key == "files" or key == "file":
                merged["files"] = [_file_entry(str(item), base) for item in (value or [])]
            elif key == "package_maps":
                merged.setdefault("external", []).extend(
                    f"{name}={target}" for name, target in (value or {}).items()
                )
            elif key in ("overrides", "path_selector"):
                merged.setdefault(key, []).extend(value or [])
            else:
                merged[key] = value
        for item in data.get("kcl_options") or []:
            if not isinstance(item, dict) or "key" not in item:
                raise SettingsError(f"Failed to load '{path}', invalid setting file format")
            import json

            encoded = json.dumps(item.get("value"), ensure_ascii=False)
            merged.setdefault("options", []).append(f"{item['key']}={encoded}")
    return merged


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
