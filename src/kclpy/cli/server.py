"""``kcl server``: serve the KCL API over HTTP (:mod:`kclpy.server`).

Takes the listen address (``--http HOST:PORT`` as the real CLI, or ``--host`` and
``--port``) and the bounds of requests; returns 128+N when signal N stopped the
server, 1 when the address cannot be had, 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import sys

from kclpy.cli.base import EXIT_PROGRAM_ERROR, Command, CommandError, add_style_options, say
from kclpy.diag import Code

DEFAULT_PORT = 2021


def _address(text: str) -> tuple[str, int | None]:
    """``HOST:PORT``, ``:PORT`` (loopback), ``[V6]:PORT`` or ``HOST``."""
    host, port_text = text, ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    port = _port(port_text) if port_text else None
    return host or "127.0.0.1", port


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port '{text}' (0-65535; 0: any free port)")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"invalid count '{text}' (at least 1)")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    from kclpy.vm.limits import seconds_argument, size_argument

    parser.add_argument(
        "--http",
        metavar="ADDRESS",
        default=f":{DEFAULT_PORT}",
        help=f"listen address HOST:PORT; ':PORT' is 127.0.0.1 (default :{DEFAULT_PORT})",
    )
    parser.add_argument("--host", help="listen on this host instead (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=_port, help=f"listen on this port instead (default {DEFAULT_PORT}; 0: any)"
    )
    parser.add_argument(
        "-n",
        "--proc",
        type=_count,
        default=4,
        metavar="N",
        help="answer at most N requests at once (default 4)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds_argument,
        default=60.0,
        metavar="SECONDS",
        help="stop a request after this long (default 60; 0: never)",
    )
    parser.add_argument(
        "--max-memory",
        type=size_argument,
        metavar="SIZE",
        help="stop a request past this much process memory (default as kcl run's)",
    )
    parser.add_argument(
        "--max-body",
        type=size_argument,
        default=16 << 20,
        metavar="SIZE",
        help="refuse request bodies larger than this (default 16M)",
    )
    add_style_options(
        parser,
        quiet="print only errors: not the address it listens on",
        verbose="log each request on stderr",
    )


def handle(args: argparse.Namespace) -> int:
    from kclpy.server import ServerSettings, serve

    host, port = _address(args.http)
    settings = ServerSettings(
        host=args.host or host,
        port=args.port if args.port is not None else DEFAULT_PORT if port is None else port,
        workers=args.proc,
        timeout=args.timeout,
        max_memory=args.max_memory,
        max_body=args.max_body,
        verbose=bool(args.verbose),
    )

    def announce(line: str) -> None:
        say(args, line)
        sys.stdout.flush()

    try:
        number = serve(settings, announce)
    except OSError as error:
        where = f"{settings.host}:{settings.port}"
        reason = error.strerror or str(error)
        raise CommandError(
            f"cannot listen on {where}: {reason}", Code.IO_ERROR, EXIT_PROGRAM_ERROR
        ) from None
    sys.stdout.flush()
    return 128 + number if number else 0


COMMAND = Command(
    name="server",
    help="serve the KCL API (ExecProgram, FormatCode, ...) as JSON over HTTP",
    description="Serve the KCL API over HTTP, as the real 'kcl server': POST a JSON\n"
    "request (or GET with query parameters) to /api:protorpc/KclService.<Method>;\n"
    'the answer is {"error": "...", "result": {...}}. Listens on 127.0.0.1 unless\n'
    "told otherwise; stops cleanly on Ctrl-C or SIGTERM. Methods: docs/server.md.",
    examples="examples:\n"
    "  kcl server                                   # http://127.0.0.1:2021\n"
    "  kcl server --port 8080 --timeout 30\n"
    "  curl -X POST http://127.0.0.1:2021/api:protorpc/BuiltinService.Ping --data '{}'\n"
    "  curl -X POST http://127.0.0.1:2021/api:protorpc/KclService.ExecProgram \\\n"
    '       --data \'{"k_filename_list": ["main.k"]}\'',
    configure=configure,
    handle=handle,
)
