"""The ``datetime`` system module: the current time and date-format checks.

Formats use the reference's ``strftime`` dialect (Rust ``chrono``): ``%Y %m %d %H
%M %S`` and friends, ``%e`` and ``%k`` space-padded, ``%f`` nanoseconds, ``%.f`` /
``%.3f`` / ``%3f`` fractions, ``%z`` / ``%:z`` offsets, ``%s`` seconds since the epoch,
the ``%-d`` / ``%_d`` / ``%0e`` padding modifiers, and the compounds ``%D %x %F %v
%R %T %X %r %c %+``. An unknown specifier fails with the reference's message
``a Display implementation returned an error unexpectedly: Error``.

* ``now(format="%a %b %e %H:%M:%S %Y")``: the local time, formatted.
* ``date()``: ``"%Y-%m-%d %H:%M:%S"`` of the local time.
* ``today()``: ``"%Y-%m-%d %H:%M:%S.ffffff"`` (microseconds).
* ``ticks()``: seconds since the epoch as a float (with the sub-second part).
* ``validate(date, format)``: True when ``date`` parses with ``format`` into a date, a
  time of day or a date and time (as chrono's ``NaiveDate``, ``NaiveTime`` and
  ``NaiveDateTime`` parsers do, including their leniency: whitespace in the format
  matches any run of whitespace, numbers may be preceded by spaces and have fewer
  digits, month and day names are case-insensitive).
* ``is_rfc3339(date)`` / ``is_iso8601(date)``: an RFC 3339 date-time with an offset
  (``T``, ``t`` or a space between date and time, ``Z``/``z`` or ``±hh:mm``).

Differences (``docs/differences-modules.md``): the reference's ``today()`` puts the
epoch seconds where the fraction should be and its ``ticks()`` has no fraction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Answer, Fail, on_mismatch

if TYPE_CHECKING:  # (imported when used: kcl run does not pay for them)
    import datetime
    import re

_FORMAT_ERROR: Final = "a Display implementation returned an error unexpectedly: Error"
_MONTHS: Final = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip
_WEEKDAYS: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_COMPOUNDS: Final[dict[str, str]] = {
    "D": "%m/%d/%y",
    "x": "%m/%d/%y",
    "F": "%Y-%m-%d",
    "v": "%e-%b-%Y",
    "R": "%H:%M",
    "T": "%H:%M:%S",
    "X": "%H:%M:%S",
    "r": "%I:%M:%S %p",
    "c": "%a %b %e %H:%M:%S %Y",
    "+": "%Y-%m-%dT%H:%M:%S%.f%:z",
}
# Numeric fields: (width, default padding), padding "0" or " ".
_NUMERIC: Final[dict[str, tuple[int, str]]] = {
    "Y": (4, "0"), "C": (2, "0"), "y": (2, "0"), "m": (2, "0"), "d": (2, "0"),
    "e": (2, " "), "H": (2, "0"), "k": (2, " "), "I": (2, "0"), "l": (2, " "),
    "M": (2, "0"), "S": (2, "0"), "j": (3, "0"), "w": (1, "0"), "u": (1, "0"),
    "U": (2, "0"), "W": (2, "0"), "V": (2, "0"), "G": (4, "0"), "g": (2, "0"),
    "s": (1, "0"),
}  # fmt: skip
_TEXT: Final = frozenset("bhBaApPZz")


class _FormatError(Exception):
    pass


def _items(fmt: str) -> list[tuple[str, str]]:
    """``fmt`` as (kind, value) items: ("lit", text), ("space", text) or ("spec", code).

    A spec code is the specifier letter with its modifier: ``"Y"``, ``"-d"``,
    ``".3f"``, ``":z"``. Compound specifiers are expanded.
    """
    items: list[tuple[str, str]] = []
    index = 0
    while index < len(fmt):
        char = fmt[index]
        if char != "%":
            end = index
            while end < len(fmt) and fmt[end] != "%" and fmt[end].isspace() == char.isspace():
                end += 1
            items.append(("space" if char.isspace() else "lit", fmt[index:end]))
            index = end
            continue
        rest = fmt[index + 1 : index + 4]
        if not rest:
            raise _FormatError
        if rest[0] in "-_0" and len(rest) > 1 and rest[1] in _NUMERIC:
            items.append(("spec", rest[:2]))
            index += 3
        elif rest[0] == "." and rest[1:2] == "f":
            items.append(("spec", ".f"))
            index += 3
        elif rest[0] == "." and rest[1:2] in ("3", "6", "9") and rest[2:3] == "f":
            items.append(("spec", rest[:3]))
            index += 4
        elif rest[0] in "369" and rest[1:2] == "f":
            items.append(("spec", rest[:2]))
            index += 3
        elif rest[0] == ":" and rest[1:2] == "z":
            items.append(("spec", ":z"))
            index += 3
        elif rest[0] in _COMPOUNDS:
            items.extend(_items(_COMPOUNDS[rest[0]]))
            index += 2
        elif rest[0] == "%":
            items.append(("lit", "%"))
            index += 2
        elif rest[0] in "tn":
            items.append(("space", "\t" if rest[0] == "t" else "\n"))
            index += 2
        elif rest[0] in _NUMERIC or rest[0] in _TEXT or rest[0] == "f":
            items.append(("spec", rest[0]))
            index += 2
        else:
            raise _FormatError
    return items


# ---------------------------------------------------------------------------------------
# Formatting


def _offset(seconds: int, colon: bool) -> str:
    sign = "-" if seconds < 0 else "+"
    minutes = abs(seconds) // 60
    return f"{sign}{minutes // 60:02d}{':' if colon else ''}{minutes % 60:02d}"


def _field(moment: datetime.datetime, letter: str, epoch: int) -> int:
    iso = moment.isocalendar()
    weekday = moment.weekday()  # Monday = 0
    yday = moment.timetuple().tm_yday
    values: dict[str, int] = {
        "Y": moment.year, "C": moment.year // 100, "y": moment.year % 100,
        "m": moment.month, "d": moment.day, "e": moment.day, "H": moment.hour,
        "k": moment.hour, "I": (moment.hour + 11) % 12 + 1, "l": (moment.hour + 11) % 12 + 1,
        "M": moment.minute, "S": moment.second, "j": yday, "w": (weekday + 1) % 7,
        "u": weekday + 1, "U": (yday + 6 - (weekday + 1) % 7) // 7,
        "W": (yday + 6 - weekday) // 7, "V": iso[1], "G": iso[0], "g": iso[0] % 100,
        "s": epoch,
    }  # fmt: skip
    return values[letter]


def _format_spec(code: str, moment: datetime.datetime, nanos: int, epoch: int, offset: int) -> str:
    letter = code[-1]
    if letter in _NUMERIC and (len(code) == 1 or code[0] in "-_0"):
        width, pad = _NUMERIC[letter]
        if len(code) == 2:
            pad = "" if code[0] == "-" else (" " if code[0] == "_" else "0")
        value = _field(moment, letter, epoch)
        text = str(abs(value))
        if pad and letter != "s":
            text = text.rjust(width, pad)
        return ("-" if value < 0 else "") + text
    if code == "f":
        return f"{nanos:09d}"
    if code == ".f":
        if nanos == 0:
            return ""
        if nanos % 1_000_000 == 0:
            return f".{nanos // 1_000_000:03d}"
        if nanos % 1000 == 0:
            return f".{nanos // 1000:06d}"
        return f".{nanos:09d}"
    if letter == "f":
        digits = int(code[-2])
        text = f"{nanos:09d}"[:digits]
        return "." + text if code.startswith(".") else text
    names = {
        "b": _MONTHS[moment.month - 1][:3], "h": _MONTHS[moment.month - 1][:3],
        "B": _MONTHS[moment.month - 1], "a": _WEEKDAYS[moment.weekday()][:3],
        "A": _WEEKDAYS[moment.weekday()], "p": "AM" if moment.hour < 12 else "PM",
        "P": "am" if moment.hour < 12 else "pm", "Z": _offset(offset, True),
        "z": _offset(offset, False), ":z": _offset(offset, True),
    }  # fmt: skip
    return names[code]


def _now() -> tuple[datetime.datetime, int, int, int]:
    """(local naive datetime, nanoseconds, epoch seconds, UTC offset in seconds)."""
    import datetime
    import time

    total = time.time_ns()
    epoch, nanos = divmod(total, 1_000_000_000)
    local = time.localtime(epoch)
    moment = datetime.datetime(*local[:6])
    return moment, nanos, epoch, local.tm_gmtoff


def strftime(
    fmt: str, moment: datetime.datetime, nanos: int = 0, epoch: int = 0, offset: int = 0
) -> str:
    """``moment`` formatted with chrono's ``fmt`` dialect."""
    try:
        items = _items(fmt)
    except _FormatError:
        raise KclRuntimeError(_FORMAT_ERROR) from None
    return "".join(
        _format_spec(value, moment, nanos, epoch, offset) if kind == "spec" else value
        for kind, value in items
    )


@on_mismatch(Fail("now() expected str, got {python}"))
def now(format: str = "%a %b %e %H:%M:%S %Y") -> str:
    """The local time formatted with ``format``."""
    moment, nanos, epoch, offset = _now()
    return strftime(format, moment, nanos, epoch, offset)


def date() -> str:
    """The local date and time, ``%Y-%m-%d %H:%M:%S``."""
    moment, _, _, _ = _now()
    return str(moment.strftime("%Y-%m-%d %H:%M:%S"))


def today() -> str:
    """The local date and time with microseconds."""
    moment, nanos, _, _ = _now()
    return f"{moment.strftime('%Y-%m-%d %H:%M:%S')}.{nanos // 1000:06d}"


def ticks() -> float:
    """Seconds since the epoch."""
    import time

    return time.time()


# ---------------------------------------------------------------------------------------
# Parsing (chrono's lenient parser) for validate


class _Invalid(Exception):
    pass


class _Parsed:
    """The fields a parse found; setting a field twice to different values fails."""

    def __init__(self) -> None:
        self.fields: dict[str, int] = {}

    def set(self, name: str, value: int, low: int | None = None, high: int | None = None) -> None:
        if (low is not None and value < low) or (high is not None and value > high):
            raise _Invalid
        if self.fields.setdefault(name, value) != value:
            raise _Invalid

    def get(self, name: str) -> int | None:
        return self.fields.get(name)


_RANGES: Final[dict[str, tuple[str, int, int]]] = {
    "C": ("year_div_100", 0, 2**31), "y": ("year_mod_100", 0, 99), "m": ("month", 1, 12),
    "d": ("day", 1, 31), "e": ("day", 1, 31), "j": ("ordinal", 1, 366),
    "U": ("week_from_sun", 0, 53), "W": ("week_from_mon", 0, 53), "V": ("isoweek", 1, 53),
    "M": ("minute", 0, 59), "S": ("second", 0, 60), "g": ("isoyear_mod_100", 0, 99),
}  # fmt: skip


def _number(text: str, pos: int, width: int) -> tuple[int, int]:
    end = pos
    while end < len(text) and end - pos < width and "0" <= text[end] <= "9":
        end += 1
    if end == pos:
        raise _Invalid
    return int(text[pos:end]), end


def _name(text: str, pos: int, names: tuple[str, ...], long: bool) -> tuple[int, int]:
    prefix = text[pos : pos + 3].lower()
    for index, name in enumerate(names):
        if name[:3].lower() == prefix:
            end = pos + 3
            suffix = name[3:].lower()
            if long and text[end : end + len(suffix)].lower() == suffix:
                end += len(suffix)
            return index, end
    raise _Invalid


def _parse_offset(text: str, pos: int) -> int:
    if pos >= len(text) or text[pos] not in "+-":
        raise _Invalid
    _, end = _fixed_digits(text, pos + 1, 2)
    if text[end : end + 1] == ":":
        end += 1
    _, end = _fixed_digits(text, end, 2)
    return end


def _fixed_digits(text: str, pos: int, count: int) -> tuple[int, int]:
    digits = text[pos : pos + count]
    if len(digits) != count or not digits.isdigit() or not digits.isascii():
        raise _Invalid
    return int(digits), pos + count


def _parse_spec(code: str, text: str, pos: int, parsed: _Parsed) -> int:
    letter = code[-1]
    if letter in _NUMERIC and (len(code) == 1 or code[0] in "-_0"):
        pos = len(text) - len(text[pos:].lstrip())
        if letter in "YG" and text[pos : pos + 1] in ("+", "-"):
            negative = text[pos] == "-"
            value, pos = _number(text, pos + 1, 1 << 30)
            value = -value if negative else value
        else:
            value, pos = _number(text, pos, 1 << 30 if letter == "s" else _NUMERIC[letter][0])
        if letter == "Y":
            parsed.set("year", value)
        elif letter == "G":
            parsed.set("isoyear", value)
        elif letter == "s":
            parsed.set("timestamp", value)
        elif letter in "Hk":
            parsed.set("hour_div_12", value // 12, 0, 1)
            parsed.set("hour_mod_12", value % 12, 0, 11)
            if value > 23:
                raise _Invalid
        elif letter in "Il":
            if not 1 <= value <= 12:
                raise _Invalid
            parsed.set("hour_mod_12", value % 12)
        elif letter in "wu":
            if (letter == "w" and not 0 <= value <= 6) or (letter == "u" and not 1 <= value <= 7):
                raise _Invalid
            parsed.set("weekday", value % 7)  # 0 = Sunday
        else:
            name, low, high = _RANGES[letter]
            parsed.set(name, value, low, high)
        return pos
    if letter == "f":
        if code == ".f":
            if text[pos : pos + 1] != ".":
                return pos
            pos += 1
        elif code.startswith("."):
            if text[pos : pos + 1] != ".":
                raise _Invalid
            pos += 1
        start = pos
        if code in ("f", ".f"):
            _, pos = _number(text, pos, 1 << 30)
        else:
            _, pos = _fixed_digits(text, pos, int(code[-2]))
        parsed.set("nanosecond", int((text[start:pos] + "000000000")[:9]))
        return pos
    if letter in "bhB":
        month, pos = _name(text, pos, _MONTHS, letter == "B")
        parsed.set("month", month + 1)
        return pos
    if letter in "aA":
        day, pos = _name(text, pos, _WEEKDAYS, letter == "A")
        parsed.set("weekday", (day + 1) % 7)
        return pos
    if letter in "pP":
        marker = text[pos : pos + 2].lower()
        if marker not in ("am", "pm"):
            raise _Invalid
        parsed.set("hour_div_12", 1 if marker == "pm" else 0)
        return pos + 2
    if letter == "z":
        return _parse_offset(text, pos)
    if letter == "Z":
        end = pos
        while end < len(text) and not text[end].isspace():
            end += 1
        return end
    raise _Invalid


def _parse(text: str, fmt: str) -> _Parsed:
    try:
        items = _items(fmt)
    except _FormatError:
        raise _Invalid from None
    parsed = _Parsed()
    pos = 0
    for kind, value in items:
        if kind == "space":
            pos = len(text) - len(text[pos:].lstrip())
        elif kind == "lit":
            if not text.startswith(value, pos):
                raise _Invalid
            pos += len(value)
        else:
            pos = _parse_spec(value, text, pos, parsed)
    if pos != len(text):
        raise _Invalid
    return parsed


def _year(parsed: _Parsed) -> int | None:
    year = parsed.get("year")
    century = parsed.get("year_div_100")
    short = parsed.get("year_mod_100")
    if year is not None:
        if century is not None and year // 100 != century:
            return None
        if short is not None and year % 100 != short:
            return None
        return year
    if century is not None and short is not None:
        return century * 100 + short
    if short is not None:
        return short + (1900 if short >= 70 else 2000)
    return None


def _date(parsed: _Parsed) -> datetime.date | None:
    """The date the fields describe (consistency checked), else None."""
    import datetime

    year = _year(parsed)
    month = parsed.get("month")
    day = parsed.get("day")
    ordinal = parsed.get("ordinal")
    weekday = parsed.get("weekday")
    result = None
    try:
        if year is not None and month is not None and day is not None:
            result = datetime.date(year, month, day)
        elif year is not None and ordinal is not None:
            result = datetime.date(year, 1, 1) + datetime.timedelta(days=ordinal - 1)
            if result.year != year:
                return None
        elif year is not None and weekday is not None and parsed.get("week_from_sun") is not None:
            first = datetime.date(year, 1, 1)
            first_sunday = first + datetime.timedelta(days=(6 - first.weekday()) % 7)
            week = parsed.get("week_from_sun") or 0
            result = first_sunday + datetime.timedelta(weeks=week - 1, days=weekday)
        elif year is not None and weekday is not None and parsed.get("week_from_mon") is not None:
            first = datetime.date(year, 1, 1)
            first_monday = first + datetime.timedelta(days=(7 - first.weekday()) % 7)
            week = parsed.get("week_from_mon") or 0
            result = first_monday + datetime.timedelta(weeks=week - 1, days=(weekday + 6) % 7)
        elif parsed.get("isoyear") is not None and parsed.get("isoweek") is not None:
            if weekday is None:
                return None
            result = datetime.date.fromisocalendar(
                parsed.get("isoyear") or 0, parsed.get("isoweek") or 0, (weekday + 6) % 7 + 1
            )
    except (ValueError, OverflowError):
        return None
    if result is None or result.year != (year if year is not None else result.year):
        return None
    checks = (
        (month, result.month),
        (day, result.day),
        (ordinal, result.timetuple().tm_yday),
        (weekday, (result.weekday() + 1) % 7),
    )
    if any(given is not None and given != actual for given, actual in checks):
        return None
    return result


def _time_ok(parsed: _Parsed) -> bool:
    return (
        parsed.get("hour_div_12") is not None
        and parsed.get("hour_mod_12") is not None
        and parsed.get("minute") is not None
    )


# a date or format that is not a string is not valid
_FALSE_UNLESS_TEXT: Final = on_mismatch(Answer(False))


@_FALSE_UNLESS_TEXT
def validate(date: str, format: str) -> bool:
    """Whether ``date`` parses with ``format`` as a date, a time or a date-time."""
    try:
        parsed = _parse(date, format)
    except _Invalid:
        return False
    if parsed.get("timestamp") is not None:
        return True
    return _date(parsed) is not None or _time_ok(parsed)


@_FALSE_UNLESS_TEXT
def is_rfc3339(date: str) -> bool:
    """Whether ``date`` is an RFC 3339 date-time with an offset."""
    global _RFC3339
    if _RFC3339 is None:
        import re

        _RFC3339 = re.compile(
            r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?"
            r"([Zz]|[+-](\d{2}):(\d{2}))",
            re.ASCII,
        )
    found = _RFC3339.fullmatch(date)
    if found is None:
        return False
    import calendar

    year, month, day, hour, minute, second = (int(found.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    hours, minutes = found.group(9), found.group(10)
    return hours is None or (int(hours) <= 23 and int(minutes) <= 59)


@_FALSE_UNLESS_TEXT
def is_iso8601(date: str) -> bool:
    """Same as :func:`is_rfc3339` (the reference accepts the same strings)."""
    return is_rfc3339(date)


_RFC3339: re.Pattern[str] | None = None

MEMBERS: Final[dict[str, object]] = {
    "ticks": ticks,
    "date": date,
    "now": now,
    "today": today,
    "validate": validate,
    "is_rfc3339": is_rfc3339,
    "is_iso8601": is_iso8601,
}
