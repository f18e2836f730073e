// LumaScan preview page: the live camera image (preview.mjpg) with the scan feedback drawn over it, from the engine's
// events (api/events, one JSON line per Server-Sent Event, the schema `lumascan scan` prints) and api/status.
// Every text that comes from an event is set with textContent or setAttribute, never parsed as HTML.
// window.lumascan exposes the page's state (frame size, last report, …) to the browser test and the console.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const SVG_NS = "http://www.w3.org/2000/svg";
  const DETECTION_MS = 500;      // a detection's polygon stays this long, fading at the end
  const FEEDBACK_MS = 1500;      // distance and hint fall back to "—" when nothing has said otherwise for this long
  const MAX_RESULTS = 50;
  const MAX_DETECTIONS = 32;     // polygons on screen at once, however fast detections come
  const STATUS_EVERY_MS = 10000; // api/status is read again this often (and after each reconnection or control)
  const TOKEN_KEY = "lumascan.token";
  const MAX_SHOWN_TIMES = 512;   // reports kept in page.shownTimes

  const DISTANCE_TEXT = { tooFar: "move closer", ok: "ok", tooClose: "move back" };
  const SCANNING_AFTER = {
    scanningStarted: "scanning", scanningPaused: "paused", scanningResumed: "scanning",
    scanningStopped: "stopped", scanningAborted: "stopped",
  };
  // Which controls make sense in which state (the server still decides: it answers 409 otherwise).
  const ALLOWED = {
    idle: ["start"], stopped: ["start"], starting: ["pause", "stop", "abort"],
    scanning: ["pause", "stop", "abort"], paused: ["resume", "stop", "abort"],
  };
  const ACTIONS = ["start", "pause", "resume", "stop", "abort"];
  const SYMBOLOGY_NAMES = {
    ean13: "EAN-13", ean8: "EAN-8", upca: "UPC-A", upce: "UPC-E", isbn10: "ISBN-10", isbn13: "ISBN-13",
    code39: "Code 39", code93: "Code 93", code128: "Code 128", i25: "Interleaved 2 of 5", databar: "GS1 DataBar",
    "databar-exp": "GS1 DataBar Expanded", codabar: "Codabar", qr: "QR code", "micro-qr": "Micro QR",
    datamatrix: "Data Matrix", pdf417: "PDF417", aztec: "Aztec", maxicode: "MaxiCode",
  };
  const SOURCE_ACTION_TEXT = {
    restartingStream: "restarting the stream", reopeningDevice: "reopening the device", stopping: "stopping",
  };
  const STATE_TEXT = {
    OK: "ok", UNREADABLE: "unreadable", TOO_SMALL: "too small: move closer", BLURRY: "blurry: hold still",
    NOT_PROPRIETARY: "not a secure code", FP_NOT_IN_FRAME: "secure graphic not in view",
    NO_AUTH: "cannot be authenticated",
  };

  const page = {
    frame: null,         // {width, height} of the camera frame in pixels, from `started` or api/status
    cutout: null,        // {x, y, width, height} normalised, from api/status
    scanning: null,      // idle / starting / scanning / paused / stopped
    lastReport: null,    // the last COMPLETED_RESULT report, as received
    lastDetection: null, // the last detection event, as received
    connected: false,    // whether the event stream is open
    status: null,        // the last api/status answer
    busy: false,         // a control request is under way
    // [captureTime (s, the engine's CLOCK_MONOTONIC), shownAt (ms, the wall clock), reportType] of the last reports,
    // shownAt taken in the animation frame that paints what the report changed: with the two clocks related on the
    // same machine, capture-to-screen latency (scripts/measure-kiosk.sh).
    shownTimes: [],
  };
  window.lumascan = page;

  const overlay = $("overlay");
  const stage = $("stage");
  const preview = $("preview");

  // --- Token: from the fragment (#token=…) into sessionStorage, then out of the address bar. ---

  let memoryToken = null; // when sessionStorage is not available

  function takeToken() {
    const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
    if (!match) return;
    const token = decodeURIComponent(match[1]);
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch { memoryToken = token; }
    history.replaceState(null, "", location.pathname + location.search);
  }

  function token() {
    try { return sessionStorage.getItem(TOKEN_KEY) ?? memoryToken; } catch { return memoryToken; }
  }

  // --- Small helpers. ---

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function isPoints(value) {
    return Array.isArray(value) && value.length >= 2 &&
      value.every((p) => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1]));
  }

  // Normalised 0–1 points to the overlay's 0–1000 units, "x,y x,y …".
  function svgPoints(points) {
    const unit = (v) => Math.round(v * 10000) / 10;
    return points.map(([x, y]) => `${unit(x)},${unit(y)}`).join(" ");
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message;
    box.hidden = false;
  }

  function hideError() {
    $("error").hidden = true;
    $("error").textContent = "";
  }

  const timers = {};

  // Runs `action` in `ms`, instead of what was last planned under the same key.
  function later(key, ms, action) {
    clearTimeout(timers[key]);
    timers[key] = setTimeout(action, ms);
  }

  // --- Frame, cutout, scanning state, connection. ---

  function setFrame(width, height) {
    if (!(Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0)) return;
    page.frame = { width, height };
    stage.style.setProperty("--aspect", String(width / height));
    if (page.lastReport) drawResult(page.lastReport);
  }

  function setCutout(cutout) {
    const rect = $("cutout");
    const shade = overlay.querySelector("path.shade");
    const valid = cutout && ["x", "y", "width", "height"].every((k) => Number.isFinite(cutout[k]));
    page.cutout = valid ? cutout : null;
    if (!valid) {
      rect.setAttribute("hidden", "");
      shade?.remove();
      return;
    }
    const [x, y, w, h] = [cutout.x, cutout.y, cutout.width, cutout.height].map((v) => Math.round(v * 10000) / 10);
    rect.setAttribute("x", x);
    rect.setAttribute("y", y);
    rect.setAttribute("width", w);
    rect.setAttribute("height", h);
    rect.removeAttribute("hidden");
    // Dim what is outside the cutout, as scanning SDKs do.
    const path = shade ?? document.createElementNS(SVG_NS, "path");
    path.setAttribute("class", "shade");
    path.setAttribute("fill-rule", "evenodd");
    path.setAttribute("d", `M0,0H1000V1000H0Z M${x},${y}h${w}v${h}h${-w}Z`);
    if (!shade) overlay.insertBefore(path, rect);
  }

  let scanningVersion = 0; // counts scanning changes seen, so that an older api/status answer does not undo one

  function setScanning(state) {
    scanningVersion += 1;
    page.scanning = state;
    const span = $("scanning-state");
    span.textContent = state ?? "—";
    span.dataset.state = state ?? "";
    updateButtons();
  }

  function setConnected(connected) {
    page.connected = connected;
    const span = $("connection");
    span.textContent = connected ? "connected" : "disconnected";
    span.className = `badge ${connected ? "connected" : "disconnected"}`;
  }

  function updateButtons() {
    const stopped = page.status && page.status.running === false;
    const allowed = ALLOWED[page.scanning];
    for (const action of ACTIONS) {
      $(`btn-${action}`).disabled = page.busy || stopped || (allowed !== undefined && !allowed.includes(action));
    }
  }

  // --- Detections and results on the overlay. ---

  function showDetection(event) {
    page.lastDetection = event;
    if (typeof event.distance === "string") {
      const span = $("distance");
      span.textContent = DISTANCE_TEXT[event.distance] ?? event.distance;
      span.dataset.distance = event.distance;
      later("distance", FEEDBACK_MS, () => { span.textContent = "—"; span.dataset.distance = ""; });
    }
    if (!isPoints(event.normalizedPolygon)) return;
    const polygon = document.createElementNS(SVG_NS, "polygon");
    polygon.setAttribute("class", "detection");
    polygon.setAttribute("data-recognizer", String(event.recognizer ?? ""));
    polygon.setAttribute("data-frame", String(event.frame ?? ""));
    polygon.setAttribute("points", svgPoints(event.normalizedPolygon));
    overlay.insertBefore(polygon, overlay.querySelector("polygon.result")); // results stay on top
    setTimeout(() => polygon.classList.add("fading"), DETECTION_MS - 200);
    setTimeout(() => polygon.remove(), DETECTION_MS);
    const shown = overlay.querySelectorAll("polygon.detection");
    for (let i = 0; i < shown.length - MAX_DETECTIONS; i += 1) shown[i].remove();
  }

  // The last completed result's polygon, from frame pixels to the overlay's units (needs the frame size).
  function drawResult(report) {
    let polygon = overlay.querySelector("polygon.result");
    if (!page.frame || !isPoints(report.polygon)) {
      polygon?.remove();
      return;
    }
    if (!polygon) {
      polygon = document.createElementNS(SVG_NS, "polygon");
      polygon.setAttribute("class", "result");
      overlay.appendChild(polygon);
    }
    const { width, height } = page.frame;
    polygon.setAttribute("points", svgPoints(report.polygon.map(([x, y]) => [x / width, y / height])));
    polygon.setAttribute("data-recognizer", String(report.recognizer ?? ""));
    polygon.setAttribute("data-frame", String(report.frame ?? ""));
  }

  // What a kiosk operator reads first: the symbology (or the kind of reading) and the value.
  function describe(report) {
    const detail = [];
    let kind;
    let value = report.text;
    if (report.recognizer === "meter" || report.meter) {
      kind = "Meter reading";
      value = report.meter?.value ?? report.text;
      if (Number.isFinite(report.meter?.confidence)) detail.push(`confidence ${Math.round(report.meter.confidence)}`);
    } else if (report.recognizer === "secure-qr" || report.secureQR) {
      kind = "Secure QR";
      detail.push(STATE_TEXT[report.state] ? `${STATE_TEXT[report.state]} (${report.state})` : String(report.state));
    } else {
      kind = SYMBOLOGY_NAMES[report.symbology] ?? report.symbology ?? report.recognizer ?? "Result";
      if (report.barcode?.addOn) detail.push(`add-on ${report.barcode.addOn}`);
      if (report.state && report.state !== "OK") detail.push(STATE_TEXT[report.state] ?? report.state);
    }
    if (report.reportType === "UNSUPPORTED_RESULT") detail.push("unsupported");
    return { kind, value, detail };
  }

  function addResult(report) {
    const { kind, value, detail } = describe(report);
    const list = $("results");
    // The same code read again and again (a barcode is reported on every frame it is read) counts up on one item.
    const key = JSON.stringify([report.recognizer, report.reportType, report.symbology, report.state, value, detail]);
    const newest = list.firstElementChild;
    if (newest && newest.dataset.key === key) {
      const count = Number(newest.dataset.count) + 1;
      newest.dataset.count = String(count);
      newest.querySelector(".count").textContent = `×${count}`;
      newest.querySelector(".time").textContent = new Date().toLocaleTimeString();
      return;
    }
    const item = element("li", "result");
    item.dataset.key = key;
    item.dataset.count = "1";
    item.setAttribute("data-symbology", String(report.symbology ?? ""));
    item.setAttribute("data-state", String(report.state ?? ""));
    item.setAttribute("data-recognizer", String(report.recognizer ?? ""));
    if (report.reportType !== "COMPLETED_RESULT") item.classList.add("unsupported");
    const head = element("div", "head");
    head.append(element("span", "kind", kind), element("span", "count"),
      element("time", "time", new Date().toLocaleTimeString()));
    item.append(head, element("div", "value", value ?? "(no text)"));
    if (detail.length) item.append(element("div", "detail", detail.join(" · ")));
    list.prepend(item);
    while (list.children.length > MAX_RESULTS) list.lastElementChild.remove();
    $("no-results").hidden = true;
  }

  function showGuidance(guidance) {
    const state = guidance.steadyState;
    if (typeof state !== "string") return;
    const span = $("hint");
    span.textContent = STATE_TEXT[state] ?? state;
    later("hint", FEEDBACK_MS, () => { span.textContent = "—"; });
  }

  // --- Events. ---

  function noteShown(event) {
    if (!Number.isFinite(event.captureTime)) return;
    requestAnimationFrame(() => {
      page.shownTimes.push([event.captureTime, performance.timeOrigin + performance.now(), event.reportType]);
      if (page.shownTimes.length > MAX_SHOWN_TIMES) page.shownTimes.shift();
    });
  }

  function handle(event) {
    if (!event || typeof event !== "object") return;
    const name = event.event;
    if (name in SCANNING_AFTER) {
      setScanning(SCANNING_AFTER[name]);
      return;
    }
    switch (name) {
      case "started":
        setFrame(event.width, event.height);
        if (typeof event.source === "string") $("source").textContent = event.source;
        break;
      case "detection":
        showDetection(event);
        break;
      case "report":
        noteShown(event);
        if (event.guidance) showGuidance(event.guidance);
        if (event.reportType === "IN_PROGRESS") break;
        if (event.reportType === "COMPLETED_RESULT") {
          page.lastReport = event;
          drawResult(event);
        }
        addResult(event);
        break;
      case "sourceFailed":
        showError(`Camera ${event.source ?? ""} failed: ${event.message ?? "unknown error"}; ` +
          `${SOURCE_ACTION_TEXT[event.action] ?? event.action ?? ""}`);
        break;
      case "sourceRecovered":
        hideError();
        break;
      case "stopped":
        setScanning("stopped");
        if (event.message) showError(`The engine stopped: ${event.message}`);
        refreshStatus();
        break;
      default:
        break; // events the page does not show, and any added later
    }
  }

  let events = null;
  let everConnected = false;

  function connect() {
    events = new EventSource("api/events");
    events.onopen = () => {
      if (everConnected) reloadPreview(); // the preview's connection most likely went down with this one
      everConnected = true;
      setConnected(true);
      refreshStatus();
    };
    events.onmessage = (message) => {
      let event;
      try { event = JSON.parse(message.data); } catch { return; }
      handle(event);
    };
    events.onerror = () => {
      setConnected(false);
      // EventSource retries by itself, except after an answer that is not an event stream: then retry here.
      if (events.readyState === EventSource.CLOSED) {
        events.close();
        later("connect", 3000, connect);
      }
    };
  }

  // --- api/status and the controls. ---

  async function refreshStatus() {
    const version = scanningVersion;
    let status;
    try {
      const response = await fetch("api/status", { cache: "no-store" });
      if (!response.ok) return;
      status = await response.json();
    } catch {
      return; // the connection badge already says the server is away
    }
    page.status = status;
    if (status.frame) setFrame(status.frame.width, status.frame.height);
    setCutout(status.cutout);
    if (typeof status.source === "string") $("source").textContent = status.source;
    $("auth-note").hidden = !(status.authRequired && !token());
    if (typeof status.scanning === "string" && version === scanningVersion) setScanning(status.scanning);
    else updateButtons();
  }

  async function control(action) {
    hideError();
    const headers = {};
    const bearer = token();
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    page.busy = true;
    updateButtons();
    try {
      const response = await fetch(`api/scanning/${action}`, { method: "POST", headers, cache: "no-store" });
      const body = await response.json().catch(() => null);
      if (response.ok) {
        if (typeof body?.scanning === "string") setScanning(body.scanning);
      } else if (response.status === 401) {
        showError(`${action}: not authorised. Open this page as …/#token=<token> to control scanning.`);
      } else {
        showError(`${action}: ${body?.error?.message ?? `${response.status} ${response.statusText}`}`);
      }
    } catch (error) {
      showError(`${action}: the server did not answer (${error.message})`);
    } finally {
      page.busy = false;
      updateButtons();
    }
    if (!page.connected) refreshStatus();
  }

  // --- The preview: when the stream fails, the overlay stays on a neutral background of the frame's shape. ---

  function reloadPreview() {
    preview.src = `preview.mjpg?t=${Date.now()}`;
  }

  preview.addEventListener("load", () => {
    stage.classList.remove("no-preview");
    $("preview-missing").hidden = true;
  });
  preview.addEventListener("error", () => {
    stage.classList.add("no-preview");
    $("preview-missing").hidden = false;
    later("preview", 5000, reloadPreview);
  });

  // --- Start. ---

  takeToken();
  window.addEventListener("hashchange", () => { takeToken(); refreshStatus(); });
  for (const action of ACTIONS) $(`btn-${action}`).addEventListener("click", () => control(action));
  setConnected(false);
  connect();
  refreshStatus();
  setInterval(refreshStatus, STATUS_EVERY_MS);
})();
