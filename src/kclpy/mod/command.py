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

from kclpy.diag.console import note, say
from kclpy.mod.errors import PackageError

EXIT_OK = 0
EXIT_ERROR = 1


_MOD_EXAMPLES = {
    "init": "kcl mod init                # kcl.mod, kcl.mod.lock and main.k here\n"
    "kcl mod init demo           # ... in ./demo",
    "add": "kcl mod add k8s:1.31.2\n"
    "kcl mod add oci://ghcr.io/kcl-lang/helloworld --tag 0.1.0\n"
    "kcl mod add --git https://github.com/kcl-lang/konfig --tag v0.4.0\n"
    "kcl mod add ../models --rename models   # a package in a folder",
    "remove": "kcl mod remove k8s",
    "update": "kcl mod update\nkcl mod update --locked     # fail if kcl.mod.lock is out of date",
    "pull": "kcl mod pull k8s:1.31.2\nkcl mod pull oci://localhost:5000/kcl/demo --tag 0.1.0",
    "push": "kcl mod push oci://localhost:5000/kcl/demo\n"
    "kcl mod push --force oci://localhost:5000/kcl/demo",
    "package": "kcl mod package --target demo.tar\nkcl mod package --vendor",
    "graph": "kcl mod graph",
    "metadata": "kcl mod metadata\nkcl mod metadata --vendor",
}


def _examples(lines: str) -> str:
    return "examples:\n" + "\n".join("  " + line for line in lines.splitlines())


def configure_mod(parser: argparse.ArgumentParser) -> None:
    """The subcommands of ``kcl mod`` on ``parser``."""
    from kclpy.diag.console import add_style_options

    commands = parser.add_subparsers(
        dest="mod_command", prog="kcl mod", metavar="COMMAND", help="the package operation"
    )

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help, epilog=_examples(_MOD_EXAMPLES[name]))

    init = command("init", "create kcl.mod, kcl.mod.lock and main.k in a folder")
    init.add_argument(
        "name", nargs="?", default="", help="package name and folder (default: this folder)"
    )
    add = command("add", "add a dependency to kcl.mod and kcl.mod.lock (downloading it)")
    add.add_argument("spec", nargs="?", default="", help="NAME[:VERSION], oci://..., or a folder")
    add.add_argument("--git", default="", metavar="URL", help="a git repository to depend on")
    add.add_argument(
        "--oci", dest="oci_url", default="", metavar="URL", help="an OCI package, oci://HOST/REPO"
    )
    add.add_argument(
        "--tag",
        default="",
        help="the tag (--git, --oci, oci:// SPEC) or the version (NAME SPEC) to take",
    )
    add.add_argument("--commit", default="", help="with --git: the commit to take")
    add.add_argument("--branch", default="", help="with --git: the branch to take")
    add.add_argument(
        "--path", default="", metavar="DIR", help="a package in a local folder (as SPEC DIR)"
    )
    add.add_argument("--rename", default="", help="import the package under this name")
    remove = command("remove", "remove a dependency from kcl.mod and kcl.mod.lock")
    remove.add_argument("name", help="the dependency's name in kcl.mod")
    command("update", "download every dependency again, rewrite the lock")
    pull = command("pull", "download a package into the package cache")
    pull.add_argument("source", help="NAME[:VERSION], oci://HOST/REPO/NAME, or a git URL")
    pull.add_argument("--tag", default="", help="the tag (OCI) or version to pull")
    push = command("push", "push this package to an OCI registry")
    push.add_argument("url", nargs="?", default="", help="oci://HOST/REPO/NAME")
    push.add_argument("--force", action="store_true", help="replace an existing version")
    package = command("package", "write the package as a .tar")
    package.add_argument("--target", default="", help="the archive path")
    package.add_argument("--vendor", action="store_true", help="copy dependencies into vendor/")
    command("graph", "print the dependency graph")
    metadata = command("metadata", "print the resolved packages as JSON")
    metadata.add_argument("--update", action="store_true", help="accepted (always resolves)")
    metadata.add_argument("--vendor", action="store_true", help="vendor the packages first")
    for sub in commands.choices.values():
        add_style_options(sub)  # (its -q also silences the download progress lines)
        sub.add_argument(
            "--locked",
            action="store_true",
            help="fail, changing nothing, if kcl.mod.lock would change (it is out of date)",
        )


def configure_registry(parser: argparse.ArgumentParser) -> None:
    """The subcommands of ``kcl registry`` on ``parser``."""
    from kclpy.diag.console import add_style_options

    commands = parser.add_subparsers(
        dest="registry_command", prog="kcl registry", metavar="COMMAND", help="log in or out"
    )
    login = commands.add_parser(
        "login",
        help="store credentials for a registry (asked for when not given)",
        epilog=_examples(
            "kcl registry login localhost:5000 -u me -p secret\n"
            'echo "$TOKEN" | kcl registry login ghcr.io -u me --password-stdin'
        ),
    )
    login.add_argument("registry", help="the registry's HOST[:PORT]")
    login.add_argument("-u", "--username", default="", help="the user name (default: asked)")
    login.add_argument(
        "-p", "--password", default="", help="the password (default: asked, not echoed)"
    )
    login.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    logout = commands.add_parser(
        "logout",
        help="forget the credentials of a registry",
        epilog=_examples("kcl registry logout localhost:5000"),
    )
    logout.add_argument("registry", help="the registry's HOST[:PORT]")
    for sub in (login, logout):
        add_style_options(sub)


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
    from kclpy.mod.settings import recording_lock_writes

    with recording_lock_writes() as written:
        status = _run(args)
    for path in written:
        note(args, f"wrote {path}")
    return status


def _run(args: argparse.Namespace) -> int:
    from kclpy.mod import operations
    from kclpy.mod.settings import package_home

    command = args.mod_command
    if command == "init":
        folder = os.path.join(os.getcwd(), args.name) if args.name else os.getcwd()
        note(args, f"writing kcl.mod, kcl.mod.lock and main.k in {folder}")
        operations.init(folder, args.name)
        say(args, f"package '{args.name or os.path.basename(folder)}' init finished")
        return EXIT_OK
    if command == "pull":
        note(args, f"downloading {args.source} into the package cache {package_home()}")
        found = operations.pull(args.source, args.tag)
        say(args, f"pulled '{found.locked.name}:{found.locked.version}' into {found.path}")
        return EXIT_OK
    if command not in _MOD_EXAMPLES:
        sys.stderr.write(
            "usage: kcl mod {init,add,remove,update,pull,push,package,graph,metadata}\n"
        )
        return 2
    root = _root()
    note(args, f"reading {os.path.join(root, 'kcl.mod')}")
    return _in_module(args, root)


def _in_module(args: argparse.Namespace, root: str) -> int:
    """The subcommands that work on the module at ``root`` (the current folder)."""
    from kclpy.mod import operations
    from kclpy.mod.settings import package_home

    command = args.mod_command
    if command in ("add", "update"):
        note(args, f"packages are downloaded into {package_home()}")
    if command == "add":
        dependency = operations.parse_spec(
            args.spec, git=args.git, tag=args.tag, commit=args.commit, branch=args.branch,
            path=args.path, oci_url=args.oci_url, rename=args.rename,
        )  # fmt: skip
        found = operations.add(root, dependency)
        note(args, f"wrote {os.path.join(root, 'kcl.mod')}")
        say(args, f"add dependency '{found.name}:{found.locked.version}' successfully")
    elif command == "remove":
        operations.remove(root, args.name)
        note(args, f"wrote {os.path.join(root, 'kcl.mod')}")
        say(args, f"remove dependency '{args.name}' successfully")
    elif command == "update":
        operations.update(root)
    elif command == "push":
        note(args, f"pushing {root} to {args.url or 'the default registry'}")
        digest = operations.push(root, args.url, args.force)
        say(args, f"pushed {args.url or 'to the default registry'}\ndigest: {digest}")
    elif command == "package":
        target = operations.package(root, args.target, args.vendor)
        note(args, f"wrote {target}")
        say(args, target)
    elif command == "graph":
        for line in operations.graph(root):
            say(args, line)
    else:  # metadata
        if args.vendor:
            note(args, f"copying the packages into {os.path.join(root, 'vendor')}")
            operations.vendor_dependencies(root)
        say(args, operations.metadata(root))
    return EXIT_OK


def handle_registry(args: argparse.Namespace) -> int:
    """``kcl registry login|logout``; credentials are never printed."""
    import getpass

    from kclpy.mod import operations
    from kclpy.mod.settings import credentials_file

    try:
        if args.registry_command == "login":
            username = args.username or input("Username: ")
            if args.password_stdin:
                password = sys.stdin.readline().rstrip("\n")
            else:
                password = args.password or getpass.getpass("Password: ")
            note(args, f"storing the credentials of {args.registry} in {credentials_file()}")
            operations.login(args.registry, username, password)
            say(args, "Login succeeded")
        elif args.registry_command == "logout":
            note(args, f"removing the credentials of {args.registry} from {credentials_file()}")
            operations.logout(args.registry)
            say(args, "Logout succeeded")
        else:
            sys.stderr.write("usage: kcl registry {login,logout}\n")
            return 2
    except EOFError:
        sys.stderr.write("error[E9002]: UsageError\n  no username or password given\n")
        return 2
    except PackageError as error:
        return _report(error, args)
    return EXIT_OK
