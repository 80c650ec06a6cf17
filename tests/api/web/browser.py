"""What the browser tests drive: Debian's Chromium through its ChromeDriver (selenium, never a
downloaded browser), axe-core and the Nu Html Checker from npm, and a crawler over the links of
the served pages."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx
import pytest

from tests.conftest import REQUIRE_SERVICES

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
SCREENSHOTS = ROOT / "screenshots"
"""Where the tests leave a screenshot of each page at desktop and phone width."""

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
)
DESKTOP = (1280, 900, False)
PHONE = (390, 844, True)


def require_browser() -> None:
    """Chromium, its driver, Java (for the checker) and the npm tools, or a loud skip; under
    `make test` (ARGUSIC_REQUIRE_SERVICES=1) a failure."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER, AXE, VNU) if not p.exists()]
    if shutil.which("java") is None:
        missing.append("java")
    if not missing:
        return
    reason = f"browser tests need {', '.join(missing)}: run `make install` (ensure-browser.sh)"
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (ARGUSIC_REQUIRE_SERVICES=1: this must run, not skip)")
    pytest.skip(f"SKIPPED LOUDLY: {reason}")


@dataclass
class Load:
    """One page load: what the console said and which requests failed or left the machine."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


class Browser:
    """One Chromium session (a fresh profile), reused by every test of a module."""

    def __init__(self, origin: str) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must fetch nothing
        self.origin = origin
        self.profile = tempfile.mkdtemp(prefix="argusic-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "--window-size=1280,900"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
        self.driver.set_page_load_timeout(60)
        self.driver.set_script_timeout(60)

    def close(self) -> None:
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)

    def open(self, path: str) -> Load:
        """Load a page and wait for it to settle; what the console and network said."""
        self.driver.get_log("browser")
        self.driver.get_log("performance")  # only this load's entries from here on
        url = self.origin + path
        self.driver.get(url)
        self.script("return new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))")
        load = Load(url)
        for entry in self.driver.get_log("browser"):
            if entry["level"] == "SEVERE":
                load.console_errors.append(entry["message"])
        self.network(load)
        return load

    def network(self, load: Load) -> None:
        """Add the requests made since the last look to `load`."""
        urls: dict[str, str] = {}
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            params = message.get("params", {})
            if message["method"] == "Network.requestWillBeSent":
                urls[params["requestId"]] = params["request"]["url"]
                load.requests.append(params["request"]["url"])
            elif message["method"] == "Network.responseReceived":
                status = params["response"]["status"]
                if status >= 400:
                    load.failed_requests.append(f"{status} {params['response']['url']}")
            elif message["method"] == "Network.loadingFailed":
                what = urls.get(params["requestId"], params["requestId"])
                load.failed_requests.append(f"{params['errorText']} {what}")

    def script(self, source: str, *args: Any) -> Any:
        return self.driver.execute_script(source, *args)

    def axe(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations on the page as it stands."""
        if not self.script("return typeof axe !== 'undefined'"):
            self.script(AXE.read_text())
        result = self.script(
            "return axe.run(document, {resultTypes: ['violations']})"
            ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
            " nodes: v.nodes.map(n => n.target.join(' '))})))"
        )
        return [v for v in result if v["impact"] in ("serious", "critical")]

    def layout_shift(self) -> float:
        """The page's cumulative layout shift so far (shifts after user input excluded)."""
        return float(
            self.script(
                "return new Promise(done => { let total = 0;"
                " new PerformanceObserver(list => { for (const e of list.getEntries())"
                " if (!e.hadRecentInput) total += e.value; })"
                ".observe({type: 'layout-shift', buffered: true});"
                " setTimeout(() => done(total), 300); })"
            )
        )

    def emulate(self, width: int, height: int, mobile: bool) -> None:
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )

    def horizontal_overflow(self) -> int:
        """How many pixels the page is wider than the viewport (tables scroll in their box)."""
        return int(self.script("return document.documentElement.scrollWidth - window.innerWidth"))

    def screenshot(self, target: Path) -> None:
        """The whole page, beyond the viewport, as a PNG."""
        size = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        shot = self.driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": clip,
            },
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(shot["data"]))


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        for name in ("href", "src"):
            if (value := values.get(name)) and not value.startswith("data:"):
                self.links.append(value)


def parse(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


@dataclass
class Crawl:
    pages: dict[str, str]
    """Every HTML page reached from /, by path and query."""
    resources: dict[str, int]
    """Every other internal link (JSON, evidence, static files), with its status."""
    broken: list[str]
    """Links that did not resolve: a status other than 200, or a fragment the page lacks."""


def crawl(origin: str, start: str = "/") -> Crawl:
    """Follow every internal link from `start`, as a browser asking for HTML would."""
    pages: dict[str, str] = {}
    resources: dict[str, int] = {}
    fragments: list[tuple[str, str, str]] = []
    broken: list[str] = []
    queue: list[tuple[str, str]] = [(start, "(start)")]
    seen = {start}
    with httpx.Client(base_url=origin, headers={"Accept": "text/html"}, timeout=60) as client:
        while queue:
            path, source = queue.pop(0)
            answer = client.get(path)
            if answer.status_code != 200:
                broken.append(f"{path} (linked from {source}) answers {answer.status_code}")
                continue
            if not answer.headers.get("content-type", "").startswith("text/html"):
                resources[path] = answer.status_code
                continue
            pages[path] = answer.text
            for link in parse(answer.text).links:
                target, fragment = urldefrag(urljoin(origin + path, link))
                parts = urlsplit(target)
                if f"{parts.scheme}://{parts.netloc}" != origin:
                    continue  # an outside address: a link for the reader, never fetched here
                local = parts.path + (f"?{parts.query}" if parts.query else "")
                if fragment:
                    fragments.append((local, fragment, path))
                if local not in seen:
                    seen.add(local)
                    queue.append((local, path))
    for target, fragment, source in fragments:
        if target in pages and fragment not in parse(pages[target]).ids:
            broken.append(f"{target}#{fragment} (linked from {source}): no such id")
    return Crawl(pages, resources, broken)


def validate(pages: dict[str, str]) -> list[str]:
    """The Nu Html Checker's errors and warnings over every page, in one run."""
    with tempfile.TemporaryDirectory() as folder:
        names = {}
        for i, (path, html) in enumerate(sorted(pages.items())):
            name = Path(folder) / f"page-{i:04d}.html"
            name.write_text(html)
            names[name.name] = path
        done = subprocess.run(
            ["java", "-Xss1m", "-jar", str(VNU), "--format", "json", "--exit-zero-always", folder],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
    messages = json.loads(done.stderr)["messages"]
    return [
        f"{names.get(Path(m.get('url', '')).name, m.get('url'))}:{m.get('lastLine')}: {m['type']}"
        f"/{m.get('subType', '')}: {m['message']}"
        for m in messages
        if m["type"] != "info" or m.get("subType") == "warning"
    ]
