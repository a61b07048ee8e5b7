"""The tokens/s gauge's arithmetic, worked out by hand."""

from __future__ import annotations

import pytest

from serving.metrics import TokenRate


def test_token_rate_uses_the_newest_sample_older_than_the_window() -> None:
    rate = TokenRate(window_s=10.0, start_total=0)
    start = rate._samples[0][0]  # the monotonic clock: "start + 26 - (start + 15)" is 11 only to within rounding
    assert rate.observe(50, now=start + 5) == pytest.approx(10.0)  # 50 tokens in 5 s since start
    assert rate.observe(150, now=start + 15) == pytest.approx(10.0)  # t=5 is now 10 s behind t=15: (150-50)/10
    # At t=26 the t=15 sample is 11 s old, so it becomes the base: (200-150)/11.
    assert rate.observe(200, now=start + 26) == pytest.approx(50 / 11)
    assert rate.observe(200, now=start + 26) == pytest.approx(50 / 11)
