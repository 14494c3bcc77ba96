/* The nardy board: draws a position from the server's JSON, records turns
 * (dice, checker clicks or typed notation, cube and resignation buttons) and
 * follows a live game by polling; on the replay page it steps through frames.
 * No libraries, no build step.  Geometry (where each location sits on screen
 * for each viewer) comes from the server: games/boardsvg.py. */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";

  function readJSON(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function format(text, values) {
    return text.replace(/%\((\w+)\)s/g, function (_, key) {
      return values[key] === undefined ? "" : String(values[key]);
    });
  }

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG_NS, name);
    Object.keys(attrs || {}).forEach(function (key) {
      node.setAttribute(key, attrs[key]);
    });
    if (parent) parent.appendChild(node);
    return node;
  }

  function clone(value) {
    return JSON.parse(JSON.stringify(value));
  }

  /* A clock reading as mm:ss, h:mm:ss past an hour; rounded up, so 00:00 is a fallen flag. */
  function clockText(ms) {
    var total = Math.max(0, Math.ceil(ms / 1000));
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    var hours = Math.floor(total / 3600);
    var rest = two(Math.floor((total % 3600) / 60)) + ":" + two(total % 60);
    return hours ? hours + ":" + rest : rest;
  }

  // --- Drawing ------------------------------------------------------------

  var COLOURS = {
    fill: ["#f3ecdc", "#2a2623"],
    stroke: ["#6b5a45", "#000000"],
    text: ["#2a2623", "#f3ecdc"],
  };
  var PIPS = {
    1: [[0, 0]],
    2: [[-1, -1], [1, 1]],
    3: [[-1, -1], [0, 0], [1, 1]],
    4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
    5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
    6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
  };

  var PIN_STROKE = "#c62828";

  /* The colours by side: side 0 (player 1) light, unless this game's opening
   * made player 2 White (Nauka i Zhizn: the higher thrower plays White), as
   * the frame's ``white`` says.  Set by each draw(), read by everything it draws. */
  var HUE = [0, 1];

  function hues(white) {
    return white === 2 ? [1, 0] : [0, 1];
  }

  /* The players' colour chips (templates/games/_board_players.html) to match:
   * each chip keeps its colour's class and title, moved to the player with it. */
  function paintChips(root, white) {
    var hue = hues(white);
    var chips = [root.querySelector(".player.p1 .chip"), root.querySelector(".player.p2 .chip")];
    if (!chips[0] || !chips[1]) return;
    chips.forEach(function (chip) {
      if (!chip.hasAttribute("data-colour-title")) chip.setAttribute("data-colour-title", chip.title);
    });
    var titles = [chips[0].getAttribute("data-colour-title"), chips[1].getAttribute("data-colour-title")];
    chips.forEach(function (chip, side) {
      chip.className = "chip side-" + (hue[side] + 1);
      chip.title = titles[hue[side]];
    });
  }

  /* Soldiers (RULES.md §3.1): a class checker carries its letter inside a shape
   * of its own, so that the classes are told apart without colour and on paper.
   * The legend (templates/games/_class_legend.html) draws the same shapes. */
  var CLASS_ORDER = "KGDEOP";

  function classOrder(letters) {
    return letters.slice().sort(function (a, b) {
      return CLASS_ORDER.indexOf(a) - CLASS_ORDER.indexOf(b);
    });
  }

  /* The shape of class ``letter`` centred on (x, y), ``s`` its radius: general a
   * ring, guard a square, druid a diamond, wounded even a hexagon (six sides),
   * wounded odd a triangle (three); a pawn has none. */
  function classShape(g, x, y, s, letter, colour) {
    var attrs = { fill: "none", stroke: colour, "stroke-width": 2, class: "class-shape" };
    var corners = function (n, turn, radius) {
      var points = [];
      for (var i = 0; i < n; i++) {
        var a = turn + (2 * Math.PI * i) / n;
        points.push((x + radius * Math.cos(a)).toFixed(1) + "," + (y + radius * Math.sin(a)).toFixed(1));
      }
      attrs.points = points.join(" ");
      return el("polygon", attrs, g);
    };
    if (letter === "K") { attrs.cx = x; attrs.cy = y; attrs.r = s; return el("circle", attrs, g); }
    if (letter === "G") {
      var h = s * 0.8;
      attrs.x = x - h; attrs.y = y - h; attrs.width = 2 * h; attrs.height = 2 * h;
      return el("rect", attrs, g);
    }
    if (letter === "D") return corners(4, -Math.PI / 2, s * 1.05);
    if (letter === "E") return corners(6, 0, s);
    // The triangle's inner circle is half its radius: a larger one keeps the letter inside.
    if (letter === "O") return corners(3, -Math.PI / 2, s * 1.2);
    return null;
  }

  /* ``mark``: "selected" (the checker about to move) or "pinned" (Plakoto, Soldiers'
   * druid); ``letter``: the checker's class in Soldiers (none elsewhere). */
  function checker(g, x, y, r, side, label, mark, letter) {
    var c = el("circle", {
      cx: x, cy: y, r: r - 1,
      fill: COLOURS.fill[HUE[side]],
      stroke: mark === "selected" ? "#e0a400" : mark === "pinned" ? PIN_STROKE : COLOURS.stroke[HUE[side]],
      "stroke-width": mark ? 5 : 2,
      class: "checker side-" + (side + 1) + (mark ? " " + mark : "") + (letter ? " cls-" + letter : ""),
    }, g);
    var classed = letter && letter !== "P";
    if (letter) c.setAttribute("data-class", letter);
    if (classed) {
      classShape(g, x, y, r * 0.66, letter, COLOURS.text[HUE[side]]);
      var t = el("text", {
        x: x, y: y + 5, "text-anchor": "middle", "font-size": 14, "font-weight": 700,
        fill: COLOURS.text[HUE[side]], class: "class-letter",
      }, g);
      t.textContent = letter;
    }
    if (label && classed) {
      // The count of a tall stack beside a class letter: on a badge at the rim.
      el("circle", {
        cx: x + r * 0.72, cy: y - r * 0.72, r: 10, fill: COLOURS.fill[HUE[side]],
        stroke: COLOURS.stroke[HUE[side]], "stroke-width": 1.5, class: "count-badge",
      }, g);
      var b = el("text", {
        x: x + r * 0.72, y: y - r * 0.72 + 4, "text-anchor": "middle", "font-size": 12,
        "font-weight": 700, fill: COLOURS.text[HUE[side]], class: "count",
      }, g);
      b.textContent = label;
    } else if (label) {
      var t2 = el("text", {
        x: x, y: y + 6, "text-anchor": "middle", "font-size": 17, "font-weight": 700,
        fill: COLOURS.text[HUE[side]], class: "count",
      }, g);
      t2.textContent = label;
    }
    return c;
  }

  /* Soldiers: ``side``'s free checkers on location ``loc`` as letters (the
   * position's "classes", padded with pawns to the count), in class order. */
  function freeLetters(pos, side, loc) {
    var pinnedHere = pos.pinned && pos.pinned[side].indexOf(loc) >= 0;
    var n = pos.points[loc][side] - (pinnedHere ? 1 : 0);
    var listed = ((pos.classes[loc] || [[], []])[side] || []).filter(function (c) { return c !== "P"; });
    var letters = classOrder(listed).slice(0, Math.max(n, 0));
    while (letters.length < n) letters.push("P");
    return letters;
  }

  /* A side's checkers on a location, from the edge of the board: the pinned one
   * (lying under its pinner), then the class checkers, then the pawns, so that
   * the classes stay in sight when a tall stack shows only five. */
  function stackLetters(pos, side, loc) {
    var out = [];
    if (pos.pinned && pos.pinned[side].indexOf(loc) >= 0) {
      out.push(((pos.pinned_classes || [{}, {}])[side] || {})[String(loc)] || "P");
    }
    return out.concat(freeLetters(pos, side, loc));
  }

  function barLetters(pos, side) {
    var letters = classOrder(((pos.bar_classes || [[], []])[side] || []).filter(function (c) { return c !== "P"; }));
    while (letters.length < pos.bar[side]) letters.push("P");
    return letters;
  }

  /* A class checker as a small picture for a button or a legend (decorative: the
   * button says the letter and the name in text). */
  function classIcon(letter, side) {
    var svg = el("svg", { viewBox: "0 0 48 48", width: 28, height: 28, "aria-hidden": "true", focusable: "false", class: "class-icon" });
    checker(svg, 24, 24, 23, side, "", "", letter);
    return svg;
  }

  function die(g, x, y, size, value, side) {
    el("rect", {
      x: x - size / 2, y: y - size / 2, width: size, height: size, rx: 6,
      fill: COLOURS.fill[HUE[side]], stroke: COLOURS.stroke[HUE[side]], "stroke-width": 2, class: "die",
    }, g);
    (PIPS[value] || []).forEach(function (p) {
      el("circle", {
        cx: x + p[0] * size * 0.26, cy: y + p[1] * size * 0.26, r: size * 0.09,
        fill: COLOURS.text[HUE[side]],
      }, g);
    });
  }

  function cube(g, x, y, value, offered) {
    el("rect", {
      x: x - 18, y: y - 18, width: 36, height: 36, rx: 5,
      fill: "#fffdf6", stroke: offered ? "#e0a400" : "#444", "stroke-width": offered ? 4 : 2,
      class: "cube",
    }, g);
    var t = el("text", {
      x: x, y: y + 7, "text-anchor": "middle", "font-size": 19, "font-weight": 700, fill: "#222",
    }, g);
    t.textContent = String(value);
  }

  /* Draw ``frame`` ({position, dice, dice_side, cube}) on ``svg`` as ``L``
   * (a layout) lays it out; ``marks`` = {selected: key, sources: {key: true},
   * targets: {key: true}, mover: side} for moving by clicks. */
  function draw(svg, L, frame, marks) {
    marks = marks || {};
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", "0 0 " + L.width + " " + L.height);
    var R = L.checker_r;
    var top = L.inner.top;
    var bottom = L.inner.bottom;
    var mid = L.mid_y;
    var pos = frame.position;
    HUE = hues(frame.white);
    var g = el("g", {}, svg);

    el("rect", { x: 0, y: 0, width: L.width, height: L.height, fill: "#5b3a22", rx: 10 }, g);
    el("rect", {
      x: L.board.x, y: L.board.y, width: L.board.w, height: L.board.h, fill: "#7a4f2c", rx: 4,
    }, g);
    L.halves.forEach(function (h) {
      el("rect", { x: h.x, y: top, width: h.w, height: bottom - top, fill: "#e9dcc0" }, g);
    });
    el("rect", {
      x: L.bar.x - L.bar.w / 2, y: L.board.y, width: L.bar.w, height: L.board.h, fill: "#6a4426",
    }, g);

    // Trays: one per side, beside its own point 1.
    L.trays.forEach(function (tray, i) {
      var h = (bottom - top) / 2 - 8;
      el("rect", {
        x: tray.x - L.tray_w / 2 + 5, y: tray.top ? top : bottom - h,
        width: L.tray_w - 10, height: h, fill: "#4a2f1a", rx: 3,
        class: "tray tray-" + (i + 1),
      }, g);
    });

    // Points, numbered from the viewer's side.
    L.slots.forEach(function (slot, k) {
      var half = L.point.w / 2;
      var tip = slot.top ? top + L.point.h : bottom - L.point.h;
      var base = slot.top ? top : bottom;
      el("polygon", {
        points: (slot.x - half + 1) + "," + base + " " + (slot.x + half - 1) + "," + base + " " + slot.x + "," + tip,
        fill: k % 2 ? "#b8763f" : "#3f6b5a",
        class: "point",
      }, g);
      var label = el("text", {
        x: slot.x, y: (slot.top ? L.label_y.top : L.label_y.bottom) + 5,
        "text-anchor": "middle", "font-size": 15, "font-weight": 600, fill: "#f3ecdc", class: "point-label",
      }, g);
      label.textContent = String(slot.label);
    });

    // Targets under the checkers.
    L.slots.forEach(function (slot) {
      if (marks.targets && marks.targets["p" + slot.loc]) {
        var half = L.point.w / 2;
        el("rect", {
          x: slot.x - half + 2, y: slot.top ? top : mid + 4,
          width: L.point.w - 4, height: slot.top ? mid - top - 4 : bottom - mid - 4,
          fill: "#3fa34d", opacity: 0.35, class: "target",
        }, g);
      }
    });

    // Checkers on the points; a pinned checker (Plakoto, Soldiers) lies at the bottom, under its pinner.
    var pinned = pos.pinned || [[], []];
    var classed = !!pos.classes;
    L.slots.forEach(function (slot) {
      var counts = pos.points[slot.loc];
      var drawn = 0;
      var total = counts[0] + counts[1];
      var spacing = total > 4 ? (L.point.h - 2 * R) / 4 : 2 * R;
      var shownTotal = Math.min(total, 5);
      var under = pinned[1].indexOf(slot.loc) >= 0 ? 1 : pinned[0].indexOf(slot.loc) >= 0 ? 0 : -1;
      var here = marks.selected === "p" + slot.loc;
      // Soldiers: the selected checker is the outermost one of the class chosen to move.
      var chosenAt = -1;
      var letters = [[], []];
      if (classed) {
        letters = [stackLetters(pos, 0, slot.loc), stackLetters(pos, 1, slot.loc)];
        if (here && marks.selectedClass && marks.mover) {
          var own = letters[marks.mover - 1];
          var first = marks.mover - 1 === (under === 1 ? 1 : 0) ? 0 : counts[under === 1 ? 1 : 0];
          var at = own.lastIndexOf(marks.selectedClass);
          if (at >= 0 && first + at < 5) chosenAt = first + at;
        }
      }
      (under === 1 ? [1, 0] : [0, 1]).forEach(function (side) {
        var n = counts[side];
        for (var i = 0; i < n && drawn < 5; i++, drawn++) {
          var y = slot.top ? top + R + drawn * spacing : bottom - R - drawn * spacing;
          var last = drawn === shownTotal - 1;
          var label = last && total > 5 ? String(total) : "";
          var selected = here && (chosenAt >= 0 ? drawn === chosenAt : last);
          var mark = selected ? "selected" : side === under && drawn === 0 ? "pinned" : "";
          checker(g, slot.x, y, R, side, label, mark, classed ? letters[side][i] : "").setAttribute("data-at", slot.label);
        }
      });
      if (marks.sources && marks.sources["p" + slot.loc] && marks.selected !== "p" + slot.loc) {
        var shown = Math.min(total, 5);
        var y0 = slot.top ? top + R + (shown - 1) * spacing : bottom - R - (shown - 1) * spacing;
        el("circle", { cx: slot.x, cy: y0, r: R + 2, fill: "none", stroke: "#e0a400", "stroke-width": 2, "stroke-dasharray": "4 3", class: "source" }, g);
      }
    });

    // The bar: each side's checkers wait in the half where its path starts.
    [0, 1].forEach(function (side) {
      var n = pos.bar[side];
      var up = L.bar_top[side];
      var letters = classed ? barLetters(pos, side) : [];
      var chosen = marks.selectedClass ? letters.lastIndexOf(marks.selectedClass) : -1;
      for (var i = 0; i < Math.min(n, 3); i++) {
        var y = up ? mid - 46 - i * 2 * R : mid + 46 + i * 2 * R;
        var last = i === Math.min(n, 3) - 1;
        var selected = marks.selected === "bar" && marks.mover === side + 1 &&
          (chosen >= 0 && chosen < 3 ? i === chosen : last);
        var node = checker(g, L.bar.x, y, R, side, last && n > 3 ? String(n) : "", selected ? "selected" : "",
          classed ? letters[i] : "");
        if (classed) node.setAttribute("data-at", "bar");
      }
      if (n && marks.sources && marks.sources.bar && marks.mover === side + 1 && marks.selected !== "bar") {
        el("circle", { cx: L.bar.x, cy: up ? mid - 46 : mid + 46, r: R + 2, fill: "none", stroke: "#e0a400", "stroke-width": 2, "stroke-dasharray": "4 3", class: "source" }, g);
      }
    });

    // Borne off: thin slabs in the side's tray, with the count.
    [0, 1].forEach(function (side) {
      var tray = L.trays[side];
      var n = pos.off[side];
      for (var i = 0; i < n; i++) {
        var y = tray.top ? top + 3 + i * 13 : bottom - 13 - i * 13;
        el("rect", {
          x: tray.x - 16, y: y, width: 32, height: 10, rx: 2,
          fill: COLOURS.fill[HUE[side]], stroke: COLOURS.stroke[HUE[side]], class: "off side-" + (side + 1),
        }, g);
      }
      if (marks.targets && marks.targets.off && marks.mover === side + 1) {
        var h = (bottom - top) / 2 - 8;
        el("rect", {
          x: tray.x - L.tray_w / 2 + 5, y: tray.top ? top : bottom - h,
          width: L.tray_w - 10, height: h, fill: "#3fa34d", opacity: 0.5, class: "target",
        }, g);
      }
      if (n) {
        var t = el("text", {
          x: tray.x, y: tray.top ? mid - 12 : mid + 24, "text-anchor": "middle",
          "font-size": 15, fill: "#f3ecdc", class: "off-count",
        }, g);
        t.textContent = String(n);
      }
    });

    // Dice in the roller's half; the cube on the bar, or offered in the doubler's half.
    if (frame.dice && frame.dice.length && frame.dice_side) {
      var dx = L.dice_x[frame.dice_side - 1];
      var used = marks.used || [];
      frame.dice.forEach(function (value, i) {
        var x = dx + (i - (frame.dice.length - 1) / 2) * 44;
        die(g, x, mid, 36, value, frame.dice_side - 1);
        if (used[i]) el("rect", { x: x - 18, y: mid - 18, width: 36, height: 36, rx: 6, fill: "#777", opacity: 0.55 }, g);
      });
    }
    var c = frame.cube;
    if (c && c.enabled) {
      if (c.offer) {
        cube(g, L.dice_x[c.offer.by - 1], mid, c.offer.value, true);
      } else {
        var cy = mid;
        if (c.owner) cy = c.owner === L.viewer ? bottom - 22 : top + 22;
        cube(g, L.bar.x, cy, c.value, false);
      }
    }

    // Click areas on top of everything.
    L.slots.forEach(function (slot) {
      el("rect", {
        x: slot.x - L.point.w / 2, y: slot.top ? top : mid, width: L.point.w,
        height: slot.top ? mid - top : bottom - mid, fill: "transparent",
        "data-key": "p" + slot.loc, "data-point": slot.label, class: "hit-area",
      }, g);
    });
    el("rect", {
      x: L.bar.x - L.bar.w / 2, y: top, width: L.bar.w, height: bottom - top,
      fill: "transparent", "data-key": "bar", class: "hit-area",
    }, g);
    if (marks.mover) {
      var tray = L.trays[marks.mover - 1];
      el("rect", {
        x: tray.x - L.tray_w / 2, y: tray.top ? top : mid, width: L.tray_w,
        height: tray.top ? mid - top : bottom - mid, fill: "transparent",
        "data-key": "off", class: "hit-area",
      }, g);
    }
  }

  // --- Moving by clicks -----------------------------------------------------

  /* Steps are [origin, dest, hit] in the mover's own numbering (25 bar, 0 off);
   * in Soldiers [origin, dest, hit, class letter], and a chosen step keeps its
   * class: [origin, dest, letter].
   * ``rules``: {hitting, pinning} of the variant, for previewing the position. */
  function Mover(found, layouts, rules) {
    this.side = found.side;
    this.dice = found.dice;
    this.plays = found.plays;
    this.hitting = rules.hitting;
    this.pinning = rules.pinning;
    this.classed = found.plays.some(function (play) {
      return play.steps.some(function (step) { return step.length > 3; });
    });
    this.chosen = [];
    this.selected = null;
    this.selectedClass = null; // Soldiers: the class of the selected checker
    // The mover's own point q stands at layouts[mover].slots[q - 1].loc.
    var slots = layouts[this.side - 1].slots;
    this.locOf = function (q) { return slots[q - 1].loc; };
    var pointAt = {};
    slots.forEach(function (s, k) { pointAt[s.loc] = k + 1; });
    this.pointAt = pointAt;
  }

  /* Whether play step ``s`` is chosen step ``c`` (and of its class, in Soldiers). */
  function sameStep(s, c) {
    return s[0] === c[0] && s[1] === c[1] && (c[2] === undefined || s[3] === c[2]);
  }

  Mover.prototype.consistent = function () {
    var chosen = this.chosen;
    return this.plays.filter(function (play) {
      var left = play.steps.slice();
      return chosen.every(function (c) {
        for (var i = 0; i < left.length; i++) {
          if (sameStep(left[i], c)) { left.splice(i, 1); return true; }
        }
        return false;
      });
    });
  };

  Mover.prototype.remaining = function (play) {
    var left = play.steps.slice();
    this.chosen.forEach(function (c) {
      for (var i = 0; i < left.length; i++) {
        if (sameStep(left[i], c)) { left.splice(i, 1); return; }
      }
    });
    return left;
  };

  Mover.prototype.complete = function () {
    var self = this;
    var done = this.consistent().filter(function (p) { return self.remaining(p).length === 0; });
    return done.length ? done[0] : null;
  };

  Mover.prototype.keyOf = function (q) {
    if (q === 25) return "bar";
    if (q === 0) return "off";
    return "p" + this.locOf(q);
  };

  Mover.prototype.pointOf = function (key) {
    if (key === "bar") return 25;
    if (key === "off") return 0;
    return this.pointAt[Number(key.slice(1))];
  };

  Mover.prototype.origins = function (position) {
    var self = this;
    var found = {};
    var onBar = position.bar[this.side - 1] > 0;
    this.consistent().forEach(function (play) {
      self.remaining(play).forEach(function (s) {
        if (onBar && s[0] !== 25) return;
        if (self.classed && !self.present(position, s[0], s[3])) return;
        found[self.keyOf(s[0])] = true;
      });
    });
    return found;
  };

  /* Soldiers: the mover's free checkers on own point ``q`` (25 the bar), as letters. */
  Mover.prototype.lettersAt = function (position, q) {
    var me = this.side - 1;
    return q === 25 ? barLetters(position, me) : freeLetters(position, me, this.locOf(q));
  };

  /* Soldiers: whether a checker of class ``letter`` stands free on own point ``q``
   * now (a step of a later checker of the play from a point it has not reached
   * yet does not make that point a place to click). */
  Mover.prototype.present = function (position, q, letter) {
    return q !== 0 && this.lettersAt(position, q).indexOf(letter) >= 0;
  };

  /* Soldiers: the classes that may move from own point ``q`` now, in class order. */
  Mover.prototype.classesFrom = function (position, q) {
    var self = this;
    var found = [];
    if (!this.classed) return found;
    this.consistent().forEach(function (play) {
      self.remaining(play).forEach(function (s) {
        if (s[0] === q && found.indexOf(s[3]) < 0 && self.present(position, q, s[3])) found.push(s[3]);
      });
    });
    return classOrder(found);
  };

  /* Destinations from own point ``q``: each with the shortest run of steps; in
   * Soldiers only the steps of the class ``letter`` (one checker's journey). */
  Mover.prototype.targets = function (q, letter) {
    var self = this;
    var best = {};
    this.consistent().forEach(function (play) {
      var left = self.remaining(play);
      (function walk(at, path, free) {
        free.forEach(function (s, i) {
          if (s[0] !== at) return;
          if (letter && s[3] !== letter) return;
          var run = path.concat([s]);
          var key = self.keyOf(s[1]);
          if (!best[key] || best[key].length > run.length) best[key] = run;
          if (s[1] !== 0) walk(s[1], run, free.slice(0, i).concat(free.slice(i + 1)));
        });
      })(q, [], left);
    });
    return best;
  };

  /* The preview only: the engine checks the play when it is recorded.  Pins are
   * kept as the server sends them (position.pinned, absolute locations by side). */
  Mover.prototype.apply = function (position, run) {
    var me = this.side - 1;
    var opp = 1 - me;
    var self = this;
    if (position.classes) {
      run.forEach(function (s) {
        self.chosen.push([s[0], s[1], s[3]]);
        self.applyClassStep(position, s);
      });
      return;
    }
    if (this.pinning && !position.pinned) position.pinned = [[], []];
    run.forEach(function (s) {
      self.chosen.push([s[0], s[1]]);
      if (s[0] === 25) {
        position.bar[me] -= 1;
      } else {
        var from = self.locOf(s[0]);
        position.points[from][me] -= 1;
        // My last checker leaving a point frees the one it pinned.
        if (self.pinning && position.points[from][me] === 0) {
          position.pinned[opp] = position.pinned[opp].filter(function (l) { return l !== from; });
        }
      }
      if (s[1] === 0) {
        position.off[me] += 1;
        return;
      }
      var to = self.locOf(s[1]);
      var cell = position.points[to];
      if (self.hitting && cell[opp] === 1) {
        cell[opp] = 0;
        position.bar[opp] += 1;
      } else if (self.pinning && cell[opp] === 1 && cell[me] === 0) {
        position.pinned[opp].push(to);
      }
      cell[me] += 1;
    });
  };

  /* Soldiers' preview of one step (RULES.md §3.1), worked out from the position as
   * the Plakoto one is: a druid pins a lone checker, a lone guard is captured by
   * the second checker to land on it (the first waits beside it), any other
   * lone checker is hit; the last checker to leave a point frees the one it pinned. */
  Mover.prototype.applyClassStep = function (position, s) {
    var me = this.side - 1;
    var opp = 1 - me;
    var letter = s[3];
    if (!position.bar_classes) position.bar_classes = [[], []];
    if (!position.pinned) position.pinned = [[], []];
    if (!position.pinned_classes) position.pinned_classes = [{}, {}];
    var classesAt = function (loc, side) {
      if (!position.classes[loc]) position.classes[loc] = [[], []];
      return position.classes[loc][side];
    };
    var take = function (list, c) {
      var i = list.indexOf(c);
      if (i >= 0) list.splice(i, 1);
    };
    var release = function (side, loc) {
      if (position.pinned[side].indexOf(loc) < 0) return;
      position.pinned[side] = position.pinned[side].filter(function (l) { return l !== loc; });
      var freed = position.pinned_classes[side][String(loc)] || "P";
      delete position.pinned_classes[side][String(loc)];
      classesAt(loc, side).push(freed);
    };
    if (s[0] === 25) {
      position.bar[me] -= 1;
      take(position.bar_classes[me], letter);
    } else {
      var from = this.locOf(s[0]);
      position.points[from][me] -= 1;
      take(classesAt(from, me), letter);
      if (position.points[from][me] === 0) release(opp, from);
    }
    if (s[1] === 0) {
      position.off[me] += 1;
      return;
    }
    var to = this.locOf(s[1]);
    var cell = position.points[to];
    var theirs = freeLetters(position, opp, to);
    var mine = freeLetters(position, me, to).length;
    if (theirs.length === 1) {
      var lone = theirs[0];
      if (letter === "D" && lone !== "G") {
        take(classesAt(to, opp), lone);
        position.pinned[opp].push(to);
        position.pinned_classes[opp][String(to)] = lone;
      } else if (lone !== "G" || mine === 1) {
        // A hit, or the second attacker capturing the guard: it goes to the bar.
        cell[opp] -= 1;
        take(classesAt(to, opp), lone);
        position.bar[opp] += 1;
        position.bar_classes[opp].push(lone);
        release(me, to);
      }
    }
    cell[me] += 1;
    classesAt(to, me).push(letter);
  };

  Mover.prototype.text = function () {
    var done = this.complete();
    if (done) return done.moves;
    return this.chosen.map(function (c) {
      var prefix = c[2] && c[2] !== "P" ? c[2] : "";
      return prefix + (c[0] === 25 ? "bar" : c[0]) + "/" + (c[1] === 0 ? "off" : c[1]);
    }).join(" ");
  };

  // --- The live board -------------------------------------------------------

  function LiveBoard(root) {
    this.root = root;
    this.config = readJSON("board-config");
    this.layouts = readJSON("board-layouts");
    this.state = readJSON("board-state");
    this.stateAt = performance.now(); // when the state's clock figures were true
    this.msg = readJSON("board-messages");
    this.svg = document.getElementById("board");
    this.perspective = this.config.perspective;
    this.mover = null; // a Mover while a play is being chosen
    this.entered = null; // dice entered in the roll phase
    this.display = null; // the position with the chosen steps applied
    this.busy = false;
    var csrf = root.querySelector("input[name=csrfmiddlewaretoken]");
    this.csrf = csrf ? csrf.value : "";
    this.controls = document.getElementById("controls");
    this.bind();
    this.render();
    this.preparePlay();
    this.poll();
    this.tickClocks();
  }

  LiveBoard.prototype.$ = function (id) { return document.getElementById(id); };

  LiveBoard.prototype.bind = function () {
    var self = this;
    this.$("flip").addEventListener("click", function () {
      self.perspective = 3 - self.perspective;
      self.closeChooser(false);
      self.drawBoard();
    });
    this.svg.addEventListener("click", function (event) {
      var target = event.target.closest ? event.target.closest("[data-key]") : null;
      if (target) self.clickPlace(target.getAttribute("data-key"));
    });
    if (!this.controls) return;
    this.controls.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-kind]");
      if (!button) return;
      var kind = button.getAttribute("data-kind");
      if (kind === "resign") {
        self.send({ kind: "resign", level: self.$("resign-level").value });
      } else {
        self.send({ kind: kind });
      }
    });
    this.$("record-opening").addEventListener("click", function () {
      self.send({
        kind: "opening",
        dice: [Number(self.$("opening-1").value), Number(self.$("opening-2").value)],
      });
    });
    this.$("enter-dice").addEventListener("click", function () {
      var dice = [];
      self.root.querySelectorAll("#dice-entry select").forEach(function (s) {
        dice.push(Number(s.value));
      });
      self.entered = dice;
      self.loadPlays(dice);
    });
    this.$("change-dice").addEventListener("click", function () {
      self.resetPlay();
      self.render();
    });
    this.$("clear-play").addEventListener("click", function () {
      self.closeChooser(false);
      if (self.mover) {
        self.mover.chosen = [];
        self.mover.selected = null;
        self.mover.selectedClass = null;
        self.display = clone(self.state.position);
      }
      self.$("moves").value = "";
      self.render();
    });
    this.$("submit-play").addEventListener("click", function () { self.submitPlay(); });
    this.$("moves").addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        self.submitPlay();
      }
    });
    this.root.querySelectorAll("button[data-undo]").forEach(function (button) {
      button.addEventListener("click", function () {
        self.post(self.config.undo_url, { action: button.getAttribute("data-undo") });
      });
    });
    this.root.querySelectorAll("button[data-scorer]").forEach(function (button) {
      button.addEventListener("click", function () {
        self.post(self.config.scorer_url, { action: button.getAttribute("data-scorer") });
      });
    });
  };

  LiveBoard.prototype.dicePlayed = function () {
    return this.entered || this.state.dice;
  };

  LiveBoard.prototype.submitPlay = function () {
    this.send({ kind: "play", dice: this.dicePlayed(), moves: this.$("moves").value });
  };

  LiveBoard.prototype.send = function (turn) {
    turn.number = this.state.next_turn;
    this.post(this.config.record_url, turn);
  };

  LiveBoard.prototype.showMessage = function (text) {
    var box = this.$("message");
    box.textContent = text || "";
    box.hidden = !text;
  };

  LiveBoard.prototype.post = function (url, body) {
    var self = this;
    if (this.busy) return;
    this.busy = true;
    this.showMessage("");
    fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": this.csrf },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (data) { return { status: response.status, data: data }; },
        function () { return { status: response.status, data: {} }; });
    }).then(function (answer) {
      self.busy = false;
      if (answer.status === 200) {
        self.update(answer.data.state);
        return;
      }
      var error = answer.data.error || {};
      if (answer.status === 409) {
        self.showMessage(self.msg.conflict);
        self.refresh(true);
      } else if (answer.status === 403) {
        self.showMessage(error.reason || self.msg.forbidden);
      } else {
        self.showMessage(format(self.msg.refused, { reason: error.reason || answer.status }));
      }
    }).catch(function () {
      self.busy = false;
      self.showMessage(self.msg.network);
    });
  };

  LiveBoard.prototype.update = function (state) {
    var changed = !this.state || state.version !== this.state.version;
    this.state = state;
    this.stateAt = performance.now();
    if (changed) {
      this.resetPlay();
    }
    this.render();
    if (changed) this.preparePlay();
  };

  LiveBoard.prototype.refresh = function (force) {
    var self = this;
    var url = this.config.state_url + (force ? "" : "?v=" + encodeURIComponent(this.state.version));
    return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (!data.unchanged) self.update(data);
      })
      .catch(function () { /* the next poll tries again */ });
  };

  LiveBoard.prototype.over = function () {
    var s = this.state.match.state;
    return s === "finished" || s === "cancelled";
  };

  LiveBoard.prototype.poll = function () {
    var self = this;
    var timer = null;
    function tick() {
      if (self.over()) {
        window.clearInterval(timer);
        timer = null;
        return;
      }
      if (!document.hidden && !self.busy) self.refresh(false);
    }
    function start() {
      if (!timer && !self.over()) timer = window.setInterval(tick, self.config.poll_ms);
    }
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) {
        window.clearInterval(timer);
        timer = null;
      } else {
        self.refresh(false);
        start();
      }
    });
    start();
  };

  /* Time left on player ``side``'s clock now: the server's figure less the time
   * since it came, past what was left of the move's delay. */
  LiveBoard.prototype.clockLeft = function (side) {
    var c = this.state.clock;
    var left = c.remaining_ms[side - 1];
    if (c.running === side) {
      left -= Math.max(0, performance.now() - this.stateAt - c.delay_ms);
    }
    return Math.max(0, left);
  };

  /* Shows the clocks; a fallen flag is only shown: the server decides a loss on time. */
  LiveBoard.prototype.renderClocks = function () {
    var c = this.state.clock;
    for (var side = 1; side <= 2; side++) {
      var box = this.$("clock-" + side);
      if (!box) continue;
      box.hidden = !c;
      if (!c) continue;
      var left = this.clockLeft(side);
      var flagged = c.flag[side - 1] || left <= 0;
      box.textContent = clockText(left);
      box.classList.toggle("running", c.running === side && !flagged);
      box.classList.toggle("flagged", flagged);
      this.$("flag-" + side).hidden = !flagged;
    }
  };

  LiveBoard.prototype.tickClocks = function () {
    var self = this;
    if (!this.$("clock-1")) return;
    window.setInterval(function () {
      if (self.state.clock && self.state.clock.running) self.renderClocks();
    }, 250);
  };

  LiveBoard.prototype.resetPlay = function () {
    this.closeChooser(false);
    this.mover = null;
    this.entered = null;
    this.display = null;
    var moves = this.$("moves");
    if (moves) moves.value = "";
  };

  LiveBoard.prototype.canRecord = function () {
    return !!this.controls && this.state.viewer.can_record;
  };

  /* When the dice are on the table already (the opening dice), load their plays. */
  LiveBoard.prototype.preparePlay = function () {
    if (this.canRecord() && this.state.phase === "play" && this.state.viewer.actions.indexOf("play") >= 0) {
      this.loadPlays(this.state.dice);
    }
  };

  LiveBoard.prototype.loadPlays = function (dice) {
    var self = this;
    var version = this.state.version;
    var url = this.config.plays_url + "?dice=" + dice.join(",");
    this.showMessage("");
    fetch(url, { credentials: "same-origin" })
      .then(function (r) { return r.json().then(function (d) { return { status: r.status, data: d }; }); })
      .then(function (answer) {
        if (self.state.version !== version) return;
        if (answer.status !== 200) {
          self.entered = null;
          self.showMessage(format(self.msg.refused, { reason: (answer.data.error || {}).reason }));
          self.render();
          return;
        }
        self.mover = new Mover(answer.data, self.layouts, self.config);
        self.display = clone(self.state.position);
        var only = self.mover.plays.length === 1 && self.mover.plays[0].steps.length === 0;
        if (only) self.$("moves").value = self.mover.plays[0].moves;
        self.render();
      })
      .catch(function () { self.showMessage(self.msg.network); });
  };

  LiveBoard.prototype.clickPlace = function (key) {
    var m = this.mover;
    if (!m || !this.display) return;
    this.closeChooser(false);
    var q = m.pointOf(key);
    if (q === undefined) return;
    if (m.selected !== null) {
      var targets = m.targets(m.selected, m.selectedClass);
      var run = targets[m.keyOf(q)];
      if (run && q !== m.selected) {
        m.apply(this.display, run);
        m.selected = null;
        m.selectedClass = null;
        this.$("moves").value = m.text();
        this.render();
        return;
      }
      if (q === m.selected) {
        m.selected = null;
        m.selectedClass = null;
        this.render();
        return;
      }
    }
    if (m.origins(this.display)[key]) {
      // Soldiers: with checkers of several classes able to move from here, the
      // mover says which one; one class (or any other variant) moves at once.
      var classes = m.classesFrom(this.display, q);
      if (classes.length > 1 && this.$("class-chooser")) {
        m.selected = null;
        m.selectedClass = null;
        this.render();
        this.openChooser(q, key, classes);
        return;
      }
      m.selected = q;
      m.selectedClass = classes.length ? classes[0] : null;
    }
    this.render();
  };

  /* The class chooser: a small panel over the board by the clicked point, one
   * button per class (its shape, letter and name), then Cancel; arrow keys move
   * between the buttons and Escape closes it. */
  LiveBoard.prototype.openChooser = function (q, key, classes) {
    var self = this;
    var box = this.$("class-chooser");
    var names = this.msg.class_names || {};
    box.textContent = "";
    var title = document.createElement("p");
    title.id = "class-chooser-title";
    title.className = "class-chooser-title";
    title.textContent = q === 25 ? this.msg.choose_class_bar : format(this.msg.choose_class, { point: q });
    box.appendChild(title);
    var row = document.createElement("div");
    row.className = "class-chooser-buttons";
    box.appendChild(row);
    var side = this.mover.side - 1;
    classes.forEach(function (letter) {
      var button = document.createElement("button");
      button.type = "button";
      button.setAttribute("data-class", letter);
      button.appendChild(classIcon(letter, side));
      var strong = document.createElement("strong");
      strong.textContent = letter;
      button.appendChild(strong);
      button.appendChild(document.createTextNode(" " + (names[letter] || letter)));
      button.addEventListener("click", function () { self.chooseClass(q, letter); });
      row.appendChild(button);
    });
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "class-chooser-cancel";
    cancel.textContent = this.msg.cancel;
    cancel.addEventListener("click", function () { self.closeChooser(true); });
    row.appendChild(cancel);
    box.onkeydown = function (event) {
      var buttons = Array.prototype.slice.call(box.querySelectorAll("button"));
      var at = buttons.indexOf(document.activeElement);
      if (event.key === "Escape") {
        event.preventDefault();
        self.closeChooser(true);
      } else if (event.key === "ArrowRight" || event.key === "ArrowDown") {
        event.preventDefault();
        buttons[(at + 1) % buttons.length].focus();
      } else if (event.key === "ArrowLeft" || event.key === "ArrowUp") {
        event.preventDefault();
        buttons[(at - 1 + buttons.length) % buttons.length].focus();
      }
    };
    box.setAttribute("data-point", String(q));
    box.hidden = false;
    this.placeChooser(box, key);
    row.querySelector("button").focus();
  };

  /* Put the chooser by the clicked point (the bar: by its middle), inside the board. */
  LiveBoard.prototype.placeChooser = function (box, key) {
    var L = this.layouts[this.perspective - 1];
    var frame = box.parentNode.getBoundingClientRect();
    var rect = this.svg.getBoundingClientRect();
    var scale = rect.width / L.width;
    var x = L.bar.x;
    var y = L.mid_y;
    L.slots.forEach(function (slot) {
      if ("p" + slot.loc === key) {
        x = slot.x;
        y = slot.top ? L.inner.top + L.point.h * 0.75 : L.inner.bottom - L.point.h * 0.75;
      }
    });
    var left = rect.left - frame.left + x * scale - box.offsetWidth / 2;
    var topPx = rect.top - frame.top + y * scale - box.offsetHeight / 2;
    left = Math.max(0, Math.min(left, frame.width - box.offsetWidth));
    topPx = Math.max(0, Math.min(topPx, rect.bottom - frame.top - box.offsetHeight));
    box.style.left = left + "px";
    box.style.top = topPx + "px";
  };

  LiveBoard.prototype.chooseClass = function (q, letter) {
    var m = this.mover;
    this.closeChooser(false);
    if (!m) return;
    m.selected = q;
    m.selectedClass = letter;
    this.render();
    this.focusHint();
  };

  /* ``refocus``: the chooser had the focus and nothing was chosen (Cancel, Escape). */
  LiveBoard.prototype.closeChooser = function (refocus) {
    var box = this.$("class-chooser");
    if (!box || box.hidden) return;
    box.hidden = true;
    box.textContent = "";
    if (refocus) this.focusHint();
  };

  /* After the chooser the focus goes to the hint, which says what to do next. */
  LiveBoard.prototype.focusHint = function () {
    var hint = this.$("play-hint");
    if (!hint) return;
    hint.setAttribute("tabindex", "-1");
    hint.focus();
  };

  LiveBoard.prototype.frame = function () {
    var s = this.state;
    var dice = s.dice;
    var side = s.dice_side;
    if (this.entered) {
      dice = this.entered;
      side = s.to_act;
    }
    return {
      position: this.display || s.position,
      dice: dice,
      dice_side: side,
      cube: s.cube,
      white: s.white,
    };
  };

  LiveBoard.prototype.drawBoard = function () {
    var L = this.layouts[this.perspective - 1];
    var marks = {};
    var m = this.mover;
    if (m && this.display) {
      marks.mover = m.side;
      marks.sources = m.origins(this.display);
      if (m.selected !== null) {
        marks.selected = m.keyOf(m.selected);
        marks.selectedClass = m.selectedClass;
        marks.targets = m.targets(m.selected, m.selectedClass);
      }
    }
    draw(this.svg, L, this.frame(), marks);
  };

  LiveBoard.prototype.render = function () {
    var s = this.state;
    var msg = this.msg;
    this.drawBoard();
    this.$("score-1").textContent = String(s.match.score[0]);
    this.$("score-2").textContent = String(s.match.score[1]);
    this.$("match-length").textContent = s.match.length
      ? format(msg.match_to, { length: s.match.length }) : msg.money;
    this.$("game-number").textContent = format(msg.game, { number: s.game.number });
    this.$("crawford").hidden = !(s.game.crawford && !this.over());
    paintChips(this.root, s.white);
    var p1 = this.root.querySelector(".player.p1");
    var p2 = this.root.querySelector(".player.p2");
    p1.classList.toggle("to-act", s.to_act === 1);
    p2.classList.toggle("to-act", s.to_act === 2);
    this.$("pips-1").textContent = String(s.position.pips[0]);
    this.$("pips-2").textContent = String(s.position.pips[1]);
    this.renderClocks();
    var cubeText = "";
    if (s.cube.enabled) {
      cubeText = s.cube.owner
        ? format(msg.cube_owner, { value: s.cube.value, name: s.players[s.cube.owner - 1] })
        : format(msg.cube_centre, { value: s.cube.value });
    }
    this.$("cube-text").textContent = cubeText;

    var status = s.status;
    if (s.last_game) {
      status = format(msg.won_game, {
        name: s.last_game.winner_name, number: s.last_game.number,
        points: s.last_game.points, result: s.last_game.result_label,
      }) + " " + status;
    }
    this.$("status").textContent = status;
    var winner = this.$("winner");
    winner.hidden = !s.match.winner;
    winner.textContent = s.match.winner ? format(msg.winner, { name: s.match.winner_name }) : "";
    this.renderTurns();
    this.renderGames();
    this.renderControls();
  };

  LiveBoard.prototype.renderTurns = function () {
    var list = this.$("turns");
    var s = this.state;
    list.textContent = "";
    s.turns.forEach(function (t) {
      var li = document.createElement("li");
      li.value = t.number;
      var who = document.createElement("span");
      who.className = "chip side-" + t.side;
      li.appendChild(who);
      li.appendChild(document.createTextNode(" " + t.text));
      if (t.recorded_by) {
        var by = document.createElement("span");
        by.className = "recorded-by muted";
        by.textContent = " (" + t.recorded_by_text + ")";
        li.appendChild(by);
      }
      if (t.clock_text) {
        var source = document.createElement("span");
        source.className = "clock-source muted";
        source.textContent = " (" + t.clock_text + ")";
        li.appendChild(source);
      }
      list.appendChild(li);
    });
    this.$("no-turns").hidden = s.turns.length > 0;
    list.scrollTop = list.scrollHeight;
  };

  LiveBoard.prototype.renderGames = function () {
    var list = this.$("games");
    var msg = this.msg;
    list.textContent = "";
    this.state.games.forEach(function (g) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = g.replay_url;
      a.textContent = format(msg.game, { number: g.number });
      li.appendChild(a);
      li.appendChild(document.createTextNode(": " + format(msg.won_game, {
        name: g.winner_name, number: g.number, points: g.points, result: g.result_label,
      })));
      list.appendChild(li);
    });
    this.$("games-box").hidden = this.state.games.length === 0;
  };

  LiveBoard.prototype.renderControls = function () {
    if (!this.controls) return;
    var s = this.state;
    var self = this;
    // Only what this viewer may enter (their own side's actions, or both in scorer mode).
    var acts = s.viewer.actions;
    var has = function (kind) { return acts.indexOf(kind) >= 0; };
    var playing = !!this.mover || (s.phase === "play" && has("play"));
    var panels = {
      opening: has("opening"),
      roll: s.phase === "roll" && has("play") && !this.entered,
      play: playing,
      take: s.phase === "take" && (has("take") || has("pass")),
      resignation: s.phase === "resign" && has("accept"),
      resign: has("resign") && !this.over(),
    };
    Object.keys(panels).forEach(function (name) {
      self.controls.querySelector("[data-panel=" + name + "]").hidden = !panels[name];
    });
    this.controls.querySelectorAll("button[data-kind]").forEach(function (button) {
      var kind = button.getAttribute("data-kind");
      if (kind !== "resign") button.hidden = !has(kind);
    });
    // Dice selects: as many as the variant rolls.
    var entry = this.$("dice-entry");
    var selects = entry.querySelectorAll("select");
    if (selects.length !== s.dice_count) {
      entry.querySelectorAll("label").forEach(function (l) { l.remove(); });
      for (var i = 0; i < s.dice_count; i++) {
        var label = document.createElement("label");
        label.className = "die-choice";
        var select = document.createElement("select");
        select.id = "die-" + (i + 1);
        select.setAttribute("aria-label", "die " + (i + 1));
        for (var v = 1; v <= 6; v++) {
          var o = document.createElement("option");
          o.value = String(v);
          o.textContent = String(v);
          select.appendChild(o);
        }
        label.appendChild(select);
        entry.appendChild(label);
      }
    }
    var levels = this.$("resign-level");
    if (levels.options.length !== s.resign_levels.length) {
      levels.textContent = "";
      s.resign_levels.forEach(function (l) {
        var o = document.createElement("option");
        o.value = l.name;
        o.textContent = l.label;
        levels.appendChild(o);
      });
    }
    this.$("change-dice").hidden = !this.entered;
    var hint = "";
    if (panels.play) {
      var dice = this.dicePlayed() || [];
      this.$("play-dice").textContent = dice.join("-");
      if (this.mover) {
        var only = this.mover.plays.length === 1 && this.mover.plays[0].steps.length === 0;
        if (only) hint = this.msg.no_move;
        else if (this.mover.complete()) hint = this.msg.complete;
        else if (this.mover.selected !== null) hint = this.msg.choose_target;
        else hint = this.msg.choose_checker;
      }
    }
    this.$("play-hint").textContent = hint;

    // Undo: a player asks, the opponent agrees; an arbiter undoes at once.
    var v = s.viewer;
    var anyTurn = s.turns.length > 0 || s.games.length > 0;
    var official = s.match.official;
    var undo = s.undo;
    // Who may ask or agree comes from the server (each for their own side; a scorer for both).
    var asked = undo && undo.requested_by === v.side && !v.scorer;
    this.$("undo-request").hidden = !(v.may_request_undo && anyTurn && !official && !asked);
    this.$("undo-agree").hidden = !(undo && v.may_agree_undo);
    this.$("undo-arbiter").hidden = !(v.can_arbitrate && anyTurn && !official);
    var note = "";
    if (undo) {
      note = undo.requested_by === v.side ? this.msg.undo_asked_by_you
        : format(this.msg.undo_asked, { name: s.players[undo.requested_by - 1] });
    }
    this.$("undo-note").textContent = note;
    this.$("undo-note").hidden = !note;
    this.$("waiting-note").textContent = v.waiting_note || "";
    this.$("waiting-note").hidden = !v.waiting_note;
    this.renderScorer();
  };

  /* Scorer mode: an arbiter switches it; players propose and agree (both must). */
  LiveBoard.prototype.renderScorer = function () {
    var s = this.state;
    var v = s.viewer;
    var msg = this.msg;
    var mode = s.scorer;
    var on = "", off = "", note = "";
    if (mode.on) {
      note = mode.by_arbiter ? msg.scorer_on_arbiter : msg.scorer_on_players;
      if (v.can_arbitrate || (v.side && !mode.by_arbiter)) off = msg.scorer_switch_off;
    } else if (v.can_arbitrate) {
      on = msg.scorer_switch_on;
      if (mode.proposed_by) note = format(msg.scorer_proposed, { name: s.players[mode.proposed_by - 1] });
    } else if (v.side && mode.proposed_by === v.side) {
      note = msg.scorer_proposed_by_you;
      off = msg.scorer_withdraw;
    } else if (v.side && mode.proposed_by === 3 - v.side) {
      note = format(msg.scorer_proposed, { name: s.players[mode.proposed_by - 1] });
      on = msg.scorer_agree;
    } else if (v.side) {
      on = msg.scorer_propose;
    }
    if (this.over()) on = "";
    this.$("scorer-on").textContent = on;
    this.$("scorer-on").hidden = !(on && v.may_switch_scorer);
    this.$("scorer-off").textContent = off;
    this.$("scorer-off").hidden = !(off && v.may_switch_scorer);
    this.$("scorer-note").textContent = note;
    this.$("scorer-note").hidden = !note;
  };

  // --- Replay ---------------------------------------------------------------

  function Replay(root) {
    var self = this;
    this.root = root;
    this.config = readJSON("board-config");
    this.layouts = readJSON("board-layouts");
    this.frames = readJSON("replay-frames");
    this.msg = readJSON("board-messages");
    this.svg = document.getElementById("board");
    this.perspective = this.config.perspective;
    this.index = 0;
    var match = /^#t(\d+)$/.exec(window.location.hash);
    if (match) this.index = Math.min(Number(match[1]), this.frames.length - 1);
    root.querySelectorAll("button[data-go]").forEach(function (button) {
      button.addEventListener("click", function () { self.go(button.getAttribute("data-go")); });
    });
    document.getElementById("flip").addEventListener("click", function () {
      self.perspective = 3 - self.perspective;
      self.show();
    });
    root.querySelectorAll("#replay-turns a[data-frame]").forEach(function (a) {
      a.addEventListener("click", function (event) {
        event.preventDefault();
        self.index = Number(a.getAttribute("data-frame"));
        self.show();
      });
    });
    document.addEventListener("keydown", function (event) {
      if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
      if (event.key === "ArrowLeft") self.go("prev");
      if (event.key === "ArrowRight") self.go("next");
    });
    this.show();
  }

  Replay.prototype.go = function (where) {
    var last = this.frames.length - 1;
    if (where === "first") this.index = 0;
    if (where === "prev") this.index = Math.max(0, this.index - 1);
    if (where === "next") this.index = Math.min(last, this.index + 1);
    if (where === "last") this.index = last;
    this.show();
  };

  Replay.prototype.show = function () {
    var frame = this.frames[this.index];
    var last = this.frames.length - 1;
    draw(this.svg, this.layouts[this.perspective - 1], frame, {});
    paintChips(document, frame.white);
    document.getElementById("replay-position").textContent = this.index === 0
      ? this.msg.replay_start
      : format(this.msg.replay_turn, { number: this.index, total: last });
    document.getElementById("replay-text").textContent = frame.text;
    document.getElementById("pips-1").textContent = String(frame.position.pips[0]);
    document.getElementById("pips-2").textContent = String(frame.position.pips[1]);
    var index = this.index;
    var list = document.getElementById("replay-turns");
    list.querySelectorAll("li").forEach(function (li) {
      var current = Number(li.getAttribute("data-frame")) === index;
      li.classList.toggle("current", current);
      // Keep the current turn in view inside the list (not scrolling the page).
      if (current && (li.offsetTop < list.scrollTop ||
          li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight)) {
        list.scrollTop = li.offsetTop - list.clientHeight / 2;
      }
    });
    this.root.querySelector("button[data-go=first]").disabled = index === 0;
    this.root.querySelector("button[data-go=prev]").disabled = index === 0;
    this.root.querySelector("button[data-go=next]").disabled = index === last;
    this.root.querySelector("button[data-go=last]").disabled = index === last;
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "#t" + index);
    }
  };

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("board-app");
    if (!root) return;
    var app = root.getAttribute("data-mode") === "replay" ? new Replay(root) : new LiveBoard(root);
    root.boardApp = app;
    root.setAttribute("data-ready", "1");
  });
})();
