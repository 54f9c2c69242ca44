"""Names as the reference importer (kcl-openapi, built on go-swagger) spells them.

A name is cut into words: at characters that are not letters, marks or digits
(``-`` and ``_`` too; ``@ & | $ !`` become the words ``At And Pipe Dollar Bang``),
before each upper-case letter, and around the common initialisms (``API``,
``TLS``, ``ID``... when written in capitals and not followed by a lower-case
letter; a lone word such as ``tls`` counts as one too). ``go_name`` joins the
words capitalised (initialisms in capitals): ``bitnami.com.v1alpha1.SealedSecret``
-> ``BitnamiComV1alpha1SealedSecret``, ``tls_config`` -> ``TLSConfig``;
``human_name`` joins them in lower case with spaces (initialisms kept as
written); ``file_name`` is the snake_case file stem (``IPAMBlock`` ->
``ip_a_m_block``; a stem ending in a Go platform word gets ``_swagger``).
"""

from __future__ import annotations

import unicodedata

import attrs

INITIALISMS = [
    "ACL",
    "API",
    "ASCII",
    "CPU",
    "CSS",
    "DNS",
    "EOF",
    "GUID",
    "HTML",
    "HTTPS",
    "HTTP",
    "ID",
    "IP",
    "IPv4",
    "IPv6",
    "JSON",
    "LHS",
    "OAI",
    "QPS",
    "RAM",
    "RHS",
    "RPC",
    "SLA",
    "SMTP",
    "SQL",
    "SSH",
    "TCP",
    "TLS",
    "TTL",
    "UDP",
    "UI",
    "UID",
    "UUID",
    "URI",
    "URL",
    "UTF8",
    "VM",
    "XML",
    "XMPP",
    "XSRF",
    "XSS",
]
# longest first, then in alphabetical order: the first complete match at a place wins
_ORDERED = sorted(INITIALISMS, key=lambda word: (-len(word), word))
_UPPER = {word.upper(): word for word in INITIALISMS}
_BY_FIRST: dict[str, list[str]] = {}
for _word in _ORDERED:
    _BY_FIRST.setdefault(_word[0], []).append(_word)
_REPLACED = {"@": "At ", "&": "And ", "|": "Pipe ", "$": "Dollar ", "!": "Bang ", "-": "", "_": ""}
# file stems ending in these words get `_swagger` (Go would read them as build constraints)
_PLATFORM_WORDS = frozenset(
    [
        "aix",
        "android",
        "darwin",
        "dragonfly",
        "freebsd",
        "hurd",
        "illumos",
        "js",
        "linux",
        "nacl",
        "netbsd",
        "openbsd",
        "plan9",
        "solaris",
        "windows",
        "zos",
        "386",
        "amd64",
        "amd64p32",
        "arm",
        "armbe",
        "arm64",
        "arm64be",
        "mips",
        "mipsle",
        "mips64",
        "mips64le",
        "mips64p32",
        "mips64p32le",
        "ppc",
        "ppc64",
        "ppc64le",
        "riscv",
        "riscv64",
        "s390",
        "s390x",
        "sparc",
        "sparc64",
        "wasm",
        "test",
    ]
)


@attrs.frozen
class Word:
    """A word of a name: its text as written and, for an initialism, its spelling."""

    text: str
    initialism: str = ""


def words(name: str, *, loose_initialisms: bool = True) -> list[Word]:
    """The words of ``name``; with ``loose_initialisms`` a word like ``tls`` is the
    initialism ``TLS`` too."""
    matches = _initialism_matches(name)
    found: list[Word] = []
    position = 0
    for start, end, initialism in matches:
        if start < position:
            continue
        found += _plain_words(name[position:start], loose_initialisms)
        found.append(Word(initialism, initialism))
        position = end + 1
    found += _plain_words(name[position:], loose_initialisms)
    return found


def _initialism_matches(name: str) -> list[tuple[int, int, str]]:
    """Complete initialisms of ``name`` as (start, end, initialism), by start then
    by priority: a capitalised initialism not followed by a lower-case letter."""
    matches: list[tuple[int, int, str]] = []
    for start, char in enumerate(name):
        for initialism in _BY_FIRST.get(char, ()):
            end = start + len(initialism) - 1
            if name.startswith(initialism, start) and not (
                end + 1 < len(name) and name[end + 1].islower()
            ):
                matches.append((start, end, initialism))
    return matches


def _plain_words(text: str, loose_initialisms: bool) -> list[Word]:
    found: list[Word] = []
    current = ""

    def add(word: str) -> None:
        match = _UPPER.get(word.strip(" ").upper()) if loose_initialisms else None
        found.append(Word(word, match or ""))

    for char in text:
        if char in _REPLACED or not _is_word_char(char):
            if current:
                add(current)
                current = ""
            if _REPLACED.get(char):
                add(_REPLACED[char])
            continue
        if char.isupper() and current:
            add(current)
            current = ""
        current += char
    if current:
        add(current)
    return found


def _is_word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LMN" or unicodedata.category(char) == "Pc"


def go_name(name: str) -> str:
    """``name`` as a Go (and KCL schema) name: capitalised words joined."""
    result = ""
    for word in words(name):
        if word.initialism:
            result += word.initialism.strip(" ").upper()
        elif len(word.text) > 1:
            result += word.text[:1].upper() + word.text[1:].strip(" ").lower()
        else:
            result += word.text
    if not result:
        return result
    first = result[0]
    if not first.isalpha() or (not first.isascii() and not first.isupper()):
        result = _prefix(name) + result
    return result[0].upper() + result[1:]


def _prefix(name: str) -> str:
    """What a name that does not start with a letter is prefixed with."""
    first = name[:1]
    if first.isalpha():
        return ""
    return {"+": "Plus", "-": "Minus", "#": "HashTag"}.get(first, "Nr")


def pascal_name(name: str) -> str:
    """go-swagger's ``pascalize``: ``go_name`` applied twice (``Empty`` for "")."""
    if not name:
        return "Empty"
    if len(name) == 1 and name in "+-#_":
        return _prefix(name)
    return go_name(go_name(name))


def human_name(name: str) -> str:
    """``name`` as lower-case words separated by spaces (initialisms as written)."""
    return " ".join(
        word.text if word.initialism else word.text.strip(" ").lower() for word in words(name)
    )


def file_name(name: str) -> str:
    """The snake_case file stem of a model named ``name``."""
    parts = [
        word.text.strip(" ").lower() for word in words(pascal_name(name), loose_initialisms=False)
    ]
    if parts and parts[-1] in _PLATFORM_WORDS:
        parts.append("swagger")
    return "_".join(parts)
