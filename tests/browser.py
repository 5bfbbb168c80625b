#!/usr/bin/env python3
"""Open report pages in headless Chromium and check what a reader would see.

    browser.py SHOTS_DIR PAGE.html[@WIDTH] ...
    browser.py serve SOCKET

Drives Debian's chromium over --remote-debugging-pipe with nothing but the
standard library. For each page (a file path; WIDTH in CSS pixels, default
1280) it loads file://PAGE and fails if the page
  - does not load, logs a console error or warning, throws, or fails to
    load a resource,
  - has an image that did not load,
  - scrolls sideways at its width (document.documentElement.scrollWidth
    above innerWidth: tables must scroll inside their box),
  - at 1152 px and wider, has a table that does not stand beside its chart
    (every .pair: the table's box right of the chart's, overlapping it
    vertically),
  - below 640 px, has a chart that is not the one drawn for a phone
    (NAME@narrow.svg) where there is one, or a chart above or beside its
    table rather than the table below it,
  - shows a chart at less than 0.8 of its size (its text would be too
    small to read),
  - has two text boxes that overlap (more than 1 px each way),
  - does not end its main part with "How this was measured" (the
    section#method every page has, from footer.tpl),
and it saves a full-page screenshot SHOTS_DIR/NAME-WIDTH.png to look at,
plus SHOTS_DIR/NAME-print.pdf, the page as printed; NAME is the page's
path below the directory common to all pages given, with _ for /. A page
given at several widths is printed once, at the last (each print would
replace the one before). The pictures are for people, and taking them is
most of a page's time, so without ALL_SHOTS=1 in the environment only the
first page given is taken (at each of its widths) and printed: enough to
know that both still work. To look at them: ALL_SHOTS=1; with PIECES=N,
also the screenshot in pieces N pixels high; with PRINT_SHOT=1,
NAME-WIDTH-print.png under the print stylesheet. Exit 0 when every page
is clean, 1 with the reasons otherwise.

Starting chromium costs more than checking a few pages, so a script that
checks pages many times starts one browser for all of them: `serve SOCKET`
listens on the Unix socket SOCKET, prints "ready" once it does, and runs
each request there with its one chromium (started at the first request,
and again after a request that broke it) until its stdin ends; then it
closes chromium. With STRATA_BROWSER=SOCKET in the environment the first
form sends its arguments (and its directory, PIECES, PRINT_SHOT and
ALL_SHOTS) to that server and prints what it answers, with its exit
status. Each page is still loaded in a tab of its own.
"""
import base64
import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback

TIMEOUT = 60


class Browser:
    def __init__(self, profile):
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise SystemExit("chromium not found (Debian package chromium)")
        # Chromium reads commands from fd 3 and answers on fd 4: move the
        # pipes out of the way first, then put their ends there.
        ends = []
        for fd in os.pipe() + os.pipe():
            ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
            os.close(fd)
        to_chrome_r, self.to_chrome, self.from_chrome, from_chrome_w = ends
        # What this process holds at 3 and 4 (the server's socket) is put
        # back once chromium has its pipes there.
        held = {}
        for fd in (3, 4):
            try:
                held[fd] = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
            except OSError:
                pass
        os.dup2(to_chrome_r, 3)
        os.dup2(from_chrome_w, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking",
             "--disable-component-update", "--disable-sync",
             "--disable-extensions", "--hide-scrollbars",
             "--force-color-profile=srgb", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "about:blank"],
            pass_fds=(3, 4), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (3, 4, to_chrome_r, from_chrome_w):
            os.close(fd)
        for fd, saved in held.items():
            os.dup2(saved, fd, inheritable=False)
            os.close(saved)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        while True:
            m = self.read()
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def read(self):
        deadline = time.time() + TIMEOUT
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise RuntimeError("chromium did not answer")
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium went away")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def wait_event(self, method, session):
        for i, m in enumerate(self.events):
            if m.get("method") == method and m.get("sessionId") == session:
                del self.events[i]
                return m
        while True:
            m = self.read()
            if m.get("method") == method and m.get("sessionId") == session:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def problems_of(events, session):
    out = []
    for m in events:
        if m.get("sessionId") != session:
            continue
        p = m.get("params", {})
        if m["method"] == "Runtime.consoleAPICalled" and \
                p.get("type") in ("error", "warning", "assert"):
            text = " ".join(str(a.get("value", a.get("description", "")))
                            for a in p.get("args", []))
            out.append("console %s: %s" % (p["type"], text))
        elif m["method"] == "Runtime.exceptionThrown":
            out.append("exception: %s" %
                       p["exceptionDetails"].get("text", "?"))
        elif m["method"] == "Log.entryAdded" and \
                p["entry"]["level"] in ("error", "warning"):
            e = p["entry"]
            out.append("%s %s: %s %s" % (e["source"], e["level"],
                                          e.get("text", ""), e.get("url", "")))
    return out


# The layout of a page, measured in the browser: the document's width, and
# for every chart and every chart-and-table pair their boxes.
LAYOUT = """(() => {
  OVERLAPS
  const box = e => { const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  return {
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
    title: document.title,
    charts: Array.from(document.querySelectorAll('figure.chart img')).map(
      i => ({src: decodeURI(i.currentSrc), natural: i.naturalWidth, shown: i.width,
             narrow: !!i.parentElement.querySelector('source')})),
    pairs: Array.from(document.querySelectorAll('.pair')).map(p => ({
      chart: box(p.querySelector('figure.chart')),
      table: box(p.querySelector('table'))})),
    overlaps: overlaps(),
    method: !!document.querySelector('main section#method dl.facts dd'),
    method_last: (() => { const m = document.querySelector('main');
      const e = m && m.lastElementChild;
      return !!e && e.id === 'method'; })()
  };
})()"""

# Text boxes that overlap: every line box of every text node, against
# every other text node's (more than 1 px each way: touching lines are
# fine). The first few, with their texts.
OVERLAPS = """const overlaps = () => {
  const rects = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(), k = 0; n; n = walk.nextNode(), k++) {
    if (!n.textContent.trim()) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    for (const b of r.getClientRects())
      if (b.width > 0 && b.height > 0)
        rects.push({k: k, l: b.left, t: b.top, r: b.right, b: b.bottom,
                    text: n.textContent.trim().slice(0, 40)});
  }
  rects.sort((a, b) => a.t - b.t);
  const out = [];
  for (let i = 0; i < rects.length && out.length < 5; i++)
    for (let j = i + 1; j < rects.length && rects[j].t < rects[i].b; j++) {
      const a = rects[i], c = rects[j];
      if (a.k === c.k) continue;
      if (Math.min(a.r, c.r) - Math.max(a.l, c.l) > 1 &&
          Math.min(a.b, c.b) - Math.max(a.t, c.t) > 1)
        out.push([a.text, c.text]);
    }
  return out;
};"""


LAYOUT = LAYOUT.replace("OVERLAPS", OVERLAPS)


def layout_problems(m, width):
    bad = []
    if not m["method"] or not m["method_last"]:
        bad.append("no \"How this was measured\" closing the page")
    for a, c in m["overlaps"]:
        bad.append("text overlaps: %r and %r" % (a, c))
    if m["scroll"] > m["inner"]:
        bad.append("scrolls sideways at %dpx: %dpx wide" %
                   (m["inner"], m["scroll"]))
    for c in m["charts"]:
        name = c["src"].rsplit("/", 1)[-1]
        if width < 640 and c["narrow"] and \
                not c["src"].endswith("@narrow.svg"):
            bad.append("chart %s is not the phone's" % name)
        if c["natural"] and c["shown"] < 0.8 * c["natural"]:
            bad.append("chart %s shown at %d of %d px" %
                       (name, c["shown"], c["natural"]))
    for k, p in enumerate(m["pairs"]):
        (cl, ct, cr, cb), (tl, tt, tr, tb) = p["chart"], p["table"]
        if width >= 1152 and not (tl >= cr - 1 and tt < cb and ct < tb):
            bad.append("pair %d: table not beside its chart" % k)
        if width < 640 and tt < cb - 1:
            bad.append("pair %d: table not below its chart" % k)
    return bad


def check(b, path, width, shots, name, env, pdf=True, shot=True):
    url = "file://" + os.path.abspath(path)
    target = b.send("Target.createTarget", {"url": "about:blank"})
    session = b.send("Target.attachToTarget",
                     {"targetId": target["targetId"], "flatten": True}
                     )["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        b.send(domain + ".enable", session=session)
    b.send("Emulation.setDeviceMetricsOverride",
           {"width": width, "height": 900, "deviceScaleFactor": 1,
            "mobile": width < 600}, session=session)
    b.send("Page.navigate", {"url": url}, session=session)
    b.wait_event("Page.loadEventFired", session)

    def js(expr):
        r = b.send("Runtime.evaluate",
                   {"expression": expr, "returnByValue": True},
                   session=session)
        return r["result"].get("value")

    bad = []
    if js("location.protocol") != "file:" or \
            js("document.querySelector('main') === null"):
        bad.append("did not load")
    broken = js("Array.from(document.images)"
                ".filter(i => !i.complete || i.naturalWidth === 0)"
                ".map(i => i.getAttribute('src'))")
    bad += ["image did not load: %s" % s for s in broken or []]
    bad += layout_problems(js(LAYOUT), width)

    if shot:
        take_shots(b, session, shots, name, width, env)
    if pdf:
        pdf = b.send("Page.printToPDF", {"printBackground": False},
                     session=session)
        with open(os.path.join(shots, "%s-print.pdf" % name), "wb") as f:
            f.write(base64.b64decode(pdf["data"]))

    bad += problems_of(b.events, session)
    b.send("Target.closeTarget", {"targetId": target["targetId"]})
    return bad


def take_shots(b, session, shots, name, width, env):
    """The screenshot NAME-WIDTH.png, and those PIECES and PRINT_SHOT ask
    for."""
    metrics = b.send("Page.getLayoutMetrics", session=session)
    size = metrics["cssContentSize"]
    # (optimizeForSpeed: the same pixels, compressed less: the encoding
    # of a tall page cost more than taking it.)
    shot = b.send("Page.captureScreenshot",
                  {"format": "png", "captureBeyondViewport": True,
                   "optimizeForSpeed": True,
                   "clip": {"x": 0, "y": 0, "width": width,
                            "height": min(size["height"], 16000),
                            "scale": 1}}, session=session)
    with open(os.path.join(shots, "%s-%d.png" % (name, width)), "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    # PIECES=N: also in pieces N pixels high, to look at them at 100%.
    piece = int(env.get("PIECES") or "0")
    for k in range(0, int(size["height"]) if piece else 0, piece or 1):
        shot = b.send("Page.captureScreenshot",
                      {"format": "png", "captureBeyondViewport": True,
                       "clip": {"x": 0, "y": k, "width": width,
                                "height": min(piece, size["height"] - k),
                                "scale": 1}}, session=session)
        with open(os.path.join(shots, "%s-%d-%02d.png" %
                               (name, width, k // piece)), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    if env.get("PRINT_SHOT"):
        # PRINT_SHOT=1: the print stylesheet, as a picture to look at.
        b.send("Emulation.setEmulatedMedia", {"media": "print"},
               session=session)
        height = b.send("Page.getLayoutMetrics",
                        session=session)["cssContentSize"]["height"]
        shot = b.send("Page.captureScreenshot",
                      {"format": "png", "captureBeyondViewport": True,
                       "clip": {"x": 0, "y": 0, "width": width,
                                "height": min(height, 16000), "scale": 1}},
                      session=session)
        with open(os.path.join(shots, "%s-%d-print.png" % (name, width)),
                  "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        b.send("Emulation.setEmulatedMedia", {"media": ""}, session=session)


def run(b, args, cwd, env, out):
    """Check the pages of args (SHOTS_DIR PAGE[@WIDTH]...), given relative
    to cwd, with browser b; print the problems to out. 1 if any."""
    shots = os.path.join(cwd, args[0])
    os.makedirs(shots, exist_ok=True)
    pages = []
    for arg in args[1:]:
        path, _, width = arg.partition("@")
        pages.append((path, os.path.join(cwd, path), width))
    top = os.path.commonpath([os.path.dirname(os.path.abspath(full))
                              for _, full, _ in pages])
    names = []
    for _, full, _ in pages:
        name = os.path.relpath(os.path.abspath(full), top)
        names.append(name.rsplit(".", 1)[0].replace(os.sep, "_"))
    failed = 0
    every = env.get("ALL_SHOTS") == "1"
    for k, (path, full, width) in enumerate(pages):
        last = names[k] not in names[k + 1:]
        take = every or names[k] == names[0]
        for p in check(b, full, int(width or 1280), shots, names[k], env,
                       pdf=last and take, shot=take):
            print("%s@%s: %s" % (path, width or 1280, p), file=out)
            failed = 1
    return failed


ENV = ("PIECES", "PRINT_SHOT", "ALL_SHOTS")


def serve(path):
    """The server of `browser.py serve SOCKET` (see the top)."""
    import io
    import selectors
    profile = tempfile.mkdtemp(prefix="strata-chromium.")
    b = None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(4)
    print("ready", flush=True)
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    sel.register(sys.stdin, selectors.EVENT_READ)
    try:
        while True:
            ready = [k.fileobj for k, _ in sel.select()]
            if sys.stdin in ready and not sys.stdin.buffer.read1(1 << 16):
                break
            if sock not in ready:
                continue
            conn, _ = sock.accept()
            with conn:
                raw = b""
                while not raw.endswith(b"\n"):
                    chunk = conn.recv(1 << 16)
                    if not chunk:
                        break
                    raw += chunk
                out = io.StringIO()
                try:
                    req = json.loads(raw)
                    if b is None:
                        b = Browser(profile)
                    status = run(b, req["argv"], req["cwd"], req["env"], out)
                except Exception:
                    # As a browser of its own would have: the traceback,
                    # exit 1; and a fresh chromium for the next request.
                    out.write(traceback.format_exc())
                    status = 1
                    if b:
                        b.close()
                    b = None
                conn.sendall(json.dumps({"out": out.getvalue(),
                                         "status": status}).encode())
    finally:
        if b:
            b.close()
        sock.close()
        os.unlink(path)
        shutil.rmtree(profile, ignore_errors=True)


def client(path, args):
    """Have the server at path check args; its answer, its status."""
    req = {"argv": args, "cwd": os.getcwd(),
           "env": {k: os.environ.get(k, "") for k in ENV}}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        s.sendall(json.dumps(req).encode() + b"\n")
        raw = b""
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            raw += chunk
    if not raw:
        raise SystemExit("browser.py: the server at %s did not answer" % path)
    answer = json.loads(raw)
    sys.stdout.write(answer["out"])
    sys.exit(answer["status"])


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        serve(sys.argv[2])
        return
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    if os.environ.get("STRATA_BROWSER"):
        client(os.environ["STRATA_BROWSER"], sys.argv[1:])
    profile = tempfile.mkdtemp(prefix="strata-chromium.")
    b = None
    failed = 0
    try:
        b = Browser(profile)
        failed = run(b, sys.argv[1:], os.getcwd(),
                     {k: os.environ.get(k, "") for k in ENV}, sys.stdout)
    finally:
        if b:
            b.close()
        shutil.rmtree(profile, ignore_errors=True)
    sys.exit(failed)


if __name__ == "__main__":
    main()
