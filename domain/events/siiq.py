"""Facts of SI-IQ: the inputs of a calibration and its outcome (SI-IQ sections 1 and 3)."""

from __future__ import annotations

from datetime import datetime

import msgspec

from domain.events import streams
from domain.events.base import Event
from domain.siiq.records import Benchmark, CalibrationSummary, Result
from domain.siiq.versions import Conversion


class SiiqInputsRecorded(Event, frozen=True):
    """The normalised inputs of an SI-IQ calibration, as selected (SI-IQ section 1, A1 to A3),
    with the SHA-256 of each input file as it was read."""

    inputs: dict[str, str]
    results: list[Result]
    benchmarks: list[Benchmark]
    reference: list[str]
    ignored_rows: dict[str, int]
    invalid_benchmarks: list[str]

    @property
    def stream(self) -> str:
        return streams.siiq_inputs(self.inputs)


class CalibrationAccepted(Event, frozen=True):
    """SI-IQ section 3: a calibration passed every check; its parameters are now frozen."""

    inputs: dict[str, str]
    calibration: CalibrationSummary
    at: datetime | None = None
    """When an update made it (the monthly recalibration counts from here)."""
    conversion: list[Conversion] = msgspec.field(default_factory=list)
    """A major version's conversion table, old score -> new (section 4)."""

    @property
    def stream(self) -> str:
        return streams.SIIQ_CALIBRATION


class CalibrationRejected(Event, frozen=True):
    """SI-IQ section 3: a calibration was rejected, and the previous one stays in force."""

    inputs: dict[str, str]
    calibration: CalibrationSummary
    at: datetime | None = None
    """When an update made it (the monthly recalibration counts from here)."""

    @property
    def stream(self) -> str:
        return streams.SIIQ_CALIBRATION
