"""The report page in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

Skipped when Chromium or Playwright is missing, except under CI (``CI`` set),
where both are installed and their absence is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fake_study import ERROR

CHROMIUM = Path("/usr/bin/chromium")


def _missing() -> list[str]:
    missing = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install playwright)")
    if not CHROMIUM.exists():
        missing.append(f"chromium at {CHROMIUM} (apt-get install chromium)")
    return missing


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium; session-scoped so that a missing browser is found
    before the (session-scoped) report is built."""
    missing = _missing()
    if missing:
        message = "browser test needs " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must install them")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


def test_report_renders_offline_without_errors(browser, fake_report, fake_study_dir):
    page = browser.new_page()
    problems: list[str] = []
    requests: list[str] = []
    page.on(
        "console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(fake_report.as_uri(), wait_until="load")

    assert problems == []
    # Only the page itself and its inlined images: nothing fetched from anywhere.
    assert all(url == fake_report.as_uri() or url.startswith("data:") for url in requests)

    images = page.eval_on_selector_all(
        "figure img",
        "imgs => imgs.map(i => ({complete: i.complete, w: i.naturalWidth, h: i.naturalHeight,"
        " shown: i.getBoundingClientRect().width}))",
    )
    saved = {p.stem for p in (fake_study_dir / "figures").iterdir()}
    assert len(images) == len(saved) > 0
    for image in images:
        assert image["complete"] and image["w"] > 0 and image["h"] > 0 and image["shown"] > 100
    assert page.locator("svg").count() == 0  # figures are <img>, each checked above
    # Each figure kind is among them: a timeseries with an aggregate, a
    # secondary axis, two queue rows and marks, and a throughput figure.
    for name in ("grid-traces", "grid-aggregate", "grid-goodput"):
        image = page.locator(f"figure#fig-{name} img")
        assert image.evaluate("i => i.complete && i.naturalWidth > 0 && i.naturalHeight > 0")

    assert page.title() == "<script>alert(1)</script> & co"
    assert page.locator("h1").inner_text() == "<script>alert(1)</script> & co"
    tables = page.locator("table.results")
    assert tables.count() == 2
    assert tables.nth(0).locator("tbody tr").count() == 4
    assert tables.nth(1).locator("tbody tr").count() == 2
    assert page.locator("table.failed td.error").inner_text() == ERROR
    assert page.locator(".missing").count() == 4
    card = page.locator("table.scorecard")
    assert card.is_visible()
    assert card.locator("tbody tr").count() == 4
    verdicts = card.locator("td.verdict").all_inner_texts()
    assert verdicts == ["pass", "miss\nno cause named", "pass", "n/a"]  # the miss's note names no cause
    assert "2 of 4 claims reproduced" in page.locator("p.score").inner_text()
    page.close()
