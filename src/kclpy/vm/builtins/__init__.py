"""Python-backed functions of KCL: builtin functions, string methods and system modules.

Every function takes and returns runtime values (see :mod:`kclpy.values`) and
raises :class:`~kclpy.values.errors.KclRuntimeError` on failure. Functions that need the
running program (output, option values, file locations) are marked with
:func:`~kclpy.vm.builtins.registry.needs_context` and receive the
:class:`~kclpy.vm.builtins.context.BuiltinContext` as their first argument.
"""
