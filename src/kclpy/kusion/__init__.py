"""kclpy's Kusion backend: preview, apply and destroy of the resources a KCL program emits.

Takes a Kusion Spec (``resources: [{id, type, attributes, dependsOn, extensions}]``),
either from ``--spec FILE`` or from the YAML that ``kcl run`` prints, builds the
dependency graph, and drives runtimes (Terraform, Kubernetes, Local) with state
kept in SQLite or PostgreSQL. Modules, bottom up: ``model`` (data), ``references``
and ``graph``, ``spec`` (input and validation), ``state`` (releases and the lock),
``runtimes``, ``walker`` (bounded-parallel walk), ``engine`` (preview/execute),
``operations`` (with the lock), ``render`` and ``cli``. Nothing here imports the
language implementation; ``import kclpy.kusion`` is cheap.
"""
