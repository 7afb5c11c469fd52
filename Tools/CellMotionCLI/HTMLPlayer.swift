// The self-contained HTML player: the computed frames as data, played with CSS matrix3d on
// real <div> elements at the run's frame rate, with play, pause and a scrub slider. A URL
// fragment `#t=0.25` (seconds) opens it paused at that time (for screenshots).
//
// The frame data is JSON (non-finite numbers as null, see jsonNum).
//
// matrix3d's 16 arguments are column-major for column vectors, which is exactly
// CATransform3D's field order m11 m12 ... m44 (the kernel's output order), so the frames
// are written as they come. Each div has transform-origin 0 0 because the matrices map
// cell points (origin at the cell's top-left) to viewport points.

import CellMotion
import Foundation
import _CLISupport

enum HTMLPlayer {
  /// The page for `run`: no external resources.
  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  static func html(_ run: TableRun) -> String {
    let o = run.options
    let view = o.viewportSize
    var data = "{\"fps\":\(jsonNum(o.fps)),\"width\":\(jsonNum(o.width)),\"horizontal\":\(o.axis == .horizontal),"
    data += "\"half\":\(jsonNum(run.halfHeight)),\"frames\":["
    for (n, f) in run.frames.enumerated() {
      if n > 0 { data += ",\n" }
      data += "{\"t\":\(jsonNum(f.time)),\"r\":\(f.rows.lowerBound),"
      data += "\"h\":[" + f.cellHeights.map { jsonNum($0) }.joined(separator: ",") + "],"
      data += "\"o\":[" + f.opacity.map { jsonNum($0, 4) }.joined(separator: ",") + "],"
      data += "\"m\":[" + f.matrices.map { jsonNum($0) }.joined(separator: ",") + "],"
      data += "\"i\":[" + (f.ids.isEmpty ? Array(f.rows) : f.ids).map(String.init).joined(separator: ",") + "],"
      data += "\"b\":[" + f.behind.enumerated().compactMap { $1 ? String($0) : nil }.joined(separator: ",") + "],"
      data += "\"x\":[" + f.extras.map { x in
        "{\"k\":\"\(x.kind)\",\"id\":\(x.id),\"row\":\(x.row),\"h\":\(jsonNum(x.height)),\"o\":\(jsonNum(x.opacity, 4)),"
          + "\"z\":\(x.isBehind ? 0 : 2),\"m\":[" + x.matrix.map { jsonNum($0) }.joined(separator: ",") + "]}"
      }.joined(separator: ",") + "],"
      data += "\"d\":[" + f.openDetails.map { "{\"row\":\($0.row),\"top\":\(jsonNum($0.top))}" }.joined(separator: ",") + "],"
      data += "\"f\":[" + f.folds.map { fold in
        "{\"row\":\(fold.row),\"s\":\(jsonNum(fold.shadowOpacity, 4)),\"top\":["
          + fold.top.fieldOrder.map { jsonNum($0) }.joined(separator: ",") + "],\"bottom\":["
          + fold.bottom.fieldOrder.map { jsonNum($0) }.joined(separator: ",") + "]}"
      }.joined(separator: ",") + "]}"
    }
    data += "]}"
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <title>cellmotion: \(xmlEscape(run.recipe.name))</title>
      <style>
      body { font: 14px Helvetica, Arial, sans-serif; margin: 12px; background: #f4f4f6; color: #222; }
      #controls { display: flex; gap: 8px; align-items: center; margin-bottom: 8px; width: \(num(view.width))px; }
      #scrub { flex: 1; }
      #time { font-variant-numeric: tabular-nums; min-width: 7em; }
      #viewport { position: relative; overflow: hidden; background: #fff; outline: 1px solid #999;
        width: \(num(view.width))px; height: \(num(view.height))px; }
      .cell, .half { position: absolute; left: 0; top: 0; box-sizing: border-box; transform-origin: 0 0;
        border: 1.5px solid rgba(0,0,0,0.35); padding: 10px 14px; display: none; }
      .cell b { display: block; font-size: 16px; }
      .cell i { display: block; height: 8px; width: 60%; margin-top: 8px; background: rgba(0,0,0,0.18); border-radius: 4px; }
      .half { background: #d8dde6; padding: 0; }
      .half span { position: absolute; inset: 0; background: #000; }
      </style>
      </head>
      <body>
      <div id="controls"><button id="play">Pause</button><input id="scrub" type="range" min="0" value="0" step="1">\
      <span id="time">t = 0.000 s</span></div>
      <div id="viewport"></div>
      <p>\(xmlEscape(ContactSheet.title(run))). Open with <code>#t=0.25</code> to start paused at 0.25 s.</p>
      <script>
      const DATA = \(data);
      // Palette.fill: a hue per row identifier (HSL 55 %, 72 %), so a row keeps its colour
      // when a batch update renumbers the rows.
      function color(id) { return "hsl(" + ((id * 47) % 360) + ", 55%, 72%)"; }
      const viewport = document.getElementById("viewport");
      const scrub = document.getElementById("scrub");
      const button = document.getElementById("play");
      const label = document.getElementById("time");
      scrub.max = String(DATA.frames.length - 1);
      const pool = new Map();
      let shown = [];
      function element(key, make) {
        let e = pool.get(key);
        if (!e) { e = make(); viewport.appendChild(e); pool.set(key, e); }
        return e;
      }
      function matrix(values, offset) {
        return "matrix3d(" + values.slice(offset, offset + 16).join(",") + ")";
      }
      function show(k) {
        const f = DATA.frames[k];
        for (const e of shown) e.style.display = "none";
        shown = [];
        const behind = new Set(f.b);
        function cell(key, id, label) {
          return element(key, () => {
            const d = document.createElement("div");
            d.className = "cell";
            d.style.background = color(id);
            d.innerHTML = "<b>" + label + "</b><i></i>";
            return d;
          });
        }
        for (let i = 0; i < f.o.length; i++) {
          const row = f.r + i, id = f.i[i];
          const e = cell("row" + id, id, "Row " + id);
          e.dataset.row = row;
          // A horizontal table's cells are their row's length wide and DATA.width tall.
          e.style.width = (DATA.horizontal ? f.h[i] : DATA.width) + "px";
          e.style.height = (DATA.horizontal ? DATA.width : f.h[i]) + "px";
          e.style.transform = matrix(f.m, 16 * i);
          e.style.opacity = f.o[i];
          e.style.zIndex = behind.has(i) ? 0 : 1;
          e.style.display = "block";
          shown.push(e);
        }
        // Deleted rows and reloaded rows' old contents animating out, moved rows far away.
        for (const x of f.x) {
          const e = cell(x.k + x.id, x.id, "Row " + x.id + (x.k === "deleted" ? " (deleted)" : ""));
          e.dataset.row = x.row;
          e.style.borderStyle = x.k === "deleted" ? "dashed" : "solid";
          e.style.width = (DATA.horizontal ? x.h : DATA.width) + "px";
          e.style.height = (DATA.horizontal ? DATA.width : x.h) + "px";
          e.style.transform = matrix(x.m, 0);
          e.style.opacity = x.o;
          e.style.zIndex = x.z;
          e.style.display = "block";
          shown.push(e);
        }
        for (const d of f.d) {
          const e = element("detail" + d.row, () => {
            const x = document.createElement("div");
            x.className = "half";
            return x;
          });
          e.style.width = DATA.width + "px";
          e.style.height = 2 * DATA.half + "px";
          e.style.transform = "translate(0px, " + d.top + "px)";
          e.style.display = "block";
          shown.push(e);
        }
        for (const fold of f.f) {
          for (const part of ["top", "bottom"]) {
            const e = element(part + fold.row, () => {
              const d = document.createElement("div");
              d.className = "half";
              d.innerHTML = "<span></span>";
              return d;
            });
            e.style.width = DATA.width + "px";
            e.style.height = DATA.half + "px";
            e.style.transform = matrix(fold[part], 0);
            e.firstChild.style.opacity = 0.45 * fold.s;
            e.style.display = "block";
            shown.push(e);
          }
        }
        scrub.value = String(k);
        label.textContent = "t = " + f.t.toFixed(3) + " s";
        current = k;
      }
      let current = 0, playing = false, origin = 0;
      function tick(now) {
        if (!playing) return;
        const k = Math.floor((now - origin) / 1000 * DATA.fps) % DATA.frames.length;
        if (k !== current) show(k);
        requestAnimationFrame(tick);
      }
      function play() {
        playing = true;
        button.textContent = "Pause";
        origin = performance.now() - current / DATA.fps * 1000;
        requestAnimationFrame(tick);
      }
      function pause() { playing = false; button.textContent = "Play"; }
      button.addEventListener("click", () => (playing ? pause() : play()));
      scrub.addEventListener("input", () => { pause(); show(Number(scrub.value)); });
      function fromHash() {
        const m = /(?:^#|&)t=([0-9.]+)/.exec(location.hash);
        if (!m) return false;
        const k = Math.max(0, Math.min(DATA.frames.length - 1, Math.round(Number(m[1]) * DATA.fps)));
        pause();
        show(k);
        return true;
      }
      window.addEventListener("hashchange", fromHash);
      show(0);
      if (!fromHash()) play();
      </script>
      </body>
      </html>

      """
  }
}
