"""The cycle collector is held off while a verify or a fold allocates millions of objects, and
given back as it was found."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from ledger import verify as verify_module
from ledger.collector import collector_paused
from ledger.ledger import Ledger
from ledger.verify import verify
from tests.conftest import append_editions


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_is_off_inside_and_back_on_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves it to the outer one
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_an_error_inside_gives_the_collector_back() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


@pytest.mark.usefixtures("collector_on")
def test_verify_checks_its_pages_with_the_collector_off(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    append_editions(ledger, 0, 5)
    seen: list[bool] = []
    checked = verify_module.leaves

    def spy(rows: list[tuple[object, ...]], expected: int) -> object:
        seen.append(gc.isenabled())
        return checked(rows, expected)

    monkeypatch.setattr(verify_module, "leaves", spy)
    assert verify(ledger).ok
    assert seen == [False]
    assert gc.isenabled()
