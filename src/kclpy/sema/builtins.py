"""Signatures of the builtin functions, string methods, decorators and system modules.

The signatures are written in a small text notation and parsed once at import:
``name(param: T, optional?: T) -> R``; ``...`` as the last parameter makes the
function variadic (any extra positional or keyword argument is accepted). Types
are ``any int float str bool None number iterable``, ``[T]``, ``{K:V}``,
``A|B`` and function types ``fn(A,B)->R``. A module member that is not a
function (``units.Ki``) is listed as ``name: T``.
"""

from __future__ import annotations

from kclpy.sema.types import (
    ANY,
    BOOL_T,
    FLOAT_T,
    INT_T,
    ITERABLE_T,
    NONE,
    NUMBER_T,
    NUMMUL_T,
    STR_T,
    DictType,
    FuncType,
    ListType,
    Param,
    Type,
    UnionType,
)

_NAMED: dict[str, Type] = {
    "any": ANY,
    "int": INT_T,
    "float": FLOAT_T,
    "str": STR_T,
    "bool": BOOL_T,
    "None": NONE,
    "number": NUMBER_T,
    "iterable": ITERABLE_T,
    "multiplier": NUMMUL_T,
}


class _TypeReader:
    """Reads one type of the signature notation."""

    def __init__(self, text: str) -> None:
        self.text = text.replace(" ", "")
        self.pos = 0

    def read(self) -> Type:
        first = self.atom()
        members = [first]
        while self.peek("|"):
            self.pos += 1
            members.append(self.atom())
        return members[0] if len(members) == 1 else UnionType(tuple(members))

    def peek(self, char: str) -> bool:
        return self.text.startswith(char, self.pos)

    def expect(self, char: str) -> None:
        if not self.peek(char):
            raise ValueError(f"bad signature type {self.text!r} at {self.pos}")
        self.pos += len(char)

    def atom(self) -> Type:
        if self.peek("["):
            self.pos += 1
            elem = self.read()
            self.expect("]")
            return ListType(elem)
        if self.peek("{"):
            self.pos += 1
            key = self.read()
            self.expect(":")
            val = self.read()
            self.expect("}")
            return DictType(key, val)
        if self.peek("fn("):
            self.pos += 3
            params: list[Param] = []
            while not self.peek(")"):
                params.append(Param(f"arg{len(params)}", self.read()))
                if self.peek(","):
                    self.pos += 1
            self.expect(")->")
            return FuncType(params, self.read())
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum()):
            self.pos += 1
        return _NAMED[self.text[start : self.pos]]


def parse_type(text: str) -> Type:
    return _TypeReader(text).read()


def _split_params(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def parse_signature(line: str) -> tuple[str, Type]:
    """``name(p: T, q?: T, ...) -> R`` (a function) or ``name: T`` (a value)."""
    line = line.strip()
    if "(" not in line.split(":", 1)[0]:
        name, _, type_text = line.partition(":")
        return name.strip(), parse_type(type_text)
    name, _, rest = line.partition("(")
    params_text, _, ret_text = rest.rpartition(")")
    params: list[Param] = []
    variadic = False
    for part in _split_params(params_text):
        if part == "...":
            variadic = True
            continue
        param_name, _, type_text = part.partition(":")
        optional = param_name.endswith("?")
        params.append(Param(param_name.rstrip("?").strip(), parse_type(type_text), optional))
    ret = parse_type(ret_text.strip().removeprefix("->")) if ret_text.strip() else ANY
    return name.strip(), FuncType(params, ret, variadic)


def _table(text: str) -> dict[str, Type]:
    """Signatures one per line; a line starting with ``->`` continues the previous one."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        if line.strip().startswith("->") and lines:
            lines[-1] += " " + line.strip()
        elif line.strip():
            lines.append(line)
    table: dict[str, Type] = {}
    for line in lines:
        name, signature = parse_signature(line)
        table[name] = signature
    return table


BUILTIN_FUNCTIONS = _table(
    """
    option(key: str, type?: str, required?: bool, default?: any, help?: str) -> any
    print(...) -> None
    multiplyof(a: int, b: int) -> bool
    isunique(inval: [any]) -> bool
    isnullish(inval: any) -> bool
    len(inval: iterable) -> int
    abs(inval: any) -> any
    all_true(inval: [any]) -> bool
    any_true(inval: [any]) -> bool
    hex(number: int) -> str
    bin(number: int) -> str
    oct(number: int) -> str
    ord(c: str) -> int
    sorted(inval: iterable, reverse?: bool) -> [any]
    range(start?: int, stop?: int, step?: int) -> [int]
    max(...) -> any
    min(...) -> any
    sum(iterable: [any], start?: any) -> any
    pow(x: number, y: number, z?: number) -> number
    round(number: number, ndigits?: int) -> number
    zip(...) -> [any]
    int(number: any, base?: int) -> int
    float(number: any) -> float
    bool(x?: any) -> bool
    str(x?: any) -> str
    list(x?: any) -> [any]
    dict(x?: any, ...) -> {any:any}
    typeof(x: any, full_name?: bool) -> str
    reduce(reducer: fn(any, any)->any, list: [any], initial?: any) -> any
    """
)

STRING_METHODS = _table(
    """
    capitalize() -> str
    chars() -> [str]
    count(sub: str, start?: int, end?: int) -> int
    endswith(val: str, start?: int, end?: int) -> bool
    find(sub: str, start?: int, end?: int) -> int
    format(...) -> str
    index(sub: str, start?: int, end?: int) -> int
    isalpha() -> bool
    isalnum() -> bool
    isdigit() -> bool
    islower() -> bool
    isspace() -> bool
    istitle() -> bool
    isupper() -> bool
    join(iter: [any]) -> str
    lower() -> str
    upper() -> str
    lstrip(chars?: str) -> str
    rstrip(chars?: str) -> str
    replace(old: str, new: str, count?: int) -> str
    removeprefix(prefix: str) -> str
    removesuffix(suffix: str) -> str
    rfind(sub: str, start?: int, end?: int) -> int
    rindex(sub: str, start?: int, end?: int) -> int
    rsplit(sep?: str, maxsplit?: int) -> [str]
    split(sep?: str, maxsplit?: int) -> [str]
    splitlines(keepends?: bool) -> [str]
    startswith(val: str, start?: int, end?: int) -> bool
    strip(chars?: str) -> str
    title() -> str
    """
)

DECORATORS = _table(
    """
    deprecated(version?: str, reason?: str, strict?: bool) -> any
    info(...) -> any
    """
)
DECORATOR_DOCS = {
    "deprecated": "Mark a schema or an attribute as deprecated: using it is a warning, or an"
    " error with strict=True (the default); version and reason are shown in the message.",
    "info": "Attach compile-time information (any keyword arguments) to a schema or an"
    " attribute, for tools that query it; it has no effect on the program.",
}

SCHEMA_MEMBER_FUNCTIONS = _table(
    """
    instances(full_pkg?: bool) -> [any]
    """
)

_ENCODING = "encoding?: str"
_UNITS = ("n", "u", "m", "k", "K", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi")
_PRIVATE_NONE = "ignore_private?: bool, ignore_none?: bool"
_DUMP_FLAGS = f"sort_keys?: bool, {_PRIVATE_NONE}"

SYSTEM_MODULES: dict[str, dict[str, Type]] = {
    "base64": _table(
        f"""
        encode(value: str, {_ENCODING}) -> str
        decode(value: str) -> str
        """
    ),
    "base32": _table(
        """
        encode(value: str) -> str
        decode(value: str) -> str
        """
    ),
    "net": _table(
        """
        CIDR_host(cidr: str, host_num: int) -> str
        CIDR_netmask(cidr: str) -> str
        CIDR_subnet(cidr: str, additional_bits: int, net_num: int) -> str
        CIDR_subnets(cidr: str, additional_bits: [int]) -> [str]
        split_host_port(ip_end_point: str) -> [str]
        join_host_port(host: str, port: int|str) -> str
        fqdn(name?: str) -> str
        parse_IP(ip: str) -> str
        IP_string(ip: str) -> str
        to_IP4(ip: str) -> str
        to_IP6(ip: str) -> str
        is_IPv4(ip: str) -> bool
        is_IPv6(ip: str) -> bool
        is_IP(ip: str) -> bool
        is_loopback_IP(ip: str) -> bool
        is_multicast_IP(ip: str) -> bool
        is_interface_local_multicast_IP(ip: str) -> bool
        is_link_local_multicast_IP(ip: str) -> bool
        is_link_local_unicast_IP(ip: str) -> bool
        is_global_unicast_IP(ip: str) -> bool
        is_unspecified_IP(ip: str) -> bool
        parse_CIDR(cidr: str) -> {str:any}
        is_IP_in_CIDR(ip: str, cidr: str) -> bool
        """
    ),
    "manifests": _table(
        """
        yaml_stream(values: any, opts?: {str:any}) -> any
        """
    ),
    "math": _table(
        """
        ceil(x: number) -> int
        factorial(x: number) -> int
        floor(x: number) -> int
        gcd(a: int, b: int) -> int
        isfinite(x: number) -> bool
        isinf(x: number) -> bool
        isnan(x: number) -> bool
        modf(x: number) -> [float]
        exp(x: number) -> float
        expm1(x: number) -> float
        log(x: number, e?: float) -> float
        log1p(x: number) -> float
        log2(x: number) -> float
        log10(x: number) -> float
        pow(x: number, y: number) -> float
        sqrt(x: number) -> float
        """
    ),
    "datetime": _table(
        """
        ticks() -> float
        date() -> str
        now(format?: str) -> str
        today() -> str
        validate(date: str, format: str) -> bool
        is_rfc3339(date: str) -> bool
        is_iso8601(date: str) -> bool
        """
    ),
    "regex": _table(
        """
        replace(string: str, pattern: str, replace: str, count?: int) -> str
        match(string: str, pattern: str) -> bool
        compile(pattern: str) -> bool
        findall(string: str, pattern: str) -> [str]
        search(string: str, pattern: str) -> bool
        split(string: str, pattern: str, maxsplit?: int) -> [str]
        """
    ),
    "yaml": _table(
        f"""
        encode(data: any, sort_keys?: bool, ignore_private?: bool, ignore_none?: bool) -> str
        encode_all(data: [any], sort_keys?: bool, ignore_private?: bool, ignore_none?: bool) -> str
        decode(value: str) -> any
        decode_all(value: str) -> [any]
        dump_to_file(data: any, filename: str, {_DUMP_FLAGS}) -> str
        dump_all_to_file(data: [any], filename: str, {_DUMP_FLAGS}) -> str
        validate(value: str) -> bool
        """
    ),
    "json": _table(
        f"""
        encode(data: any, sort_keys?: bool, indent?: int, {_PRIVATE_NONE}) -> str
        decode(value: str) -> any
        dump_to_file(data: any, filename: str, sort_keys?: bool, indent?: int, {_PRIVATE_NONE})
            -> str
        validate(value: str) -> bool
        merge(src: any, patch: any) -> any
        """
    ),
    "crypto": _table(
        f"""
        md5(value: str, {_ENCODING}) -> str
        sha1(value: str, {_ENCODING}) -> str
        sha224(value: str, {_ENCODING}) -> str
        sha256(value: str, {_ENCODING}) -> str
        sha384(value: str, {_ENCODING}) -> str
        sha512(value: str, {_ENCODING}) -> str
        blake3(value: str, {_ENCODING}) -> str
        uuid() -> str
        filesha256(filepath: str) -> str
        """
    ),
    "units": _table(
        "\n".join(
            [f"to_{unit}(num: number) -> str" for unit in _UNITS if unit != "k"]
            + [f"{unit}: any" for unit in _UNITS]
            + ["NumberMultiplier: multiplier"]
        )
    ),
    "collection": _table(
        """
        union_all(num: [any]) -> any
        """
    ),
    "file": _table(
        """
        read(filepath: str) -> str
        glob(pattern: str) -> [str]
        modpath() -> str
        workdir() -> str
        current() -> str
        exists(filepath: str) -> bool
        abs(filepath: str) -> str
        append(filepath: str, content: str) -> any
        mkdir(directory: str, exists?: bool) -> any
        delete(filepath: str) -> any
        cp(src: str, dest: str) -> any
        mv(src: str, dest: str) -> any
        size(filepath: str) -> int
        write(filepath: str, content: str) -> any
        read_env(key: str) -> str
        """
    ),
    "template": _table(
        """
        execute(template: str, data?: {str:any}) -> str
        html_escape(data: str) -> str
        """
    ),
    "runtime": _table(
        """
        catch(func: fn()->any) -> str
        """
    ),
}

BUILTIN_DOCS = {
    "option": "Return the value of a top-level argument (-D key=value) by its key.",
    "print": "Print the values, separated by spaces, to standard output.",
    "len": "Return the length of a string, list or dict.",
    "typeof": "Return the type name of a value.",
}
