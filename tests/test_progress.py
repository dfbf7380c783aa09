"""Tests for fuzzytruth.progress: silent off a terminal, drawn on one (or when forced), exact
counts, and throttled redraws. Time comes from an injected fake clock; no test sleeps."""

from __future__ import annotations

import io
import sys

import pytest

from fuzzytruth.progress import Progress, progress_enabled, track


class FakeTTY(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class FakeClock:
    """Returns ``now``; advance it by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def frames(stream: io.StringIO) -> list[str]:
    """The successive states drawn (each drawing starts with a carriage return)."""
    return stream.getvalue().split("\r")[1:]


# ---------------------------------------------------------------------- when to draw
def test_silent_when_stream_is_not_a_tty():
    out = io.StringIO()
    with Progress(total=50, desc="worlds", stream=out) as bar:
        for _ in range(50):
            bar.update()
    assert out.getvalue() == ""
    assert bar.n == 50 and not bar.enabled


def test_default_stream_is_stderr_and_silent_under_capture(capsys):
    with Progress(total=3) as bar:
        bar.update(3)
    assert list(track(range(3))) == [0, 1, 2]
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "")
    assert bar.stream is sys.stderr


def test_draws_on_a_terminal():
    out = FakeTTY()
    with Progress(total=4, desc="boot", stream=out, clock=FakeClock()) as bar:
        bar.update(4)
    assert bar.enabled
    assert frames(out)[-1].rstrip("\n") == (
        "boot: 100%|########################| 4/4 [00:00<00:00, ? it/s]"
    )
    assert out.getvalue().endswith("\n")


def test_forced_draws_off_a_terminal_and_false_never_draws():
    forced, never = io.StringIO(), FakeTTY()
    for stream, progress in ((forced, True), (never, False)):
        with Progress(total=2, progress=progress, stream=stream, clock=FakeClock()) as bar:
            bar.update(2)
    assert frames(forced)[-1].startswith("100%|")
    assert never.getvalue() == ""


@pytest.mark.parametrize(
    ("progress", "stream", "expected"),
    [
        (None, FakeTTY(), True),
        (None, io.StringIO(), False),
        (True, io.StringIO(), True),
        (False, FakeTTY(), False),
    ],
)
def test_progress_enabled(progress, stream, expected):
    assert progress_enabled(progress, stream) is expected


def test_progress_enabled_without_a_usable_stream(monkeypatch):
    closed = io.StringIO()
    closed.close()  # isatty() raises ValueError on a closed stream
    assert progress_enabled(None, closed) is False
    assert progress_enabled(None, object()) is False  # no isatty at all
    monkeypatch.setattr(sys, "stderr", None)  # pythonw and some GUI launchers
    assert progress_enabled(True) is False
    with Progress(total=1, progress=True) as bar:
        bar.update()
    assert bar.n == 1 and not bar.enabled


@pytest.mark.parametrize("progress", ["auto", 1, 0, "True"])
def test_progress_option_is_validated(progress):
    with pytest.raises(ValueError, match=r"progress must be None \(draw when stderr is a "):
        progress_enabled(progress)
    with pytest.raises(ValueError, match="progress must be None"):
        Progress(progress=progress)
    with pytest.raises(ValueError, match="progress must be None"):
        track([1], progress=progress)  # checked before iterating


# ---------------------------------------------------------------------- counting and text
def test_final_count_and_frames():
    out, clock = FakeTTY(), FakeClock()
    with Progress(total=10, desc="w", unit="worlds", stream=out, clock=clock) as bar:
        for _ in range(10):
            clock.now += 0.5  # every update redrawn (0.5 s >= 0.1 s)
            bar.update()
    drawn = frames(out)
    assert len(drawn) == 1 + 10 + 1  # start, each update, close
    assert drawn[0].startswith("w:   0%|" + " " * 24 + "| 0/10 [00:00<?, ? worlds/s]")
    # 5 done after 2.5 s: 2 worlds/s, 5 left -> 2.5 s remaining (shown as 00:02)
    assert drawn[5] == "w:  50%|############            | 5/10 [00:02<00:02, 2 worlds/s]"
    assert drawn[-1] == "w: 100%|########################| 10/10 [00:05<00:00, 2 worlds/s]\n"
    assert bar.n == 10


def test_unknown_total_shows_count_and_rate():
    out, clock = FakeTTY(), FakeClock()
    with Progress(stream=out, clock=clock) as bar:
        clock.now = 3725.0  # over an hour: h:mm:ss
        bar.update(7)
    assert frames(out)[-1] == "7 it [1:02:05, 0.00188 it/s]\n"


def test_counts_past_the_total_keep_the_bar_full():
    bar = Progress(total=2, progress=False)
    bar.update(3)
    assert bar.format(1.0) == "100%|########################| 3/2 [00:01<00:00, 3 it/s]"
    assert Progress(total=0, progress=False).format(0.0).startswith("100%|")


def test_a_shorter_line_wipes_the_previous_one():
    out, clock = FakeTTY(), FakeClock()
    with Progress(stream=out, clock=clock) as bar:
        clock.now = 0.5
        bar.update(1000)  # "1000 it [00:00, 2e+03 it/s]"
        clock.now = 100.0
        bar.update(1)  # "1001 it [01:40, 10 it/s]": shorter, padded with spaces
    first, second = frames(out)[1:3]
    assert second.rstrip() == "1001 it [01:40, 10 it/s]"
    assert len(second) == len(first) == len("1000 it [00:00, 2e+03 it/s]")


def test_exception_still_closes_the_line():
    out = FakeTTY()
    with pytest.raises(RuntimeError), Progress(total=5, stream=out, clock=FakeClock()) as bar:
        bar.update(2)
        raise RuntimeError("boom")
    assert frames(out)[-1].endswith("2/5 [00:00<?, ? it/s]\n")


def test_close_is_idempotent_and_update_after_close_fails():
    out = FakeTTY()
    bar = Progress(total=1, stream=out, clock=FakeClock())
    bar.close()
    bar.close()
    assert out.getvalue().count("\n") == 1
    with pytest.raises(ValueError, match="update\\(\\) called on a closed Progress"):
        bar.update()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"total": -1}, r"total must be None \(unknown\) or an integer >= 0; got -1"),
        ({"total": 2.5}, "total must be None .* got 2.5"),
        ({"total": True}, "total must be None .* got True"),
        ({"min_interval": -0.1}, r"min_interval must be a finite number >= 0 \(seconds\)"),
        ({"min_interval": float("nan")}, "min_interval must be a finite number"),
    ],
)
def test_options_are_validated(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Progress(**kwargs)
    with pytest.raises(ValueError, match=message):
        track([1, 2], **kwargs)


@pytest.mark.parametrize("n", [-1, 1.5, True])
def test_update_needs_a_non_negative_integer(n):
    bar = Progress(total=3, progress=False)
    with pytest.raises(ValueError, match=f"n must be an integer >= 0; got {n!r}"):
        bar.update(n)


# ---------------------------------------------------------------------- throttling
def test_redraws_at_most_once_per_min_interval():
    # Binary fractions keep the fake times exact: 1024 updates, one every 1/1024 s, with
    # min_interval = 1/8 s give a redraw every 128 updates.
    out, clock = FakeTTY(), FakeClock()
    with Progress(total=1024, stream=out, clock=clock, min_interval=0.125) as bar:
        for _ in range(1024):
            clock.now += 1 / 1024
            bar.update()
    drawn = frames(out)
    assert len(drawn) == 1 + 8 + 1  # start, 8 redraws, final state on close
    assert [f.split("| ")[1].split(" ")[0] for f in drawn[1:-1]] == [
        f"{128 * k}/1024" for k in range(1, 9)
    ]
    assert bar.n == 1024 and drawn[-1].startswith("100%|") and drawn[-1].endswith("\n")


def test_default_throttle_is_ten_per_second():
    out, clock = FakeTTY(), FakeClock()
    with Progress(stream=out, clock=clock) as bar:
        for _ in range(10_000):
            clock.now += 1e-4  # 10 000 updates over about one second
            bar.update()
    assert 9 <= len(frames(out)) - 2 <= 10


def test_no_redraw_within_min_interval_then_one_after():
    out, clock = FakeTTY(), FakeClock()
    bar = Progress(total=10, stream=out, clock=clock, min_interval=0.5)
    clock.now = 0.49
    bar.update(5)
    assert len(frames(out)) == 1  # only the start
    clock.now = 0.5
    bar.update()
    assert len(frames(out)) == 2 and "6/10" in frames(out)[-1]
    clock.now = 0.6
    bar.update()
    assert len(frames(out)) == 2
    bar.close()  # the final state is drawn whatever the interval
    assert "7/10" in frames(out)[-1] and len(frames(out)) == 3


def test_min_interval_zero_draws_every_update():
    out = FakeTTY()
    with Progress(total=5, stream=out, clock=FakeClock(), min_interval=0) as bar:
        for _ in range(5):
            bar.update()
    assert len(frames(out)) == 1 + 5 + 1


# ---------------------------------------------------------------------- track
def test_track_yields_every_item_and_takes_the_length():
    out, clock = FakeTTY(), FakeClock()
    items = []
    for x in track(["a", "b", "c"], desc="items", stream=out, clock=clock):
        clock.now += 1
        items.append(x)
    assert items == ["a", "b", "c"]
    assert frames(out)[-1].startswith("items: 100%|") and "3/3" in frames(out)[-1]


def test_track_of_a_generator_has_an_unknown_total():
    out = FakeTTY()
    assert sum(track((i for i in range(4)), stream=out, clock=FakeClock())) == 6
    assert frames(out)[-1].startswith("4 it [")


def test_track_explicit_total_and_early_break_close_the_bar():
    out = FakeTTY()
    tracked = track(iter(range(100)), total=100, stream=out, clock=FakeClock())
    for i in tracked:
        if i == 3:
            break
    tracked.close()  # what the interpreter does when the generator is dropped
    assert frames(out)[-1].endswith("3/100 [00:00<?, ? it/s]\n")


def test_track_is_silent_off_a_terminal():
    out = io.StringIO()
    assert list(track(range(5), stream=out)) == [0, 1, 2, 3, 4]
    assert out.getvalue() == ""


def test_long_library_work_reports_progress_only_when_asked(capsys):
    # evaluate() over sampled worlds and compare() draw a bar when forced; under pytest
    # stderr is not a terminal, so the default (None) stays silent
    from fuzzytruth import compare, evaluate
    from fuzzytruth.datasets import image_collection

    collection = image_collection()
    runs = {"strong": collection.run_objects()["strong"], "weak": collection.run_objects()["weak"]}
    evaluation = evaluate(runs, collection.membership, ["AP"], n_worlds=20, rng=0, progress=True)
    err = capsys.readouterr().err
    assert "worlds" in err and "20/20" in err
    evaluate(runs, collection.membership, ["AP"], n_worlds=20, rng=0)
    compare(evaluation, rng=0, n_resamples=200)
    assert capsys.readouterr().err == ""
    compare(evaluation, rng=0, n_resamples=200, progress=True)
    assert "compare" in capsys.readouterr().err
