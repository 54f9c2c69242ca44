"""``kcl mod`` and ``kcl registry``: package management (the work is in
:mod:`kclpy.mod`; its ``command`` module holds both commands' arguments)."""

from __future__ import annotations

import argparse

from kclpy.cli.base import Command


def _configure_mod(parser: argparse.ArgumentParser) -> None:
    from kclpy.mod.command import configure_mod

    configure_mod(parser)


def _handle_mod(args: argparse.Namespace) -> int:
    from kclpy.mod.command import handle_mod

    return handle_mod(args)


def _configure_registry(parser: argparse.ArgumentParser) -> None:
    from kclpy.mod.command import configure_registry

    configure_registry(parser)


def _handle_registry(args: argparse.Namespace) -> int:
    from kclpy.mod.command import handle_registry

    return handle_registry(args)


MOD = Command(
    name="mod",
    help="manage KCL packages: init, add, remove, update, pull, push, package, graph, metadata",
    configure=_configure_mod,
    handle=_handle_mod,
    examples=(
        "examples:\n"
        "  kcl mod init demo\n"
        "  kcl mod add k8s:1.31.2\n"
        "  kcl mod add --git https://example.com/models.git --tag v0.1.0\n"
        "  kcl mod push oci://localhost:5000/kcl/demo\n"
        "  kcl mod graph"
    ),
    intermixed=False,
)
REGISTRY = Command(
    name="registry",
    help="log in to or out of an OCI registry (credentials are never printed)",
    configure=_configure_registry,
    handle=_handle_registry,
    examples=(
        "examples:\n"
        "  kcl registry login localhost:5000 -u me -p secret\n"
        "  kcl registry logout localhost:5000"
    ),
    intermixed=False,
)
