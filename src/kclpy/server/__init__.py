"""``kcl server``: the KCL API (kcl-lang's ``KclService``) as JSON over HTTP.

Takes :class:`ServerSettings`; :func:`serve` answers kcl-go's REST routes
(``/api:protorpc/KclService.ExecProgram`` ...) with kclpy.api until a signal stops
it. :mod:`.messages` decodes requests, :mod:`.methods` answers them, :mod:`.httpd`
owns the sockets, bounds and the envelope. docs/server.md lists the methods.
"""

from __future__ import annotations

from kclpy.server.httpd import PREFIX, ServerSettings, envelope, make_server, serve
from kclpy.server.methods import METHODS, REQUESTS, UNSUPPORTED

__all__ = [
    "METHODS",
    "PREFIX",
    "REQUESTS",
    "UNSUPPORTED",
    "ServerSettings",
    "envelope",
    "make_server",
    "serve",
]
