"""Registering host plugins: ``kclpy.plugin.register("hello", {"add": add})``.

KCL code then calls ``import kcl_plugin.hello`` and ``hello.add(1, 2)``. See
:mod:`kclpy.vm.plugins` for the calling convention (JSON-shaped values, errors).
"""

from kclpy.vm.plugins import ENTRY_POINT_GROUP, register, registered, unregister

__all__ = ["ENTRY_POINT_GROUP", "register", "registered", "unregister"]
