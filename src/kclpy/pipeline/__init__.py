"""The pipeline layer (above ``emit``, below the tools, builds and the API).

``driver``: the stages load -> check -> compile -> run -> emit as functions over
explicit data, used by every entry point. ``cache``: the compiled-code cache the
driver consults between stages (on disk, shared by processes; in process, shared by
the programs one process runs).
"""
