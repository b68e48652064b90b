#!/bin/sh
# The HTML report in a real browser (headless Chromium): the fabric drawing,
# the marked link and the heat map are in the DOM and on the screenshot, and
# the page loads nothing from outside (Chromium's own network log, and a scan
# of every src/href/url() of the DOM). A canary page with one external image
# proves the network check can fail.
# Usage: report_html_test.sh FABSCOPE FIXTURES_DIR WORK_DIR
set -eu
fabscope=$1
fixtures=$2
work=$3
py=/usr/bin/python3
chromium=${CHROMIUM:-/usr/bin/chromium}
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# From the fixtures' folder, so the report's command line is the one in docs/examples/.
(cd "$fixtures" && "$fabscope" report fabric-degraded.json perf-h0001.json perf-h0009.json \
    --format html >"$work/report.html") || fail "fabscope report exited $?"

# One browser run: the DOM after layout, every request in the network log.
browse() {  # browse PAGE NETLOG [extra flags...]
    page=$1
    netlog=$2
    shift 2
    timeout 60 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-default-apps --user-data-dir="$work/profile" \
        --host-resolver-rules="MAP * ~NOTFOUND" --log-net-log="$netlog" \
        "$@" "file://$page" 2>>"$work/chromium.log"
}

browse "$work/report.html" "$work/netlog.json" --dump-dom >"$work/dom.html" ||
    fail "chromium --dump-dom failed (see $work/chromium.log)"
browse "$work/report.html" "$work/netlog-shot.json" --screenshot="$work/report.png" \
    --window-size=1200,2400 --hide-scrollbars >/dev/null ||
    fail "chromium --screenshot failed (see $work/chromium.log)"

# The same page with the marked link hidden: the screenshots' difference is the link.
sed 's|</head>|<style>.bad-link { display: none }</style></head>|' "$work/report.html" \
    >"$work/report-unmarked.html"
browse "$work/report-unmarked.html" "$work/netlog-unmarked.json" \
    --screenshot="$work/report-unmarked.png" --window-size=1200,2400 --hide-scrollbars \
    >/dev/null || fail "chromium --screenshot of the unmarked page failed"

# The drawing of 76 nodes (4 spines, 8 leaves, 64 hosts) at the page's width:
# a script (in a copy without the page's CSP) writes the scale the browser
# drew the drawing at, and the drawing's left and right, into the title.
(cd "$fixtures" && "$fabscope" report fabric-76.json --format html >"$work/report-76.html") ||
    fail "fabscope report fabric-76.json exited $?"
sed -e 's|<meta http-equiv="Content-Security-Policy"[^>]*>||' \
    -e 's|</body>|<script>const s = document.querySelector("svg.fabric"); const r = s.getBoundingClientRect(); document.title = "scale " + (r.width / s.viewBox.baseVal.width).toFixed(3) + " right " + Math.round(r.right) + " page " + document.documentElement.clientWidth;</script></body>|' \
    "$work/report-76.html" >"$work/report-76-measured.html"
browse "$work/report-76-measured.html" "$work/netlog-76.json" --dump-dom --window-size=1200,1900 \
    >"$work/dom-76.html" || fail "chromium --dump-dom of the 76-node report failed"

# The canary: an external image must show up in the network log.
printf '<!DOCTYPE html><html><body><img src="http://canary.invalid/x.png"></body></html>\n' \
    >"$work/canary.html"
browse "$work/canary.html" "$work/netlog-canary.json" --dump-dom >/dev/null ||
    fail "chromium on the canary page failed"

exec "$py" - "$work" <<'PYEOF'
import json, re, struct, sys, zlib

work = sys.argv[1]
problems = []

def external_urls(netlog_path):
    """URLs the page asked for: requests whose network isolation key is the
    page's own site (file://). Chromium's own background requests (component
    updates, time, accounts) have other keys and are not the page's doing."""
    text = open(netlog_path, encoding="utf-8", errors="replace").read()
    try:
        log = json.loads(text)
    except ValueError:  # cut short when the browser exits: close it
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = set()
    for e in log["events"]:
        p = e.get("params", {})
        if e["type"] == start and "file://" in p.get("network_isolation_key", ""):
            urls.add(p.get("url", ""))
    return sorted(u for u in urls if not re.match(r"(file|data|about|chrome|blob):", u))

canary = external_urls(work + "/netlog-canary.json")
if not any("canary.invalid" in u for u in canary):
    problems.append("the network log did not record the canary's external image: the check is blind")
for log in ("netlog.json", "netlog-shot.json"):
    ext = external_urls(work + "/" + log)
    if ext:
        problems.append(f"the report loaded from outside ({log}): {ext}")

dom = open(work + "/dom.html", encoding="utf-8").read()
if '<svg class="fabric"' not in dom:
    problems.append("no fabric drawing (svg.fabric) in the DOM")
link = re.search(r'<g class="bad-link sev-(\w+)" id="([^"]+)" data-link="([^"]+)"', dom)
if not link:
    problems.append("no marked link (g.bad-link) in the DOM")
elif link.group(2) != "link-leaf02_5__--_spine01_2_" or link.group(3) != "leaf02[5] -- spine01[2]":
    problems.append(f"the marked link is {link.group(2)} / {link.group(3)}, not leaf02[5] -- spine01[2]")
cells = re.findall(r'<g class="heat-cell (\w+)"', dom)
if len(cells) != 8 or cells.count("degraded") != 2 or cells.count("failed") != 1:
    problems.append(f"heat map cells {cells}: want 8, 2 degraded, 1 failed")
for m in re.finditer(r'(?:src|href)\s*=\s*"([^"]*)"|url\(([^)]*)\)', dom):
    target = (m.group(1) or m.group(2) or "").strip("'\" ")
    if not (target.startswith("#") or target.startswith("data:")):
        problems.append(f"the DOM refers to {target!r}")
if "<script" in dom:
    problems.append("the DOM has a script")

# The screenshots: real PNGs of the window, with the drawing's colours on them.
def colours_of(path):
    png = open(path, "rb").read()
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        problems.append(f"{path} is not a PNG")
        return {}
    width, height, depth, ctype = struct.unpack(">IIBB", png[16:26])
    if (width, height) != (1200, 2400) or depth != 8 or ctype not in (2, 6):
        problems.append(f"{path}: {width}x{height} depth {depth} type {ctype}")
        return {}
    data, pos = b"", 8
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"IDAT":
            data += png[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(data)
    bpp = 4 if ctype == 6 else 3
    stride = width * bpp
    prev = bytearray(stride)
    colours = {}
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        prev = line
        for x in range(0, stride, bpp):
            rgb = bytes(line[x:x + 3])
            colours[rgb] = colours.get(rgb, 0) + 1
    return colours

shot = colours_of(work + "/report.png")
unmarked = colours_of(work + "/report-unmarked.png")
if shot and unmarked:
    # The warning link's stroke is #e08600 (var(--warn)): the marked page has a
    # thick line of it that the page without the link lacks.
    warn = bytes((0xE0, 0x86, 0x00))
    extra = shot.get(warn, 0) - unmarked.get(warn, 0)
    if extra < 60:
        problems.append(f"the marked link adds {extra} pixels of its colour: not drawn")
    red = sum(n for (r, g, b), n in shot.items() if r > 170 and g < 70 and b < 70)
    green = sum(n for (r, g, b), n in shot.items() if g > 150 and r < 90 and b < 90)
    if red < 2000:
        problems.append(f"{red} red pixels: the heat map's degraded cells are not drawn")
    if green < 4000:
        problems.append(f"{green} green pixels: the heat map's good cells are not drawn")
    if len(shot) < 50:
        problems.append(f"the screenshot has {len(shot)} colours: nearly blank")
    print(f"screenshot: marked link {extra} px, heat map red {red} px, green {green} px")

# The 76-node drawing: drawn at (nearly) its own size, its 11 px text legible,
# and inside the page (no sideways scrolling).
dom76 = open(work + "/dom-76.html", encoding="utf-8").read()
m76 = re.search(r"<title>scale ([0-9.]+) right (-?[0-9]+) page ([0-9]+)</title>", dom76)
if not m76:
    problems.append("the 76-node page did not say its drawing's scale")
else:
    scale, right, page = float(m76.group(1)), int(m76.group(2)), int(m76.group(3))
    if scale < 0.9:
        problems.append(f"the 76-node drawing is shown at {scale:.2f} of its size: its text is "
                        f"{11 * scale:.1f} px")
    if right > page:
        problems.append(f"the 76-node drawing ends at {right} px, past the page's {page}")
    print(f"76-node drawing: scale {scale:.3f}, right edge {right} of {page} px")

for p in problems:
    print("FAIL:", p, file=sys.stderr)
if not problems:
    print("report HTML: drawing, marked link, heat map rendered; nothing loaded from outside")
sys.exit(1 if problems else 0)
PYEOF
