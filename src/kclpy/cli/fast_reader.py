"""The fast reader of common command lines, without argparse.

A subcommand's options are declared once, in its ``configure(parser)``; here that
function runs against a :class:`Recorder` (argparse's ``add_argument`` signature) to
make the command's option table, and :func:`read_fast` reads a command line with it:
files, options given exactly (``--opt value``, ``--opt=value``, ``-O value``,
``-Ovalue``, ``-O=value``), switches and counts, in any order. It answers only where it
knows for sure that argparse (``parse_intermixed_args``) gives the same namespace;
anything else (help, abbreviations, clusters of short switches, ``--``, values that look
like options, a value its ``type=`` or ``choices`` refuses, a declaration the recorder
does not model) gets no answer, and argparse reads the line as always, with its
messages. Reading ``kcl run``'s common lines so costs a few microseconds instead of
importing argparse, gettext and locale and building a parser (~4 ms of a cold run).

Takes the ``configure`` function and the words after the subcommand; returns the
namespace or None.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

# what argparse's ``action=`` names the reader models, as kinds of option
_KINDS = {
    None: "store",
    "store": "store",
    "append": "append",
    "store_true": "flag",
    "count": "count",
}
_SETTINGS = frozenset(("action", "dest", "metavar", "help", "type", "default", "choices", "nargs"))
_REFUSED = object()  # a value argparse would not take as the reader does


class Unsupported(Exception):
    """A declaration the reader does not model: the command is left to argparse."""


class Option:
    """One declared option: where its value goes and how it is taken."""

    __slots__ = ("choices", "default", "dest", "kind", "type")

    def __init__(self, dest: str, kind: str, settings: dict[str, Any]) -> None:
        self.dest = dest
        self.kind = kind  # store, append, flag, count, or help (argparse's -h)
        self.type: Callable[[str], Any] | None = settings.get("type")
        self.choices: Any = settings.get("choices")
        self.default: Any = settings.get("default", False if kind == "flag" else None)


class Recorder:
    """Stands for an ``argparse.ArgumentParser`` while ``configure`` declares its
    arguments: records each one; anything it does not model raises :class:`Unsupported`."""

    def __init__(self) -> None:
        self.options: dict[str, Option] = {}
        self.positional: str | None = None  # the dest of the one nargs="*" positional
        self._add(("-h", "--help"), Option("help", "help", {}))  # (add_help=True)

    def __getattr__(self, name: str) -> Any:
        raise Unsupported(name)  # add_subparsers, set_defaults, groups, ...

    def add_argument(self, *names: str, **settings: Any) -> None:
        """Record an argument as argparse would declare it, or raise Unsupported."""
        action = settings.get("action")
        if not names or set(settings) - _SETTINGS or not isinstance(action, (str, type(None))):
            raise Unsupported(names)
        kind = _KINDS.get(action)
        if kind is None or (settings.get("type") is not None and not callable(settings["type"])):
            raise Unsupported(names)
        if not names[0].startswith("-"):
            self._add_positional(names, kind, settings)
            return
        if "nargs" in settings or any(len(name) < 2 for name in names):
            raise Unsupported(names)
        if kind in ("flag", "count") and {"type", "choices"} & set(settings):
            raise Unsupported(names)
        if isinstance(settings.get("default"), str) and settings.get("type") is not None:
            raise Unsupported(names)  # (argparse converts such a default: not modelled)
        dest = settings.get("dest") or _dest(names)
        if dest == self.positional or any(known.dest == dest for known in self.options.values()):
            raise Unsupported(dest)  # (argparse: the first default of a dest wins; not modelled)
        self._add(names, Option(dest, kind, settings))

    def _add_positional(self, names: tuple[str, ...], kind: str, settings: dict[str, Any]) -> None:
        modelled = {"nargs", "help", "metavar"}
        if len(names) != 1 or settings.get("nargs") != "*" or kind != "store":
            raise Unsupported(names)
        if set(settings) - modelled - {"action"} or self.positional is not None:
            raise Unsupported(names)
        if any(known.dest == names[0] for known in self.options.values()):
            raise Unsupported(names)
        self.positional = names[0]

    def _add(self, names: tuple[str, ...], option: Option) -> None:
        for name in names:
            if name in self.options:
                raise Unsupported(name)  # (argparse: a conflicting option string)
            self.options[name] = option


def _dest(names: tuple[str, ...]) -> str:
    """argparse's dest of an option without ``dest=``: its first long name, else its first."""
    chosen = next((name for name in names if name.startswith("--")), names[0])
    return chosen.lstrip("-").replace("-", "_")


_TABLES: dict[Callable[..., None], Recorder | None] = {}


def option_table(configure: Callable[[argparse.ArgumentParser], None]) -> Recorder | None:
    """The options ``configure`` declares (recorded once per process), or None when it
    declares something the reader does not model."""
    if configure not in _TABLES:
        recorder = Recorder()
        stand_in: Any = recorder  # passed where an argparse.ArgumentParser is declared
        try:  # (the recorder has add_argument only; anything else raises Unsupported)
            configure(stand_in)
        except Unsupported:
            _TABLES[configure] = None
        else:
            _TABLES[configure] = recorder
    return _TABLES[configure]


def read_fast(
    configure: Callable[[argparse.ArgumentParser], None], words: list[str]
) -> argparse.Namespace | None:
    """The namespace argparse's ``parse_intermixed_args`` would make of ``words`` for
    the options ``configure`` declares, or None when the reader is not sure."""
    table = option_table(configure)
    if table is None:
        return None
    values = {option.dest: _fresh(option.default) for option in table.options.values()}
    del values["help"]
    positionals: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "-" or not word.startswith("-"):
            positionals.append(word)
            continue
        found = _find(table.options, word)
        if found is None:
            return None
        option, explicit = found
        if option.kind in ("flag", "count"):
            if explicit is not None:
                return None
            values[option.dest] = True if option.kind == "flag" else values[option.dest] + 1
            continue
        if option.kind == "help":
            return None
        if explicit is None:
            if index == len(words) or not _plain(words[index]):
                return None
            explicit = words[index]
            index += 1
        value = _converted(option, explicit)
        if value is _REFUSED:
            return None
        values[option.dest] = (
            [*(values[option.dest] or ()), value] if option.kind == "append" else value
        )
    if table.positional is not None:
        values[table.positional] = positionals
    elif positionals:
        return None
    loose: Any = SimpleNamespace(**values)  # (what an argparse.Namespace would hold)
    namespace: argparse.Namespace = loose
    return namespace


def _find(options: dict[str, Option], word: str) -> tuple[Option, str | None] | None:
    """The option a word names exactly and its attached value (None: none), as
    argparse finds it; None where argparse would look further (abbreviations)."""
    if word in options:
        return options[word], None
    name, equals, rest = word.partition("=")
    if equals and name in options:
        return options[name], rest
    if word.startswith("--") or any(known.startswith(word) for known in options):
        return None
    short = options.get(word[:2])
    return None if short is None else (short, word[2:])


def _plain(word: str) -> bool:
    """Whether argparse takes ``word`` as a value rather than as an option."""
    return word == "-" or not word.startswith("-")


def _converted(option: Option, text: str) -> Any:
    """The value of ``text`` through the option's ``type=`` and ``choices``; _REFUSED
    where argparse would report an error (its message is argparse's to give)."""
    if text == "--":  # (argparse drops a '--' among an option's values)
        return _REFUSED
    value: Any = text
    if option.type is not None:
        try:
            value = option.type(text)
        except Exception:  # (argparse reports it, or lets it through: its call)
            return _REFUSED
    if option.choices is not None and value not in option.choices:
        return _REFUSED
    return value


def _fresh(default: Any) -> Any:
    """A default as the namespace holds it (a list copied: argparse appends to a copy)."""
    return list(default) if isinstance(default, list) else default
