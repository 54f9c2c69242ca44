"""The ``net`` system module: IP addresses, host:port pairs and CIDR arithmetic.

Addresses are parsed as strictly as the reference does (dotted quads without leading
zeros, IPv6 with an optional embedded IPv4 tail, no zone ids, no spaces) and written
in the canonical compressed form; an IPv4-mapped IPv6 address keeps its dotted tail
(``::ffff:1.2.3.4``). The predicates return False for text that is not an address.
``is_global_unicast_IP`` follows the reference: IPv4 addresses that are globally
reachable per the IANA special-purpose registry (no private, shared, loopback,
link-local, documentation, benchmarking, reserved, broadcast or ``192.0.0.0/24``
except ``.9`` and ``.10``) and not multicast; IPv6 addresses in ``2000::/3`` outside
``2001:db8::/32`` and ``2001:2::/48``, and NAT64 addresses (``64:ff9b::/96``) whose
embedded IPv4 address is global.

CIDR helpers take ``addr/len`` (``addr`` alone means a single address); a network with
host bits set is rejected with the reference's messages. ``CIDR_subnet``,
``CIDR_subnet`` and ``CIDR_host`` compute like Terraform's functions of those names;
``CIDR_subnets`` places each subnet in the first free aligned block of the network, as
the reference does (so ``[8, 4, 8]`` on a /16 gives ``.0.0/24``, ``.16.0/20``,
``.1.0/24``, where Terraform would give ``.32.0/24`` last).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Fail, on_mismatch

if TYPE_CHECKING:
    from ipaddress import IPv4Address, IPv6Address

    Address = IPv4Address | IPv6Address

_INVALID: Final = "invalid IP address syntax"


def _v4(text: Value) -> IPv4Address | None:
    from ipaddress import IPv4Address

    if type(text) is not str or not text.isascii():
        return None
    try:
        return IPv4Address(text)
    except ValueError:
        return None


def _v6(text: Value) -> IPv6Address | None:
    from ipaddress import IPv6Address

    if type(text) is not str or "%" in text or not text.isascii():
        return None
    try:
        return IPv6Address(text)
    except ValueError:
        return None


def _ip(text: Value) -> Address | None:
    return _v4(text) or _v6(text)


def _format(address: Address) -> str:
    if address.version == 6:
        packed = address.packed
        if packed[:12] == b"\0" * 10 + b"\xff\xff":
            return "::ffff:" + ".".join(str(byte) for byte in packed[12:])
        return address.compressed
    return str(address)


def _segments(address: IPv6Address) -> list[int]:
    number = int(address)
    return [number >> (112 - 16 * index) & 0xFFFF for index in range(8)]


# ---------------------------------------------------------------------------------------
# host:port


def split_host_port(ip_end_point: Value) -> list[str]:
    """``"host:port"`` or ``"[v6]:port"`` -> ``[host, port]``."""
    text = str(ip_end_point) if ip_end_point is not None else ""

    def fail(problem: str) -> KclRuntimeError:
        return KclRuntimeError(f'ip_end_point "{text}" {problem}')

    colon = text.rfind(":")
    if colon < 0:
        raise fail("missing port")
    host_start, after_host = 0, 0
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise fail("missing ']'")
        if end + 1 == len(text):
            raise fail("missing port")
        if end + 1 != colon:
            raise fail("too many colons" if text[end + 1] == ":" else "missing port")
        host = text[1:end]
        host_start, after_host = 1, end + 1
    else:
        host = text[:colon]
        if ":" in host:
            raise fail("too many colons")
    if "[" in text[host_start:]:
        raise fail("unexpected '['")
    if "]" in text[after_host:]:
        raise fail("unexpected ']'")
    return [host, text[colon + 1 :]]


def join_host_port(host: Value, port: Value) -> str:
    """``host:port``, with the host in brackets when it contains a colon."""
    from kclpy.vm.builtins.convert import to_str

    host_text = to_str(host)
    if ":" in host_text:
        return f"[{host_text}]:{to_str(port)}"
    return f"{host_text}:{to_str(port)}"


def fqdn(name: Value = "") -> str:
    """The fully qualified domain name of ``name`` (of this host by default)."""
    import socket

    return socket.getfqdn(str(name) if name else "")


# ---------------------------------------------------------------------------------------
# Addresses


def parse_IP(ip: Value) -> str:
    address = _ip(ip)
    return _format(address) if address is not None else ""


def IP_string(ip: Value) -> str:
    return parse_IP(ip)


def to_IP4(ip: Value) -> str:
    v4 = _v4(ip)
    if v4 is not None:
        return str(v4)
    v6 = _v6(ip)
    if v6 is None:
        return f"can not both parse {ip} to ipv6 and ipv4,err:invalid IPv6 address syntax"
    packed = v6.packed
    if packed[:10] == b"\0" * 10 and packed[10:12] in (b"\0\0", b"\xff\xff"):
        return ".".join(str(byte) for byte in packed[12:])
    return f"can not parse {ip} ipv6 to ipv4!"


def to_IP6(ip: Value) -> str:
    v6 = _v6(ip)
    if v6 is not None:
        return _format(v6)
    v4 = _v4(ip)
    if v4 is None:
        return f"can not both parse {ip} to ipv6 and ipv4,err:invalid IPv4 address syntax"
    return "::ffff:" + str(v4)


def is_IPv4(ip: Value) -> bool:
    return _v4(ip) is not None


def is_IPv6(ip: Value) -> bool:
    return _v6(ip) is not None


def is_IP(ip: Value) -> bool:
    return _ip(ip) is not None


def is_loopback_IP(ip: Value) -> bool:
    address = _ip(ip)
    if address is None:
        return False
    if address.version == 4:
        return address.packed[0] == 127
    return int(address) == 1


def is_multicast_IP(ip: Value) -> bool:
    address = _ip(ip)
    if address is None:
        return False
    if address.version == 4:
        return address.packed[0] >> 4 == 14
    return address.packed[0] == 0xFF


def _multicast_scope(ip: Value) -> int | None:
    address = _v6(ip)
    if address is None or address.packed[0] != 0xFF:
        return None
    return address.packed[1] & 0x0F


def is_interface_local_multicast_IP(ip: Value) -> bool:
    return _multicast_scope(ip) == 1


def is_link_local_multicast_IP(ip: Value) -> bool:
    v4 = _v4(ip)
    if v4 is not None:
        return v4.packed[:3] == b"\xe0\0\0"
    return _multicast_scope(ip) == 2


def is_link_local_unicast_IP(ip: Value) -> bool:
    address = _ip(ip)
    if address is None:
        return False
    if address.version == 4:
        return address.packed[:2] == b"\xa9\xfe"
    return _segments(address)[0] & 0xFFC0 == 0xFE80


def _global_v4(octets: bytes) -> bool:
    first, second, third, fourth = octets
    return not (
        first == 0
        or first == 10
        or (first == 172 and second & 0xF0 == 16)
        or (first == 192 and second == 168)
        or (first == 100 and second & 0xC0 == 64)
        or first == 127
        or (first == 169 and second == 254)
        or (first == 192 and second == 0 and third == 0 and fourth not in (9, 10))
        or (first == 192 and second == 0 and third == 2)
        or (first == 198 and second == 51 and third == 100)
        or (first == 203 and second == 0 and third == 113)
        or (first == 198 and second & 0xFE == 18)
        or first >= 240
        or first >> 4 == 14
    )


def is_global_unicast_IP(ip: Value) -> bool:
    address = _ip(ip)
    if address is None:
        return False
    if address.version == 4:
        return _global_v4(address.packed)
    segments = _segments(address)
    if segments[:6] == [0x64, 0xFF9B, 0, 0, 0, 0]:  # NAT64: the embedded IPv4 decides
        return _global_v4(address.packed[12:])
    first, second, third = segments[:3]
    if first & 0xE000 != 0x2000:
        return False
    return not (first == 0x2001 and (second == 0x0DB8 or (second == 2 and third == 0)))


def is_unspecified_IP(ip: Value) -> bool:
    address = _ip(ip)
    return address is not None and int(address) == 0


# ---------------------------------------------------------------------------------------
# CIDR


def _parse_length(text: str) -> int:
    digits = text[1:] if text.startswith("+") else text
    if not text:
        raise ValueError("cannot parse integer from empty string")
    if not digits or not digits.isascii() or not digits.isdigit():
        raise ValueError("invalid digit found in string")
    value = int(digits)
    if value > 255:
        raise ValueError("number too large to fit in target type")
    return value


def _network(cidr: Value) -> tuple[Address, int]:
    """The network address and prefix length of ``cidr`` (ValueError with the reason)."""
    text = cidr if type(cidr) is str else ""
    address_text, slash, length_text = text.partition("/")
    address = _ip(address_text)
    if address is None:
        raise ValueError(f"couldn't parse address in network: {_INVALID}")
    maximum = address.max_prefixlen
    if not slash:
        return address, maximum
    try:
        length = _parse_length(length_text)
    except ValueError as error:
        raise ValueError(f"couldn't parse length in network: {error}") from None
    if length > maximum:
        family = "Ipv4" if address.version == 4 else "Ipv6"
        raise ValueError(
            "invalid length for network: "
            f"Network length {length} is too long for {family} (maximum: {maximum})"
        )
    if int(address) & ((1 << (maximum - length)) - 1):
        raise ValueError("host part of address was not zero")
    return address, length


def _checked_network(function: str, cidr: Value) -> tuple[Address, int]:
    try:
        return _network(cidr)
    except ValueError as error:
        raise KclRuntimeError(f"{function}() invalid cidr: {error}") from None


def _address(version: int, number: int) -> Address:
    from ipaddress import IPv4Address, IPv6Address

    return IPv4Address(number) if version == 4 else IPv6Address(number)


def parse_CIDR(cidr: Value) -> dict[str, Value]:
    """``{ip, mask}`` of a network, or ``{}`` when ``cidr`` is not one."""
    try:
        address, length = _network(cidr)
    except ValueError:
        return {}
    return {"ip": _format(address), "mask": length}


def is_IP_in_CIDR(ip: Value, cidr: Value) -> bool:
    address = _ip(ip)
    if address is None:
        raise KclRuntimeError(f"is_IP_in_CIDR() invalid ip: {_INVALID}")
    network, length = _checked_network("is_IP_in_CIDR", cidr)
    number = int(address)
    if address.version != network.version:
        if address.version == 6:
            return False
        number |= 0xFFFF << 32
    shift = network.max_prefixlen - length
    return number >> shift == int(network) >> shift


def _new_length(function: str, address: Address, length: int, bits: int) -> int:
    if bits < 0:
        raise KclRuntimeError(f"{function}() invalid additional_bits: cannot be negative")
    new_length = length + int(bits)
    if new_length > address.max_prefixlen:
        family = "IPv4" if address.version == 4 else "IPv6"
        raise KclRuntimeError(
            f"{function}() invalid additional_bits: would extend network length to "
            f"{new_length} bits, which is too long for {family}"
        )
    return new_length


# an int argument that is not an int (the adapter's check): the reference's words
_INTS: Final = on_mismatch(Fail("invalid int value"))


@_INTS
def CIDR_subnet(cidr: Value, additional_bits: int, net_num: int) -> str:
    address, length = _checked_network("CIDR_subnet", cidr)
    if additional_bits < 0:
        raise KclRuntimeError("CIDR_subnet() invalid additional_bits: cannot be negative")
    if net_num < 0:
        raise KclRuntimeError("CIDR_subnet() invalid net_num: cannot be negative")
    new_length = _new_length("CIDR_subnet", address, length, additional_bits)
    if net_num >= 1 << additional_bits:
        raise KclRuntimeError(
            f"CIDR_subnet() additional_bits of {additional_bits} "
            f"does not accommodate a net_num of {net_num}"
        )
    number = int(address) + (net_num << (address.max_prefixlen - new_length))
    return f"{_format(_address(address.version, number))}/{new_length}"


@on_mismatch(Fail("invalid list value"))
def CIDR_subnets(cidr: Value, additional_bits: list[Value]) -> list[str]:
    """Subnets of the given extra prefix bits, each placed in the first free slot."""
    address, length = _checked_network("CIDR_subnets", cidr)
    maximum = address.max_prefixlen
    network_start = int(address)
    network_end = network_start + (1 << (maximum - length)) - 1
    taken: list[tuple[int, int]] = []
    result: list[str] = []
    for bits in additional_bits:
        if type(bits) is not int:
            raise KclRuntimeError("invalid int value")
        if bits < 0:
            raise KclRuntimeError("CIDR_subnets() invalid additional_bits: cannot be negative")
        if bits > 63:
            raise KclRuntimeError(
                "CIDR_subnets() invalid additional_bits: cannot extend more than 63 bits"
            )
        new_length = _new_length("CIDR_subnets", address, length, bits)
        size = 1 << (maximum - new_length)
        start = _first_free(network_start, network_end, size, taken)
        if start is None:
            raise KclRuntimeError(
                "CIDR_subnets() not enough remaining address space for a subnet with a "
                f"prefix of {new_length} bits after {result[-1]}"
            )
        taken.append((start, start + size - 1))
        result.append(f"{_format(_address(address.version, start))}/{new_length}")
    return result


def _first_free(start: int, end: int, size: int, taken: list[tuple[int, int]]) -> int | None:
    """The lowest ``size``-aligned block in ``start..end`` that overlaps nothing taken."""
    candidate = start
    while candidate + size - 1 <= end:
        for low, high in taken:
            if low <= candidate + size - 1 and candidate <= high:
                candidate = -(-(high + 1) // size) * size
                break
        else:
            return candidate
    return None


@_INTS
def CIDR_host(cidr: Value, host_num: int) -> str:
    address, length = _checked_network("CIDR_host", cidr)
    size = 1 << (address.max_prefixlen - length)
    if not -size <= host_num < size:
        raise KclRuntimeError(
            f"CIDR_host() prefix of {length} does not accommodate a host numbered {host_num}"
        )
    offset = host_num if host_num >= 0 else size + host_num
    return _format(_address(address.version, int(address) + offset))


def CIDR_netmask(cidr: Value) -> str:
    address, length = _checked_network("CIDR_netmask", cidr)
    if address.version == 6:
        raise KclRuntimeError("CIDR_netmask() IPv6 addresses cannot have a netmask")
    mask = (0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF
    return str(_address(4, mask))


MEMBERS: Final[dict[str, object]] = {
    "split_host_port": split_host_port,
    "join_host_port": join_host_port,
    "fqdn": fqdn,
    "parse_IP": parse_IP,
    "IP_string": IP_string,
    "to_IP4": to_IP4,
    "to_IP6": to_IP6,
    "is_IPv4": is_IPv4,
    "is_IPv6": is_IPv6,
    "is_IP": is_IP,
    "is_loopback_IP": is_loopback_IP,
    "is_multicast_IP": is_multicast_IP,
    "is_interface_local_multicast_IP": is_interface_local_multicast_IP,
    "is_link_local_multicast_IP": is_link_local_multicast_IP,
    "is_link_local_unicast_IP": is_link_local_unicast_IP,
    "is_global_unicast_IP": is_global_unicast_IP,
    "is_unspecified_IP": is_unspecified_IP,
    "parse_CIDR": parse_CIDR,
    "is_IP_in_CIDR": is_IP_in_CIDR,
    "CIDR_subnet": CIDR_subnet,
    "CIDR_subnets": CIDR_subnets,
    "CIDR_host": CIDR_host,
    "CIDR_netmask": CIDR_netmask,
}
