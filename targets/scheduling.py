"""
The scheduler's hardware contract: the fields of `targets.hardware.Hardware` that
`tapeflow-to-cgra`'s modulo scheduler (`lowering.scheduling`) and its latencies
(`targets.costs.op_latency`) read -- `HARDWARE_OPTIONS`, the one list -- their
limits, and the one place the scheduler's hardware is built: `scheduling_hardware`,
from a preset, a hardware file and the pass options (`HardwareOptions`, spelled on
the command line, or by `lowering.pipelines.hardware_pipeline` from a whole
`Hardware`), so every field the scheduler reads reaches it whichever way it is
described. A field not listed here does not change a schedule.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.utils.exceptions import PassFailedException

from targets.field_domains import DOMAINS, Domain
from targets.hardware import PRESETS, Hardware, HardwareError
from targets.machine import build_machine, file_layer

HARDWARE_OPTIONS: dict[str, tuple[str, ...]] = {
    "rows": ("rows",),
    "cols": ("cols",),
    "fadd": ("latencies", "fadd"),
    "fmul": ("latencies", "fmul"),
    "fdiv": ("latencies", "fdiv"),
    "sqrt": ("latencies", "sqrt"),
    "transcendental": ("latencies", "transcendental"),
    "integer": ("latencies", "integer"),
    "hop": ("latencies", "hop"),
    "cache_hit_latency": ("cache", "hit_latency"),
    "cache_ports": ("cache", "ports"),
    "spad_latency": ("scratchpad", "latency"),
    "spad_banks": ("scratchpad", "banks"),
}
"""Each hardware option of `tapeflow-to-cgra` -> the `Hardware` field it sets: every
number the scheduler (`lowering.scheduling`) and `targets.costs.op_latency` read,
and nothing else of the hardware reaches a schedule."""

MAPPING_OPTIONS: dict[str, tuple[str, ...]] = {
    "place_straight_line": ("mapping", "place_straight_line"),
    "disambiguate": ("mapping", "disambiguate"),
    "modulo_schedule": ("mapping", "modulo_schedule"),
}
"""Each mapping option of `tapeflow-to-cgra` (on or off, `targets.hardware.MappingConfig`)
-> the `Hardware` field it sets: the steps of the pass beyond the paper."""


def hardware_options(hardware: Hardware) -> dict[str, int]:
    """The values of `hardware` for every hardware option, by option name."""
    values = {}
    for option, path in HARDWARE_OPTIONS.items():
        value: object = hardware
        for name in path:
            value = getattr(value, name)
        assert isinstance(value, int)
        values[option] = value
    return values


def mapping_options(hardware: Hardware) -> dict[str, bool]:
    """The values of `hardware` for every mapping option, by option name."""
    return {
        option: getattr(getattr(hardware, path[0]), path[1])
        for option, path in MAPPING_OPTIONS.items()
    }


def _with(base: object, path: tuple[str, ...], value: object) -> object:
    if len(path) == 1:
        return replace(base, **{path[0]: value})  # type: ignore[type-var]
    inner = _with(getattr(base, path[0]), path[1:], value)
    return replace(base, **{path[0]: inner})  # type: ignore[type-var]


def option_domain(option: str) -> Domain:
    """The values a hardware option may take: its field's (`targets.field_domains`)."""
    return DOMAINS[".".join(HARDWARE_OPTIONS[option])]


def _limit(option: str) -> int:
    return int(option_domain(option).high)


def scheduling_hardware(
    preset: str,
    overrides: dict[str, int | None],
    pass_name: str = "tapeflow-to-cgra",
    hardware_file: str | None = None,
    mapping: dict[str, bool | None] | None = None,
) -> Hardware:
    """The scheduler's hardware: the preset, then the hardware file (every field it
    sets), then the given options, each value the scheduler reads checked against
    its field's domain (`targets.field_domains.DOMAINS`: the grid at most 64x64).
    Errors name `pass_name` and the option or file."""
    if preset not in PRESETS:
        raise PassFailedException(
            f"{pass_name}: unknown hardware preset '{preset}' (option preset); choose from "
            f"{', '.join(PRESETS)}"
        )
    hardware = build_machine(preset)
    if hardware_file is not None:
        try:
            layer = file_layer(hardware_file)
            for option, path in HARDWARE_OPTIONS.items():
                value: object = layer[0]
                for name in path:
                    value = value.get(name) if isinstance(value, dict) else None
                domain = option_domain(option)
                if isinstance(value, int) and not domain.low <= value <= domain.high:
                    raise PassFailedException(
                        f"{pass_name}: hardware file {hardware_file} sets "
                        f"{'.'.join(path)}={value}; the scheduler takes "
                        f"{int(domain.low)} to {int(domain.high)}"
                    )
            hardware = build_machine(hardware, [layer])
        except HardwareError as err:
            raise PassFailedException(f"{pass_name}: option hardware-file: {err}") from None
    for option, value in overrides.items():
        if value is None:
            continue
        spelled = option.replace("_", "-")
        low = int(option_domain(option).low)
        if value < low:
            raise PassFailedException(
                f"{pass_name}: option {spelled} must be at least {low}, got {value}"
            )
        limit = _limit(option)
        if value > limit:
            raise PassFailedException(
                f"{pass_name}: option {spelled}={value} is over the limit of {limit}"
                + (
                    f" PEs a side (a {limit}x{limit} grid at most)"
                    if option in ("rows", "cols")
                    else ""
                )
            )
        hardware = _with(hardware, HARDWARE_OPTIONS[option], value)  # type: ignore[assignment]
    for option, on in (mapping or {}).items():
        if on is not None:
            hardware = _with(hardware, MAPPING_OPTIONS[option], on)  # type: ignore[assignment]
    return hardware


DEFAULT_PRESET = "Enzyme32k"


@dataclass(frozen=True)
class HardwareOptions:
    """The hardware options of `tapeflow-to-cgra` (and of `tapeflow-variant`, which
    hands them on): a preset, a hardware file over it, and any value to change."""

    preset: str = DEFAULT_PRESET
    """The hardware preset the options below default from (`targets.hardware.PRESETS`)."""
    hardware_file: str | None = None
    """A hardware description (YAML or JSON, as `tapeflow-sim --hw` reads) applied
    over the preset: every field it sets that the scheduler reads reaches it."""
    rows: int | None = None
    """PE grid rows (at most 64)."""
    cols: int | None = None
    """PE grid columns (at most 64)."""
    fadd: int | None = None
    """Cycles of fadd/fsub, float compares and min/max."""
    fmul: int | None = None
    fdiv: int | None = None
    sqrt: int | None = None
    transcendental: int | None = None
    """Cycles of exp, log, sin, cos, tanh, pow."""
    integer: int | None = None
    """Cycles of index and integer arithmetic, selects, casts."""
    hop: int | None = None
    """Cycles per hop of the operand network."""
    cache_hit_latency: int | None = None
    cache_ports: int | None = None
    """Cache accesses per cycle."""
    spad_latency: int | None = None
    spad_banks: int | None = None
    """Scratchpad accesses per cycle."""
    place_straight_line: bool | None = None
    """Place every straight-line run of ops outside kernel loops as a kernel run
    once (default: the preset's, on; `MappingConfig.place_straight_line`)."""
    disambiguate: bool | None = None
    """Order only the accesses whose indices may be equal (default: the preset's,
    on; `MappingConfig.disambiguate`)."""
    modulo_schedule: bool | None = None
    """Modulo-schedule each kernel on the grid; off: the sequential schedule
    (default: the preset's, on; `MappingConfig.modulo_schedule`)."""

    def hardware(self) -> Hardware:
        """The hardware the options describe (checked)."""
        return scheduling_hardware(
            self.preset,
            {option: getattr(self, option) for option in HARDWARE_OPTIONS},
            getattr(self, "name", "tapeflow-to-cgra"),
            self.hardware_file,
            {option: getattr(self, option) for option in MAPPING_OPTIONS},
        )

    def hardware_spec(self) -> dict[str, object]:
        """The options given (the preset unless it is the default), by name."""
        given: dict[str, object] = {}
        if self.preset != DEFAULT_PRESET:
            given["preset"] = self.preset
        if self.hardware_file is not None:
            given["hardware_file"] = self.hardware_file
        given.update(
            (option, getattr(self, option))
            for option in (*HARDWARE_OPTIONS, *MAPPING_OPTIONS)
            if getattr(self, option) is not None
        )
        return given
