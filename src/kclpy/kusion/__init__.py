"""kclpy's Kusion backend: preview, apply and destroy of the resources a KCL program emits.

Takes a Kusion Spec (``resources: [{id, type, attributes, dependsOn, extensions}]``)
or Kubernetes manifests (a YAML stream, or a program's top-level variables),
either from ``--spec FILE`` or from the YAML that ``kcl run`` prints, builds the
dependency graph, and drives runtimes (Terraform, Kubernetes, Local) with state
kept in SQLite or PostgreSQL. Modules, bottom up: ``model`` (data), ``extras``
(optional packages), ``located`` (YAML with positions), ``references`` and
``graph``, ``validation`` (every problem, located), ``spec`` (input), ``state``
(releases and the lock), ``runtimes``, ``walker`` (bounded-parallel walk),
``engine`` (preview/execute), ``operations`` (with the lock), ``render`` and
``cli``. Nothing here imports the language implementation; ``import kclpy.kusion`` is cheap.
"""
