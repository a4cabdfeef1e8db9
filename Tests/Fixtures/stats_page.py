#!/usr/bin/env python3
"""Loads a stats page in headless chromium and prints, as JSON, what the browser made of it: the
console messages it logged, each chart (`svg[data-chart]`) with its marks (`[data-mark]`, their
`data-name`s) and state, each section (`section.card`, by its h2) with its charts and whether it says
"(none)", and the elements that would load something (`src`/`href` attributes, `link`, `script`).

Usage: stats_page.py CHROMIUM PAGE.html [SCREENSHOT.png]
The DOM read is chromium's own (`--dump-dom`), so markup the browser parses otherwise than the page
meant shows here; console messages come from its log on standard error (`--enable-logging=stderr`)."""
import html.parser, json, os, re, subprocess, sys, tempfile

chromium, page = sys.argv[1], os.path.abspath(sys.argv[2])
screenshot = sys.argv[3] if len(sys.argv) > 3 else None


def browse(*extra):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
             "--enable-logging=stderr", "--v=0", *extra, "file://" + page],
            capture_output=True, text=True, timeout=120)


class Reader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts, self.sections, self.loads = {}, [], []
        self.chart = None
        self.depth = 0
        self.heading = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "link", "iframe", "object", "embed") or "src" in attrs or "href" in attrs:
            self.loads.append(tag)
        if tag == "section" and "card" in attrs.get("class", "").split():
            self.sections.append({"title": "", "charts": [], "none": False})
        if tag == "h2" and self.sections:
            self.heading = ""
        if tag == "p" and "none" in attrs.get("class", "").split() and self.sections:
            self.sections[-1]["none"] = True
        if tag == "svg" and "data-chart" in attrs:
            self.chart = attrs["data-chart"]
            self.charts[self.chart] = {"marks": 0, "names": [], "state": attrs.get("data-state")}
            if self.sections:
                self.sections[-1]["charts"].append(self.chart)
        elif self.chart and "data-mark" in attrs:
            self.charts[self.chart]["marks"] += 1
            self.charts[self.chart]["names"].append(attrs.get("data-name", ""))

    def handle_endtag(self, tag):
        if tag == "svg":
            self.chart = None
        if tag == "h2" and self.heading is not None:
            self.sections[-1]["title"] = self.heading.strip()
            self.heading = None

    def handle_data(self, data):
        if self.heading is not None:
            self.heading += data


dumped = browse("--dump-dom")
if dumped.returncode != 0:
    sys.exit(f"chromium exited {dumped.returncode}: {dumped.stderr[-2000:]}")
reader = Reader()
reader.feed(dumped.stdout)
console = [line for line in dumped.stderr.splitlines() if re.search(r":(INFO|WARNING|ERROR):CONSOLE", line)]
if screenshot:
    shot = browse("--screenshot=" + screenshot, "--window-size=1280,2400", "--hide-scrollbars")
    if shot.returncode != 0 or not os.path.exists(screenshot):
        sys.exit(f"chromium made no screenshot: {shot.stderr[-2000:]}")
json.dump({"console": console, "charts": reader.charts, "sections": reader.sections, "loads": reader.loads,
           "dom_bytes": len(dumped.stdout)}, sys.stdout)
