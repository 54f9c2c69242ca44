"""The virtual machine: merging, the interpreter loop, builtins and plugins.

Takes the compiled packages (``compile.code.PackageCode``) and gives the output
documents, print text and located runtime errors. Its parts, each owning one thing:

- ``kclpy.values`` (a package below the VM, shared with the emitter): the ``Value``
  type (Python data, ``Config``, ``SchemaInstance``, ``UNDEFINED``), the typed errors
  (``values.errors``: ``KclRuntimeError`` with its location, stack, related labels;
  ``CheckFailure``) and the YAML/JSON/TOML writers; ``objects``: scopes, frames,
  functions, schema types, modules, package states.
- ``runtime.Runtime``: the state of one run (packages, options, output, limits, caches).
- ``interp.Interpreter``: the dispatch loop and what it calls that runs code (names,
  package variables, imports, attributes, calls); ``schemas.SchemaBuilder``: schema
  instantiation, through the interpreter's ``Evaluator`` protocol; ``access``, ``merge``,
  ``operators``, ``typecheck``: functions over values.
- ``builtins``: Python-backed functions; those needing the run get a
  ``builtins.context.BuiltinContext`` (options, output, file policy, call, union).
- ``runner.Runner``: assembles the parts for one run and reads the documents out.
"""
