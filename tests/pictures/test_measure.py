"""Colour classes: nothing apart, a gang splits the scale, round steps for cores and bytes."""

from __future__ import annotations

from tasplan.report.picture.measure import BLUES, NONE_FILL, ORANGES, Measure, bins, fill


def labels(classes) -> list[str]:
    return [c.label for c in classes]


def test_a_gang_splits_the_scale_into_too_few_and_enough() -> None:
    """Gang of 8, up to 32 fit: 0 apart, 1-7 in oranges, 8-32 in blues with a ✓."""
    classes = bins(Measure("now", shape="A", gang=8), [0, 3, 32])
    assert labels(classes) == ["0", "1–3", "4–7", "8–15 ✓", "16–23 ✓", "24–32 ✓"]
    assert fill(0, classes) == NONE_FILL
    assert fill(5, classes) == ORANGES[1]
    assert fill(8, classes) == BLUES[1] and fill(32, classes) == BLUES[3]


def test_without_a_gang_one_scale_and_no_more_classes_than_values() -> None:
    classes = bins(Measure("now", shape="A"), [0, 1, 2])
    assert labels(classes) == ["0", "1", "2"]
    assert [c.fill for c in classes] == [NONE_FILL, BLUES[2], BLUES[3]]  # the darkest last


def test_where_no_domain_reaches_the_gang_only_oranges() -> None:
    classes = bins(Measure("now", shape="A", gang=64), [0, 10])
    assert labels(classes) == ["0", "1–5", "6–10"]
    assert all("✓" not in c.label for c in classes)


def test_free_cores_and_bytes_step_in_round_sizes() -> None:
    cpu = bins(Measure("free", resource="cpu"), [383_200])  # millicores
    assert labels(cpu) == ["0", "0–100", "100–200", "200–300", "300–400"]
    assert fill(100_000, cpu) == BLUES[1]  # an edge takes the upper range
    memory = bins(Measure("free", resource="memory"), [4 * 1024**4])
    assert labels(memory) == ["0", "0–1Ti", "1Ti–2Ti", "2Ti–3Ti", "3Ti–4Ti"]


def test_free_fraction_in_quarters() -> None:
    classes = bins(Measure("free-fraction", resource="cpu"), [0.3])
    assert labels(classes) == ["0%", "0%–25%", "25%–50%", "50%–75%", "75%–100%"]
    assert fill(0.0, classes) == NONE_FILL and fill(0.1, classes) == BLUES[0]
