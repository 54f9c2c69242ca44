"""The names the language itself provides, declared once for every stage.

Owns the declaration of everything KCL offers without a user's definition: the
builtin functions, the methods of strings, the decorators, the schema member
functions, the system modules (``import math``, ``import yaml``, ...) with every
member's signature and doc, and the prefix of plugin packages (``kcl_plugin.``).
The loader resolves imports against it, sema turns the signatures into types
(:mod:`kclpy.sema.builtins`), the VM registry binds each declared name to its
implementation and fails on a name declared but not implemented or implemented
but not declared (:mod:`kclpy.vm.builtins.registry`), and the language server
completes and describes the names from it. Takes nothing and imports nothing from
the project, so every stage may read it.

The declarations are text, split into :class:`Declaration` records on first use
(``kcl run`` imports this module on every start and reads only the names). One
declaration per line at the left margin::

    name(param: T, optional?: T, ...) -> R     a function; "..." accepts any extra argument
    name: T                                    a value (``units.Ki``)
        -> R                                   (indented) the rest of a long signature:
                                               a line starting "->", or any line while
                                               a parenthesis is open
        One sentence about it.                 (indented) otherwise, its doc

Types are written ``any int float str bool None number iterable multiplier``,
``[T]``, ``{K:V}``, ``A|B`` and ``fn(A,B)->R``; sema reads them.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

PLUGIN_ROOT: Final = "kcl_plugin"
"""The package that host plugins appear under: ``import kcl_plugin.hello``."""

PLUGIN_PREFIX: Final = PLUGIN_ROOT + "."


class Declaration:
    """One builtin name: its signature in the notation above and its doc."""

    __slots__ = ("doc", "name", "signature")

    def __init__(self, name: str, signature: str, doc: str) -> None:
        self.name = name
        self.signature = signature  # "(x: number) -> int" for a function, ": T" for a value
        self.doc = doc  # "" when there is none

    @property
    def is_function(self) -> bool:
        return self.signature.startswith("(")

    def __repr__(self) -> str:
        return f"Declaration({self.name}{self.signature})"


def is_plugin(path: str) -> bool:
    """Whether import path ``path`` names a host plugin (``kcl_plugin.hello``)."""
    return path.startswith(PLUGIN_PREFIX)


_BUILTIN_FUNCTIONS = """
option(key: str, type?: str, required?: bool, default?: any, help?: str) -> any
    Return the value of a top-level argument (-D key=value) by its key.
print(...) -> None
    Print the values, separated by spaces, to standard output.
multiplyof(a: int, b: int) -> bool
    Whether a is a multiple of b.
isunique(inval: [any]) -> bool
    Whether the list has no repeated item.
isnullish(inval: any) -> bool
    Whether the value is None or Undefined.
len(inval: iterable) -> int
    Return the length of a string, list or dict.
abs(inval: any) -> any
    Return the absolute value of a number.
all_true(inval: [any]) -> bool
    Whether every item of the list is truthy (True for an empty list).
any_true(inval: [any]) -> bool
    Whether some item of the list is truthy (False for an empty list).
hex(number: int) -> str
    Return the integer as hexadecimal text with a 0x prefix.
bin(number: int) -> str
    Return the integer as binary text with a 0b prefix.
oct(number: int) -> str
    Return the integer as octal text with a 0o prefix.
ord(c: str) -> int
    Return the Unicode code point of a one-character string.
sorted(inval: iterable, reverse?: bool) -> [any]
    Return a new list of the items in ascending order (descending with reverse=True).
range(start?: int, stop?: int, step?: int) -> [int]
    Return the list of integers from start (default 0) up to stop, by step.
max(...) -> any
    Return the largest of the arguments, or of the items of one list argument.
min(...) -> any
    Return the smallest of the arguments, or of the items of one list argument.
sum(iterable: [any], start?: any) -> any
    Return start (default 0) plus every item of the list.
pow(x: number, y: number, z?: number) -> number
    Return x to the power y, modulo z when z is given.
round(number: number, ndigits?: int) -> number
    Return the number rounded to ndigits decimal digits (to an integer without ndigits).
zip(...) -> [any]
    Return the list of lists that pair the items of the argument lists by position.
int(number: any, base?: int) -> int
    Convert a number or numeric text (in the given base) to an integer.
float(number: any) -> float
    Convert a number or numeric text to a float.
bool(x?: any) -> bool
    Return the truth value of x.
str(x?: any) -> str
    Return the text form of x.
list(x?: any) -> [any]
    Return a new list of the items of x (the keys of a dict).
dict(x?: any, ...) -> {any:any}
    Return a new dict from a dict, a list of pairs, or keyword arguments.
typeof(x: any, full_name?: bool) -> str
    Return the type name of a value.
reduce(reducer: fn(any, any)->any, list: [any], initial?: any) -> any
    Fold the list from the left with reducer, starting from initial when given.
"""

_STRING_METHODS = """
capitalize() -> str
    Return the string with its first character upper-case and the rest lower-case.
chars() -> [str]
    Return the list of the string's characters.
count(sub: str, start?: int, end?: int) -> int
    Return the number of non-overlapping occurrences of sub.
endswith(val: str, start?: int, end?: int) -> bool
    Whether the string ends with val.
find(sub: str, start?: int, end?: int) -> int
    Return the lowest index of sub in the string, or -1.
format(...) -> str
    Return the string with its {} replacement fields filled from the arguments.
index(sub: str, start?: int, end?: int) -> int
    Return the lowest index of sub in the string; an error when it is absent.
isalpha() -> bool
    Whether the string is not empty and all its characters are letters.
isalnum() -> bool
    Whether the string is not empty and all its characters are letters or digits.
isdigit() -> bool
    Whether the string is not empty and all its characters are digits.
islower() -> bool
    Whether the string has cased characters and all of them are lower-case.
isspace() -> bool
    Whether the string is not empty and all its characters are whitespace.
istitle() -> bool
    Whether the string is title-cased: each word starts upper-case, the rest lower-case.
isupper() -> bool
    Whether the string has cased characters and all of them are upper-case.
join(iter: [any]) -> str
    Return the items of the list joined by this string.
lower() -> str
    Return the string in lower case.
upper() -> str
    Return the string in upper case.
lstrip(chars?: str) -> str
    Return the string without leading whitespace (or leading characters in chars).
rstrip(chars?: str) -> str
    Return the string without trailing whitespace (or trailing characters in chars).
replace(old: str, new: str, count?: int) -> str
    Return the string with occurrences of old replaced by new (the first count only).
removeprefix(prefix: str) -> str
    Return the string without prefix when it starts with it.
removesuffix(suffix: str) -> str
    Return the string without suffix when it ends with it.
rfind(sub: str, start?: int, end?: int) -> int
    Return the highest index of sub in the string, or -1.
rindex(sub: str, start?: int, end?: int) -> int
    Return the highest index of sub in the string; an error when it is absent.
rsplit(sep?: str, maxsplit?: int) -> [str]
    Split at sep (whitespace by default) from the right, at most maxsplit times.
split(sep?: str, maxsplit?: int) -> [str]
    Split at sep (whitespace by default), at most maxsplit times.
splitlines(keepends?: bool) -> [str]
    Return the lines of the string, with their line breaks when keepends is True.
startswith(val: str, start?: int, end?: int) -> bool
    Whether the string starts with val.
strip(chars?: str) -> str
    Return the string without leading and trailing whitespace (or characters in chars).
title() -> str
    Return the string with each word starting upper-case.
"""

_DECORATORS = """
deprecated(version?: str, reason?: str, strict?: bool) -> any
    Mark a schema or attribute as deprecated; strict=False makes its use a warning.
info(...) -> any
    Attach information to a schema or attribute; it has no effect on the result.
"""

_SCHEMA_MEMBER_FUNCTIONS = """
instances(full_pkg?: bool) -> [any]
    Return the instances of the schema made so far (in every package with full_pkg).
"""

_UNITS = ("n", "u", "m", "K", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi")  # and k: no to_k

_MODULES: Final[dict[str, str]] = {
    "base64": """
encode(value: str, encoding?: str) -> str
    Encode the UTF-8 bytes of the text in base64 (encoding is accepted and ignored).
decode(value: str) -> str
    Decode base64 text into the text it encodes.
""",
    "base32": """
encode(value: str) -> str
    Encode the text (as UTF-8) in base32.
decode(value: str) -> str
    Decode base32 text into the text it encodes.
""",
    "net": """
CIDR_host(cidr: str, host_num: int) -> str
    Return the address of host number host_num in the network.
CIDR_netmask(cidr: str) -> str
    Return the netmask of the network.
CIDR_subnet(cidr: str, additional_bits: int, net_num: int) -> str
    Return subnet number net_num of the network, additional_bits longer in prefix.
CIDR_subnets(cidr: str, additional_bits: [int]) -> [str]
    Return subnets of the network, one per extra prefix length in the list, each in
    the first free block.
split_host_port(ip_end_point: str) -> [str]
    Split "host:port" into its host and its port.
join_host_port(host: str, port: int|str) -> str
    Join a host and a port into "host:port" ("[host]:port" for IPv6).
fqdn(name?: str) -> str
    Return the fully qualified domain name of a host name (of this host by default).
parse_IP(ip: str) -> str
    Return the address in its canonical text form ("" when it is not an address).
IP_string(ip: str) -> str
    Return the address in its canonical text form ("" when it is not an address).
to_IP4(ip: str) -> str
    Return the IPv4 form of the address (an IPv4-mapped IPv6 address too).
to_IP6(ip: str) -> str
    Return the IPv6 form of the address (::ffff:a.b.c.d for IPv4).
is_IPv4(ip: str) -> bool
    Whether the text is an IPv4 address.
is_IPv6(ip: str) -> bool
    Whether the text is an IPv6 address.
is_IP(ip: str) -> bool
    Whether the text is an IPv4 or IPv6 address.
is_loopback_IP(ip: str) -> bool
    Whether the address is a loopback address.
is_multicast_IP(ip: str) -> bool
    Whether the address is a multicast address.
is_interface_local_multicast_IP(ip: str) -> bool
    Whether the address is an interface-local multicast address.
is_link_local_multicast_IP(ip: str) -> bool
    Whether the address is a link-local multicast address.
is_link_local_unicast_IP(ip: str) -> bool
    Whether the address is a link-local unicast address.
is_global_unicast_IP(ip: str) -> bool
    Whether the address is a global unicast address.
is_unspecified_IP(ip: str) -> bool
    Whether the address is the unspecified address (0.0.0.0 or ::).
parse_CIDR(cidr: str) -> {str:any}
    Return {ip, mask} of a network in CIDR notation ({} when it is not one).
is_IP_in_CIDR(ip: str, cidr: str) -> bool
    Whether the address lies in the network.
""",
    "manifests": """
yaml_stream(values: any, opts?: {str:any}) -> any
    Make the program's output the YAML stream of the values, one document each.
""",
    "math": """
ceil(x: number) -> int
    Return the smallest integer not less than x.
factorial(x: number) -> int
    Return x factorial.
floor(x: number) -> int
    Return the largest integer not greater than x.
gcd(a: int, b: int) -> int
    Return the greatest common divisor of a and b.
isfinite(x: number) -> bool
    Whether x is neither infinite nor NaN.
isinf(x: number) -> bool
    Whether x is positive or negative infinity.
isnan(x: number) -> bool
    Whether x is NaN.
modf(x: number) -> [float]
    Return the fractional and the integer parts of x.
exp(x: number) -> float
    Return e to the power x.
expm1(x: number) -> float
    Return e to the power x, minus 1.
log(x: number, e?: float) -> float
    Return the logarithm of x to base e (the natural logarithm by default).
log1p(x: number) -> float
    Return the natural logarithm of 1 + x.
log2(x: number) -> float
    Return the base-2 logarithm of x.
log10(x: number) -> float
    Return the base-10 logarithm of x.
pow(x: number, y: number) -> float
    Return x to the power y.
sqrt(x: number) -> float
    Return the square root of x.
""",
    "datetime": """
ticks() -> float
    Return the current time in seconds since the epoch.
date() -> str
    Return the local date and time as "YYYY-MM-DD HH:MM:SS".
now(format?: str) -> str
    Return the local time, formatted by a chrono-style format when given.
today() -> str
    Return the current local date and time with microseconds.
validate(date: str, format: str) -> bool
    Whether the text parses with the chrono-style format as a date, a time or both.
is_rfc3339(date: str) -> bool
    Whether the text is an RFC 3339 date-time with an offset.
is_iso8601(date: str) -> bool
    Whether the text is an ISO 8601 date-time (the strings is_rfc3339 accepts).
""",
    "regex": """
replace(string: str, pattern: str, replace: str, count?: int) -> str
    Return the string with the matches of the pattern replaced (the first count only
    when count is positive).
match(string: str, pattern: str) -> bool
    Whether the pattern occurs anywhere in the string (not anchored, as the reference).
compile(pattern: str) -> bool
    Whether the pattern is a valid regular expression.
findall(string: str, pattern: str) -> [str]
    Return every match of the pattern (the groups of each match when it has two or more).
search(string: str, pattern: str) -> bool
    Whether the pattern matches anywhere in the string.
split(string: str, pattern: str, maxsplit?: int) -> [str]
    Split the string at matches of the pattern, at most maxsplit times.
""",
    "yaml": """
encode(data: any, sort_keys?: bool, ignore_private?: bool, ignore_none?: bool) -> str
    Return the value as a YAML document.
encode_all(data: [any], sort_keys?: bool, ignore_private?: bool, ignore_none?: bool)
    -> str
    Return the values of the list as a stream of YAML documents.
decode(value: str) -> any
    Return the value of a YAML document.
decode_all(value: str) -> [any]
    Return the values of every document of a YAML stream.
dump_to_file(data: any, filename: str, sort_keys?: bool, ignore_private?: bool,
    ignore_none?: bool) -> str
    Write the value as a YAML document to a file.
dump_all_to_file(data: [any], filename: str, sort_keys?: bool, ignore_private?: bool,
    ignore_none?: bool) -> str
    Write the values of the list as a stream of YAML documents to a file.
validate(value: str) -> bool
    Whether the text is valid YAML.
""",
    "json": """
encode(data: any, sort_keys?: bool, indent?: int, ignore_private?: bool, ignore_none?: bool)
    -> str
    Return the value as JSON text (indented by indent spaces when given).
decode(value: str) -> any
    Return the value of JSON text.
dump_to_file(data: any, filename: str, sort_keys?: bool, indent?: int,
    ignore_private?: bool, ignore_none?: bool) -> str
    Write the value as JSON text to a file.
validate(value: str) -> bool
    Whether the text is valid JSON.
merge(src: any, patch: any) -> any
    Return src with the JSON merge patch (RFC 7396) applied.
""",
    "toml": """
encode(data: any, sort_keys?: bool, ignore_private?: bool, ignore_none?: bool) -> str
    Return the dict as TOML text (a kclpy extension: the reference has no toml module).
decode(value: str) -> any
    Return the table that TOML text describes (a kclpy extension).
""",
    "crypto": """
md5(value: str, encoding?: str) -> str
    Return the hex MD5 digest of the text.
sha1(value: str, encoding?: str) -> str
    Return the hex SHA-1 digest of the text.
sha224(value: str, encoding?: str) -> str
    Return the hex SHA-224 digest of the text.
sha256(value: str, encoding?: str) -> str
    Return the hex SHA-256 digest of the text.
sha384(value: str, encoding?: str) -> str
    Return the hex SHA-384 digest of the text.
sha512(value: str, encoding?: str) -> str
    Return the hex SHA-512 digest of the text.
blake3(value: str, encoding?: str) -> str
    Return the hex BLAKE3 digest of the text.
uuid() -> str
    Return a new random UUID.
filesha256(filepath: str) -> str
    Return the hex SHA-256 digest of a file's content.
""",
    "units": "\n".join(
        [f"to_{unit}(num: number) -> str\n    The number in unit {unit}." for unit in _UNITS]
        + [f"{unit}: any\n    The multiplier of unit {unit}." for unit in ("k", *_UNITS)]
        + ["NumberMultiplier: multiplier\n    The type of numbers with a unit suffix (1Ki)."]
    ),
    "collection": """
union_all(num: [any]) -> any
    Return the union of the dicts of the list, merged in order ({} for an empty list).
""",
    "file": """
read(filepath: str) -> str
    Return the content of a file.
glob(pattern: str) -> [str]
    Return the paths that match a glob pattern, absolute and sorted.
modpath() -> str
    Return the root folder of the module (where kcl.mod is).
workdir() -> str
    Return the working folder of the run.
current() -> str
    Return the path of the file that is running.
exists(filepath: str) -> bool
    Whether a file or folder exists.
abs(filepath: str) -> str
    Return the absolute form of a path.
append(filepath: str, content: str) -> any
    Append text to a file.
mkdir(directory: str, exists?: bool) -> any
    Make a folder (and its parents); exists=True accepts one that already exists.
delete(filepath: str) -> any
    Delete a file or folder.
cp(src: str, dest: str) -> any
    Copy a file or folder.
mv(src: str, dest: str) -> any
    Move a file or folder.
size(filepath: str) -> int
    Return the size of a file in bytes.
write(filepath: str, content: str) -> any
    Write text to a file, replacing its content.
read_env(key: str) -> str
    Return the value of an environment variable (Undefined when it is not set).
""",
    "template": """
execute(template: str, data?: {str:any}) -> str
    Render a Handlebars template with the data.
html_escape(data: str) -> str
    Return the text with HTML's special characters escaped.
""",
    "runtime": """
catch(func: fn()->any) -> str
    Call the function; return the message of the error it raises (Undefined if none).
""",
}

SYSTEM_MODULES: Final = frozenset(_MODULES)
"""The names of the system modules: ``import math``, ``import yaml``, ..."""

_parsed: dict[str, dict[str, Declaration]] = {}


def _declarations(key: str, text: str) -> Mapping[str, Declaration]:
    """The declarations of ``text`` (the notation in the module docstring), read once."""
    table = _parsed.get(key)
    if table is not None:
        return table
    table = {}
    last: Declaration | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not line[0].isspace():
            last = _declaration(stripped)
            table[last.name] = last
        elif last is None:
            raise ValueError(f"an indented line before any declaration: {line!r}")
        elif stripped.startswith("->") or last.signature.count("(") > last.signature.count(")"):
            last.signature += " " + stripped
        else:
            last.doc = f"{last.doc} {stripped}".lstrip()
    _parsed[key] = table
    return table


def _declaration(line: str) -> Declaration:
    """``name(params) -> R`` or ``name: T``, without its doc."""
    call = line.find("(")
    colon = line.find(":")
    cut = call if call != -1 and (colon == -1 or call < colon) else colon
    return Declaration(line[:cut].strip(), line[cut:].strip(), "")


def split_top_level(text: str, separator: str) -> list[str]:
    """``text`` split at each ``separator`` outside brackets, each part stripped (an
    empty last part dropped): ``"a: [int], b: {str:int}"`` at ``,``, ``"int|[str]"``
    at ``|``."""
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    last = text[start:].strip()
    if last or not parts:
        parts.append(last)
    return parts


class Parameter:
    """One parameter of a function's signature: its name, its type's text, whether
    it may be left out (``name?: T``)."""

    __slots__ = ("name", "optional", "type_text")

    def __init__(self, name: str, type_text: str, optional: bool) -> None:
        self.name = name
        self.type_text = type_text
        self.optional = optional


def read_signature(signature: str) -> tuple[list[Parameter], bool, str]:
    """A function's signature ``(a: int, b?: str, ...) -> R``: its parameters, whether
    ``...`` accepts more, and the text of its result type ("" when none is written)."""
    depth = 0
    close = len(signature)
    for index, char in enumerate(signature):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                close = index
                break
    parameters: list[Parameter] = []
    variadic = False
    for part in split_top_level(signature[1:close], ","):
        if part == "...":
            variadic = True
        elif part:
            name, _, type_text = part.partition(":")
            name = name.strip()
            parameters.append(Parameter(name.rstrip("?"), type_text.strip(), name.endswith("?")))
    result = signature[close + 1 :].strip().removeprefix("->").strip()
    return parameters, variadic, result


def builtin_functions() -> Mapping[str, Declaration]:
    """The functions callable without an import (``len``, ``option``, ...)."""
    return _declarations("#builtins", _BUILTIN_FUNCTIONS)


def string_methods() -> Mapping[str, Declaration]:
    """The methods of strings (``"a".upper()``)."""
    return _declarations("#str", _STRING_METHODS)


def decorators() -> Mapping[str, Declaration]:
    """The decorators of schemas and attributes (``@deprecated``)."""
    return _declarations("#decorators", _DECORATORS)


def schema_member_functions() -> Mapping[str, Declaration]:
    """The functions of a schema type (``Person.instances()``)."""
    return _declarations("#schema", _SCHEMA_MEMBER_FUNCTIONS)


def module_members(module: str) -> Mapping[str, Declaration]:
    """The members of system module ``module`` (a KeyError when there is no such module)."""
    return _declarations(module, _MODULES[module])
