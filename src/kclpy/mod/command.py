"""``kcl mod ...`` and ``kcl registry ...``: their arguments and handlers.

For a command table: ``configure_mod(parser)`` / ``handle_mod(args)`` and
``configure_registry(parser)`` / ``handle_registry(args)`` (sub-subcommands: not
intermixed). For a caller that passes the words after ``kcl mod`` / ``kcl
registry`` through untouched: ``main(command, arguments)``. Handlers return the
exit code and print every failure as a coded diagnostic.
"""

from __future__ import annotations

import argparse
import os
import sys

from kclpy.mod.errors import PackageError

EXIT_OK = 0
EXIT_ERROR = 1


def configure_mod(parser: argparse.ArgumentParser) -> None:
    """The subcommands of ``kcl mod`` on ``parser``."""
    commands = parser.add_subparsers(dest="mod_command", prog="kcl mod")
    init = commands.add_parser("init", help="create kcl.mod in a folder")
    init.add_argument("name", nargs="?", default="", help="package name (and folder)")
    add = commands.add_parser("add", help="add a dependency")
    add.add_argument("spec", nargs="?", default="", help="NAME[:VERSION], oci://..., or a folder")
    add.add_argument("--git", default="")
    add.add_argument("--oci", dest="oci_url", default="")
    add.add_argument("--tag", default="")
    add.add_argument("--commit", default="")
    add.add_argument("--branch", default="")
    add.add_argument("--path", default="")
    add.add_argument("--rename", default="", help="import the package under this name")
    remove = commands.add_parser("remove", help="remove a dependency")
    remove.add_argument("name")
    commands.add_parser("update", help="download every dependency again, rewrite the lock")
    pull = commands.add_parser("pull", help="download a package into the package cache")
    pull.add_argument("source", help="NAME[:VERSION], oci://HOST/REPO/NAME, or a git URL")
    pull.add_argument("--tag", default="")
    push = commands.add_parser("push", help="push this package to an OCI registry")
    push.add_argument("url", nargs="?", default="", help="oci://HOST/REPO/NAME")
    push.add_argument("--force", action="store_true", help="replace an existing version")
    package = commands.add_parser("package", help="write the package as a .tar")
    package.add_argument("--target", default="", help="the archive path")
    package.add_argument("--vendor", action="store_true", help="copy dependencies into vendor/")
    commands.add_parser("graph", help="print the dependency graph")
    metadata = commands.add_parser("metadata", help="print the resolved packages as JSON")
    metadata.add_argument("--update", action="store_true", help="accepted (always resolves)")
    metadata.add_argument("--vendor", action="store_true", help="vendor the packages first")
    for sub in commands.choices.values():
        sub.add_argument("--no_style", action="store_true")
        sub.add_argument(
            "-q", "--quiet", action="store_true", help="no progress lines while downloading"
        )
        sub.add_argument(
            "--locked",
            action="store_true",
            help="fail, changing nothing, if kcl.mod.lock would change (it is out of date)",
        )


def configure_registry(parser: argparse.ArgumentParser) -> None:
    """The subcommands of ``kcl registry`` on ``parser``."""
    commands = parser.add_subparsers(dest="registry_command", prog="kcl registry")
    login = commands.add_parser("login", help="store credentials for a registry")
    login.add_argument("registry")
    login.add_argument("-u", "--username", default="")
    login.add_argument("-p", "--password", default="")
    login.add_argument("--password-stdin", action="store_true")
    logout = commands.add_parser("logout", help="forget the credentials of a registry")
    logout.add_argument("registry")


def main(command: str, arguments: list[str]) -> int:
    """``kcl mod ARGUMENTS`` (command ``mod``) or ``kcl registry ARGUMENTS``."""
    parser = argparse.ArgumentParser(prog=f"kcl {command}")
    if command == "registry":
        configure_registry(parser)
        return handle_registry(parser.parse_args(arguments))
    configure_mod(parser)
    return handle_mod(parser.parse_args(arguments))


def _report(error: PackageError, args: argparse.Namespace) -> int:
    from kclpy.diag.render import render_all, use_colour

    sys.stdout.flush()
    colour = not getattr(args, "no_style", False) and use_colour(sys.stderr)
    sys.stderr.write(render_all([error.diagnostic()], "human", colour))
    return EXIT_ERROR


def _root() -> str:
    from kclpy.diag import Code

    root = os.getcwd()
    if not os.path.isfile(os.path.join(root, "kcl.mod")):
        raise PackageError(Code.MOD_FILE_ERROR, f"no kcl.mod in '{root}'", "run 'kcl mod init'")
    return root


def handle_mod(args: argparse.Namespace) -> int:
    """``kcl mod``: run the subcommand; the exit code."""
    from kclpy.mod.settings import locked

    try:
        with locked(bool(getattr(args, "locked", False))):
            return _dispatch(args)
    except PackageError as error:
        return _report(error, args)


def _dispatch(args: argparse.Namespace) -> int:
    from kclpy.mod import operations

    command = args.mod_command
    if command == "init":
        folder = os.path.join(os.getcwd(), args.name) if args.name else os.getcwd()
        operations.init(folder, args.name)
        print(f"package '{args.name or os.path.basename(folder)}' init finished")
    elif command == "add":
        dependency = operations.parse_spec(
            args.spec, git=args.git, tag=args.tag, commit=args.commit, branch=args.branch,
            path=args.path, oci_url=args.oci_url, rename=args.rename,
        )  # fmt: skip
        found = operations.add(_root(), dependency)
        print(f"add dependency '{found.name}:{found.locked.version}' successfully")
    elif command == "remove":
        operations.remove(_root(), args.name)
        print(f"remove dependency '{args.name}' successfully")
    elif command == "update":
        operations.update(_root())
    elif command == "pull":
        found = operations.pull(args.source, args.tag)
        print(f"pulled '{found.locked.name}:{found.locked.version}' into {found.path}")
    elif command == "push":
        digest = operations.push(_root(), args.url, args.force)
        print(f"pushed {args.url or 'to the default registry'}\ndigest: {digest}")
    elif command == "package":
        print(operations.package(_root(), args.target, args.vendor))
    elif command == "graph":
        for line in operations.graph(_root()):
            print(line)
    elif command == "metadata":
        root = _root()
        if args.vendor:
            operations.vendor_dependencies(root)
        print(operations.metadata(root))
    else:
        sys.stderr.write(
            "usage: kcl mod {init,add,remove,update,pull,push,package,graph,metadata}\n"
        )
        return 2
    return EXIT_OK


def handle_registry(args: argparse.Namespace) -> int:
    """``kcl registry login|logout``; credentials are never printed."""
    import getpass

    from kclpy.mod import operations

    try:
        if args.registry_command == "login":
            username = args.username or input("Username: ")
            if args.password_stdin:
                password = sys.stdin.readline().rstrip("\n")
            else:
                password = args.password or getpass.getpass("Password: ")
            operations.login(args.registry, username, password)
            print("Login succeeded")
        elif args.registry_command == "logout":
            operations.logout(args.registry)
            print("Logout succeeded")
        else:
            sys.stderr.write("usage: kcl registry {login,logout}\n")
            return 2
    except EOFError:
        sys.stderr.write("error[E9002]: UsageError\n  no username or password given\n")
        return 2
    except PackageError as error:
        return _report(error, args)
    return EXIT_OK
