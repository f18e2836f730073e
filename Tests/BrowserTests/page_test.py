#!/usr/bin/env python3
"""Drives the preview page of `lumascan serve` in a real headless Chromium and checks what a user would see.

    python3 Tests/BrowserTests/page_test.py --url http://127.0.0.1:PORT/ --expect-text 4006381333931 \
        [--expect-text …] [--expect-result-centre 0.5,0.5] [--screenshot page.png] [--token TOKEN] [--timeout 30]

It talks to Chromium over the DevTools protocol on --remote-debugging-pipe (JSON messages ended by a NUL byte, on
the browser's fds 3 and 4), with nothing but the standard library (Debian 12's /usr/bin/python3 and the `chromium`
package). The checks, in order, each failing with a message that names it:
  1. the page loads and its event stream connects (#connection says "connected");
  2. #results gets an item whose text includes each --expect-text;
  3. the overlay draws the last result: `polygon.result`'s points are the report's polygon (window.lumascan.lastReport,
     frame pixels) divided by the frame size from GET /api/status, and its on-screen bounding box lies where that
     polygon falls on the <img id="preview"> (within 3 % of the image's size); the overlay covers the image exactly;
     the preview shows an image; with --expect-result-centre, the polygon is centred where the code is in the frame;
     each detection that came was drawn as a `polygon.detection` with its normalizedPolygon x 1000 and removed again
     within 1.5 s;
  4. a real mouse click on #btn-pause makes GET /api/status say "paused" and #scanning-state show it; #btn-resume
     brings back "scanning" (when scanning had stopped, #btn-start is clicked first);
  5. no JavaScript exception was thrown on the page.
With --latency SECONDS it then measures, for that long, how late each report reaches the screen: the page notes the
wall-clock time of the animation frame that paints each report (window.lumascan.shownTimes) and the report carries
its frame's capture time on the engine's CLOCK_MONOTONIC, which this script relates to the wall clock (same machine).
It prints the figures (and writes them to --latency-json FILE); it is a measurement, not a check.
The test only relies on the contract (URLs, JSON fields, the page's ids and classes), not on any particular server.
Exit status: 0 when every check passed, 1 when one failed, 2 when the browser could not be run.
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request


class Failure(Exception):
    """A check failed: the message says which and what was seen."""


class SetupError(Exception):
    """The browser could not be started or stopped answering."""


def log(message):
    print(f"page_test: {message}", flush=True)


class Browser:
    """A headless Chromium and one page in it, driven over --remote-debugging-pipe."""

    def __init__(self, executable, width=1280, height=900):
        self.profile = tempfile.mkdtemp(prefix="lumascan-page-test-")
        self.next_id = 0
        self.buffer = b""
        self.events = []        # DevTools events received and not yet looked at
        self.exceptions = []    # JavaScript exceptions thrown on the page
        self.console_errors = []  # errors the browser logged (failed requests, Content-Security-Policy, …)
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def arrange_fds():
            # In the child, before exec: the browser reads commands on fd 3 and writes answers on fd 4. Copy the pipe
            # ends above 10 first so that dup2 cannot overwrite one with the other; os.dup2's copies are inheritable,
            # every other descriptor of ours is close-on-exec (PEP 446).
            read_end = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            write_end = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        command = [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                   "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "--no-first-run",
                   "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                   "--disable-component-update", "--mute-audio", f"--window-size={width},{height}", "about:blank"]
        self.stderr = open(os.path.join(self.profile, "chromium-stderr.log"), "wb")
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.stderr, stderr=self.stderr,
                                            preexec_fn=arrange_fds, close_fds=False)
        except OSError as error:
            self.cleanup()
            raise SetupError(f"cannot start {executable}: {error}") from error
        finally:
            os.close(to_browser_read)
            os.close(from_browser_write)
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False, timeout=30)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(domain)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise SetupError(f"Chromium closed the DevTools pipe (exit status {self.process.poll()}; "
                                 f"its output: {self.stderr_tail()})")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def _note(self, message):
        if message.get("method") == "Runtime.exceptionThrown":
            details = message["params"]["exceptionDetails"]
            description = details.get("exception", {}).get("description") or details.get("text")
            self.exceptions.append(f"{description} (line {details.get('lineNumber')}, {details.get('url', '')})")
        elif message.get("method") == "Log.entryAdded":
            entry = message["params"]["entry"]
            if entry.get("level") == "error" and not entry.get("url", "").endswith("/favicon.ico"):
                self.console_errors.append(f"{entry.get('text')} ({entry.get('url', '')})"[:300])
        else:
            self.events.append(message)
            del self.events[:-200]

    def call(self, method, params=None, session=True, timeout=15):
        """Sends a command and returns its result, keeping the events that arrive meanwhile."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.to_browser, data):]
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer is None:
                raise SetupError(f"Chromium did not answer {method} within {timeout} s")
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise SetupError(f"{method} failed: {answer['error'].get('message')}")
                return answer.get("result", {})
            if "method" in answer:
                self._note(answer)

    def pump(self):
        """Takes in the events that have arrived (JavaScript exceptions, mostly)."""
        while True:
            message = self._read_message(time.monotonic())
            if message is None:
                return
            if "method" in message:
                self._note(message)

    def evaluate(self, expression):
        """The value of a JavaScript expression on the page (awaited when it is a promise)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise Failure(f"evaluating {expression[:80]!r} threw: "
                          f"{details.get('exception', {}).get('description') or details.get('text')}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout, what):
        """Polls a JavaScript expression until it is truthy; returns its value, or fails naming `what`."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise Failure(f"timed out after {timeout} s waiting for {what}")
            self.pump()
            time.sleep(0.2)

    def click(self, element_id):
        """A real left click (mouse moved, pressed, released) at the centre of an element."""
        box = self.evaluate(f"""(() => {{
            const e = document.getElementById({json.dumps(element_id)});
            if (!e) return null;
            e.scrollIntoView({{block: "center"}});
            const r = e.getBoundingClientRect();
            return {{x: r.left + r.width / 2, y: r.top + r.height / 2, disabled: e.disabled === true}};
        }})()""")
        if box is None:
            raise Failure(f"#{element_id} is not on the page")
        if box["disabled"]:
            raise Failure(f"#{element_id} is disabled, cannot click it")
        for kind, extra in (("mouseMoved", {}), ("mousePressed", {"button": "left", "clickCount": 1}),
                            ("mouseReleased", {"button": "left", "clickCount": 1})):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": box["x"], "y": box["y"], **extra})

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"}, timeout=30)["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def stderr_tail(self):
        try:
            with open(os.path.join(self.profile, "chromium-stderr.log"), "rb") as file:
                return file.read()[-600:].decode(errors="replace").strip() or "(none)"
        except OSError:
            return "(none)"

    def close(self):
        try:
            if self.process.poll() is None:
                try:
                    self.call("Browser.close", session=False, timeout=5)
                except (SetupError, OSError):
                    pass
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            for fd in (self.to_browser, self.from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.cleanup()

    def cleanup(self):
        self.stderr.close() if hasattr(self, "stderr") else None
        shutil.rmtree(self.profile, ignore_errors=True)


def get_json(url):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Cache-Control": "no-store"}),
                                    timeout=10) as answer:
            return json.loads(answer.read())
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise Failure(f"GET {url} failed: {error}") from error


def status(base):
    return get_json(urllib.parse.urljoin(base, "api/status"))


# Everything the geometry check needs, read in one go so that the report and the polygon drawn belong together.
OVERLAY_STATE = """(() => {
  const rect = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, width: r.width, height: r.height};
  };
  const img = document.getElementById("preview"), svg = document.getElementById("overlay");
  const result = svg && svg.querySelector("polygon.result");
  const report = window.lumascan && window.lumascan.lastReport;
  return {
    report: report ? {polygon: report.polygon || null, frame: report.frame, text: report.text || null} : null,
    points: result ? result.getAttribute("points") : null,
    polygonBox: result ? rect(result) : null,
    img: img ? rect(img) : null,
    imgNatural: img ? {width: img.naturalWidth, height: img.naturalHeight} : null,
    svg: svg ? rect(svg) : null,
    viewBox: svg ? svg.getAttribute("viewBox") : null,
  };
})()"""

# Detection polygons live half a second: rather than hope to poll at the right moment, watch the overlay for them.
WATCH_DETECTIONS = """(() => {
  const seen = window.__pageTest = {detections: [], before: window.lumascan.lastDetection};
  const entries = new Map();
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof SVGElement && node.matches("polygon.detection"))) continue;
        const entry = {points: node.getAttribute("points"), frame: node.getAttribute("data-frame"),
                       recognizer: node.getAttribute("data-recognizer"), added: performance.now(), removed: null};
        entries.set(node, entry);
        seen.detections.push(entry);
        if (seen.detections.length > 200) seen.detections.shift();
      }
      for (const node of record.removedNodes) {
        if (entries.has(node)) { entries.get(node).removed = performance.now(); entries.delete(node); }
      }
    }
  }).observe(document.getElementById("overlay"), {childList: true, subtree: true});
  return true;
})()"""

DETECTIONS = """(() => {
  const last = window.lumascan.lastDetection;
  return {seen: window.__pageTest.detections, now: performance.now(),
          last: last && last !== window.__pageTest.before
            ? {frame: String(last.frame), normalizedPolygon: last.normalizedPolygon || null} : null};
})()"""


def check_results(browser, expected, timeout):
    """Waits for each expected text in #results."""
    deadline = time.monotonic() + timeout
    missing = list(expected)
    items = []
    while True:
        items = browser.evaluate("[...document.querySelectorAll('#results > li.result')]"
                                 ".map(li => [li.textContent, li.innerText])")
        missing = [text for text in expected if not any(text in content for content, _ in items)]
        if not missing:
            break
        if time.monotonic() > deadline:
            shown = "; ".join(" ".join(shown.split()) for _, shown in items[:8]) or "nothing"
            raise Failure(f"#results never showed {missing} within {timeout} s (it shows: {shown})")
        browser.pump()
        time.sleep(0.1)
    log(f"ok: #results shows {len(expected)} expected text(s) among {len(items)} item(s)")


def check_detections(browser):
    """The detections drawn since the page loaded: the last one's points, and each gone within about 500 ms."""
    state = browser.evaluate(DETECTIONS)
    seen, last = state["seen"], state["last"]
    if last is None or not last["normalizedPolygon"]:
        log("note: no detection event with a polygon came, so detection polygons were not checked")
        return
    if not seen:
        raise Failure("detection events came but no polygon.detection was ever added to the overlay")
    drawn = [entry for entry in seen if entry["frame"] == last["frame"]]
    if not drawn:
        raise Failure(f"no polygon.detection with data-frame={last['frame']} (the last detection's frame) was drawn")
    points = [tuple(float(v) / 1000 for v in pair.split(",")) for pair in drawn[-1]["points"].split()]
    wanted = [tuple(p) for p in last["normalizedPolygon"]]
    if len(points) != len(wanted) or any(abs(a - b) > 0.002 for p, q in zip(points, wanted) for a, b in zip(p, q)):
        raise Failure(f"the detection polygon's points {drawn[-1]['points']!r} are not the detection's "
                      f"normalizedPolygon {last['normalizedPolygon']} x 1000")
    for entry in seen:
        lifetime = (entry["removed"] if entry["removed"] is not None else state["now"]) - entry["added"]
        if lifetime > 1500:
            raise Failure(f"a detection polygon (frame {entry['frame']}) stayed {lifetime:.0f} ms on the overlay, "
                          "not about 500 ms")
    log(f"ok: {len(seen)} detection polygon(s) drawn with the detections' points, each gone within 1.5 s")


def check_overlay(browser, base, centre=None):
    frame = status(base).get("frame")
    if not frame or not frame.get("width") or not frame.get("height"):
        raise Failure(f"GET /api/status has no frame size ({frame!r})")
    width, height = frame["width"], frame["height"]
    state = browser.evaluate(OVERLAY_STATE)
    if state["img"] is None or state["svg"] is None:
        raise Failure("the page has no <img id=preview> or <svg id=overlay>")
    if state["viewBox"] != "0 0 1000 1000":
        raise Failure(f"#overlay's viewBox is {state['viewBox']!r}, not '0 0 1000 1000'")
    img, svg = state["img"], state["svg"]
    if img["width"] < 50 or img["height"] < 50:
        raise Failure(f"the preview image is not visible on the page (client rect {img})")
    if any(abs(img[k] - svg[k]) > 1.5 for k in ("left", "top", "width", "height")):
        raise Failure(f"#overlay ({svg}) does not lie exactly over #preview ({img})")
    report = state["report"]
    if report is None or not report["polygon"]:
        raise Failure("window.lumascan.lastReport has no polygon: no completed result with a polygon was received")
    if not state["points"]:
        raise Failure("the overlay has no polygon.result although a result with a polygon was received")
    drawn = [tuple(float(v) / 1000 for v in pair.split(",")) for pair in state["points"].split()]
    wanted = [(x / width, y / height) for x, y in report["polygon"]]
    if len(drawn) != len(wanted) or any(abs(a - b) > 0.002 for p, q in zip(drawn, wanted) for a, b in zip(p, q)):
        raise Failure(f"polygon.result's points {state['points']!r} are not the report's polygon {report['polygon']} "
                      f"divided by the frame size {width}x{height}")
    # Where the code is on screen: the report's polygon mapped onto the image, against the polygon drawn.
    xs = [img["left"] + x * img["width"] for x, _ in wanted]
    ys = [img["top"] + y * img["height"] for _, y in wanted]
    expected_box = {"left": min(xs), "top": min(ys), "right": max(xs), "bottom": max(ys)}
    box = state["polygonBox"]
    actual_box = {"left": box["left"], "top": box["top"], "right": box["left"] + box["width"],
                  "bottom": box["top"] + box["height"]}
    tolerance = {"left": img["width"], "right": img["width"], "top": img["height"], "bottom": img["height"]}
    off = {k: round(actual_box[k] - expected_box[k], 1) for k in expected_box if
           abs(actual_box[k] - expected_box[k]) > 0.03 * tolerance[k]}
    if off:
        def show(box):
            return "(" + ", ".join(f"{k} {v:.0f}" for k, v in box.items()) + ")"
        raise Failure(f"polygon.result is drawn at {show(actual_box)} on screen but the code is at "
                      f"{show(expected_box)} (off by {off} px, more than 3 % of the image)")
    if centre:
        # Independent of the report: where the code really is in the frame (the server's polygon must be right too).
        centre_x = (expected_box["left"] + expected_box["right"]) / 2
        centre_y = (expected_box["top"] + expected_box["bottom"]) / 2
        wanted_x, wanted_y = img["left"] + centre[0] * img["width"], img["top"] + centre[1] * img["height"]
        if abs(centre_x - wanted_x) > 0.05 * img["width"] or abs(centre_y - wanted_y) > 0.05 * img["height"]:
            at_x = (centre_x - img["left"]) / img["width"]
            at_y = (centre_y - img["top"]) / img["height"]
            raise Failure(f"the result's polygon {report['polygon']} is centred at ({at_x:.3f}, {at_y:.3f}) of the "
                          f"frame, not at the code's centre {centre} (more than 5 % off)")
    log(f"ok: polygon.result matches the report of {report['text']!r} (frame {report['frame']}) and lies on the "
        f"code on screen (box {', '.join(f'{k} {v:.0f}' for k, v in actual_box.items())})")
    natural = state["imgNatural"]
    if not natural or not natural["width"]:
        raise Failure("the preview (preview.mjpg) shows no image")
    if abs(natural["width"] / natural["height"] - width / height) > 0.02:
        raise Failure(f"the preview is {natural['width']}x{natural['height']}, "
                      f"not of the frame's aspect ({width}x{height})")
    log(f"ok: the preview shows a {natural['width']}x{natural['height']} image under the overlay")


def scanning_state_is(browser, state):
    return f"document.getElementById('scanning-state').textContent.trim() === {json.dumps(state)}"


def press(browser, base, button, wanted, timeout=10):
    """Clicks a control button, then waits until the server and the page both say `wanted`."""
    browser.wait_for(f"!document.getElementById({json.dumps(button)}).disabled", timeout, f"#{button} to be enabled")
    browser.click(button)
    deadline = time.monotonic() + timeout
    while (server_state := status(base).get("scanning")) != wanted:
        if time.monotonic() > deadline:
            error = browser.evaluate("document.getElementById('error').textContent")
            raise Failure(f"after clicking #{button}, GET /api/status says scanning={server_state!r}, not {wanted!r}"
                          + (f" (#error: {error!r})" if error else ""))
        time.sleep(0.1)
    browser.wait_for(scanning_state_is(browser, wanted), timeout, f"#scanning-state to show {wanted!r} after #{button}")
    error = browser.evaluate("(e => e.hidden ? '' : e.textContent)(document.getElementById('error'))")
    if error:
        raise Failure(f"#error shows {error!r} after clicking #{button}")
    log(f"ok: clicking #{button} made the server and #scanning-state say {wanted!r}")


def check_controls(browser, base):
    current = status(base).get("scanning")
    if current in ("idle", "stopped"):
        log(f"scanning is {current!r}: starting it first")
        press(browser, base, "btn-start", "scanning")
    elif current == "paused":
        press(browser, base, "btn-resume", "scanning")
    press(browser, base, "btn-pause", "paused")
    press(browser, base, "btn-resume", "scanning")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure_latency(browser, seconds):
    """Capture-to-screen latency of the reports painted in the next `seconds`, in ms, overall and for results."""
    browser.evaluate("window.lumascan.shownTimes.length = 0")
    # The offset of the wall clock from CLOCK_MONOTONIC, read as close together as Python can.
    offsets = []
    for _ in range(5):
        before = time.monotonic()
        wall = time.time()
        after = time.monotonic()
        offsets.append((after - before, wall - (before + after) / 2))
    offset = min(offsets)[1]
    # The page keeps the last 512 reports: take them every 2 s (and at the end), emptying the page's list.
    deadline = time.monotonic() + seconds
    shown = []
    while True:
        now = time.monotonic()
        if now >= deadline:
            break
        time.sleep(min(2, deadline - now))
        browser.pump()
        shown += browser.evaluate("window.lumascan.shownTimes.splice(0)") or []
    figures = {"seconds": seconds}
    for name, kinds in (("reports", None), ("results", {"COMPLETED_RESULT"})):
        latencies = [wall_ms - (capture + offset) * 1000 for capture, wall_ms, kind in shown
                     if kinds is None or kind in kinds]
        if not latencies:
            figures[name] = {"count": 0}
            continue
        figures[name] = {"count": len(latencies), "p50": percentile(latencies, 0.5),
                         "p90": percentile(latencies, 0.9), "max": max(latencies), "min": min(latencies)}
    for name in ("reports", "results"):
        f = figures[name]
        if f["count"]:
            log(f"latency: {name} {f['count']}: capture to screen p50 {f['p50']:.1f} ms, p90 {f['p90']:.1f} ms, "
                f"min {f['min']:.1f} ms, max {f['max']:.1f} ms")
        else:
            log(f"latency: no {name} painted in {seconds} s")
    if not figures["reports"]["count"]:
        raise Failure(f"no report reached the page in {seconds} s of --latency")
    return figures


def run(options):
    executable = options.chromium or os.environ.get("CHROMIUM") or shutil.which("chromium") \
        or shutil.which("chromium-browser")
    if not executable:
        raise SetupError("no Chromium found: apt-get install chromium (or give --chromium PATH)")
    base = options.url if options.url.endswith("/") else options.url + "/"
    page_url = base + (f"#token={urllib.parse.quote(options.token)}" if options.token else "")
    browser = Browser(executable)
    try:
        navigation = browser.call("Page.navigate", {"url": page_url}, timeout=30)
        if navigation.get("errorText"):
            raise Failure(f"cannot load {base}: {navigation['errorText']}")
        # Not the load event: the MJPEG preview never finishes loading.
        browser.wait_for("document.readyState !== 'loading' && !!window.lumascan", 15,
                         "the page to load and run app.js (window.lumascan)")
        browser.wait_for("document.getElementById('connection').textContent.trim() === 'connected'", 15,
                         "#connection to say 'connected' (the event stream api/events)")
        log(f"ok: the page loaded from {base} and its event stream is connected")
        browser.evaluate(WATCH_DETECTIONS)
        check_results(browser, options.expect_text, options.timeout)
        check_overlay(browser, base, options.expect_result_centre)
        check_detections(browser)
        if options.screenshot:
            browser.screenshot(options.screenshot)
            log(f"screenshot saved to {options.screenshot}")
        check_controls(browser, base)
        if options.latency:
            figures = measure_latency(browser, options.latency)
            if options.latency_json:
                with open(options.latency_json, "w") as out:
                    json.dump(figures, out)
        browser.pump()
        if browser.exceptions:
            raise Failure("JavaScript exceptions on the page: " + "; ".join(browser.exceptions))
        log("ok: no JavaScript exception on the page")
        for error in dict.fromkeys(browser.console_errors):  # not failures: a reconnection logs some, for example
            log(f"note: the browser logged: {error}")
    except Failure:
        if options.screenshot:
            try:
                browser.screenshot(options.screenshot)
                log(f"screenshot of the failure saved to {options.screenshot}")
            except (SetupError, OSError):
                pass
        raise
    finally:
        browser.close()


def centre_argument(text):
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not X,Y") from None
    return (x, y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8080/")
    parser.add_argument("--expect-text", action="append", default=[], metavar="TEXT",
                        help="a decoded text that must appear in #results (repeatable)")
    parser.add_argument("--expect-result-centre", type=centre_argument, metavar="X,Y",
                        help="where the codes' centre is in the frame, 0-1 (e.g. 0.5,0.5): the last result's polygon "
                             "must be centred there within 5 %%")
    parser.add_argument("--screenshot", metavar="FILE", help="save a PNG screenshot of the page after the checks")
    parser.add_argument("--token", help="a bearer token, given to the page as #token=…")
    parser.add_argument("--timeout", type=float, default=30, help="seconds to wait for the results (default 30)")
    parser.add_argument("--latency", type=float, metavar="SECONDS",
                        help="after the checks, measure capture-to-screen latency for this long (a measurement)")
    parser.add_argument("--latency-json", metavar="FILE", help="write --latency's figures to FILE as JSON")
    parser.add_argument("--chromium", help="the Chromium executable (default: $CHROMIUM or chromium on PATH)")
    options = parser.parse_args()
    if not options.expect_text:
        parser.error("give at least one --expect-text")
    try:
        run(options)
    except Failure as failure:
        log(f"FAIL: {failure}")
        return 1
    except SetupError as error:
        log(f"ERROR: {error}")
        return 2
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
